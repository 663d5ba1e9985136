// The agent's record-line decoder gives exactly what the protobuf JSON
// parser gives, on the lines the workload writes (ToJsonLine of a
// WorkloadEvent, as workloads/runner/record_sink.cc writes them) and on
// lines outside the fast path's shape.
#include "agent/runtime/record_line.h"

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/proto_json.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;

// What the generic parser makes of `line` (the reference).
absl::Status Reference(const std::string& line, v1::WorkloadEvent* event) {
  event->Clear();
  return FromJson(line, event);
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void ExpectSameAsReference(const std::string& line, v1::WorkloadEvent* reused) {
  v1::WorkloadEvent want;
  const absl::Status want_st = Reference(line, &want);
  const absl::Status got_st = ParseRecordLine(line, reused);
  ASSERT_EQ(got_st.ok(), want_st.ok()) << line << "\n" << got_st << " vs " << want_st;
  if (!want_st.ok()) {
    EXPECT_EQ(got_st.message(), want_st.message()) << line;
    return;
  }
  // Bytes, not Equals: NaN must come out as the same NaN.
  EXPECT_EQ(reused->SerializeAsString(), want.SerializeAsString())
      << line << "\ngot  " << reused->ShortDebugString() << "\nwant "
      << want.ShortDebugString();
  const v1::MinibatchRecord& g = reused->minibatch();
  const v1::MinibatchRecord& w = want.minibatch();
  for (auto [a, b] : {std::pair{g.t_start_s(), w.t_start_s()}, {g.stall_s(), w.stall_s()},
                      {g.compute_s(), w.compute_s()}, {g.e2e_s(), w.e2e_s()},
                      {g.loss(), w.loss()}, {g.page_cache_resident(), w.page_cache_resident()}}) {
    EXPECT_TRUE(SameBits(a, b)) << line;
  }
}

double AnyFiniteDouble(std::mt19937_64& rng) {
  while (true) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) return d;
  }
}

// Minibatch events as the workload makes them, and with any values.
v1::WorkloadEvent RandomMinibatch(std::mt19937_64& rng, int i) {
  v1::WorkloadEvent e;
  v1::MinibatchRecord* r = e.mutable_minibatch();
  std::uniform_real_distribution<double> secs(0, 0.5);
  r->set_epoch(static_cast<int32_t>(i / 100));
  r->set_index(i < 500 ? i : static_cast<int64_t>(rng()));
  r->set_t_start_s(secs(rng) * i);
  r->set_stall_s(i % 7 == 0 ? 0 : secs(rng) / 100);
  r->set_compute_s(secs(rng));
  r->set_e2e_s(r->stall_s() + r->compute_s() + secs(rng) / 1000);
  r->set_samples(i % 3 == 0 ? 64 : static_cast<int32_t>(rng()));
  r->set_loss(i % 5 == 0 ? 0 : 2.3 / (1 + 0.01 * i));
  if (i % 4 == 0) r->set_tenant(i % 3);
  if (i % 100 == 0) r->set_page_cache_resident(i % 200 == 0 ? 0 : secs(rng));
  // A sequence model's minibatches: tokens (lstm_lm's 35 or gpt2_small's
  // 128 per sample), and generation latencies.
  if (i % 6 == 1) {
    r->set_tokens(i < 500 ? 64 * (i % 12 == 1 ? 128 : 35)
                          : static_cast<int64_t>(rng()));
  }
  if (i % 12 == 1) {
    r->set_ttft_s(secs(rng));
    r->set_per_token_s(i % 24 == 1 ? 0 : secs(rng) / 50);
  }
  if (i >= 500) {  // any bit pattern
    r->set_t_start_s(AnyFiniteDouble(rng));
    r->set_loss(AnyFiniteDouble(rng));
    r->set_e2e_s(AnyFiniteDouble(rng));
    r->set_epoch(static_cast<int32_t>(rng()));
  }
  return e;
}

TEST(RecordLineTest, WorkloadMinibatchLinesTakeTheFastPathAndMatchTheParser) {
  std::mt19937_64 rng(20261125);
  v1::WorkloadEvent reused;
  for (int i = 0; i < 3000; ++i) {
    const std::string line = ToJsonLine(RandomMinibatch(rng, i));
    v1::MinibatchRecord fast;
    EXPECT_TRUE(ParseMinibatchLine(line, &fast)) << line;
    ExpectSameAsReference(line, &reused);
  }
}

TEST(RecordLineTest, OtherEventsGoToTheParser) {
  v1::WorkloadEvent started;
  started.mutable_started()->set_framework("libtorch");
  started.mutable_started()->mutable_workload()->set_params(61706);
  v1::WorkloadEvent finished;
  finished.mutable_finished()->set_minibatches(938);
  finished.mutable_finished()->set_stop_reason("epochs");
  v1::WorkloadEvent reused;
  for (const v1::WorkloadEvent& e : {started, finished}) {
    const std::string line = ToJsonLine(e);
    v1::MinibatchRecord fast;
    EXPECT_FALSE(ParseMinibatchLine(line, &fast)) << line;
    ExpectSameAsReference(line, &reused);
    EXPECT_TRUE(MessageDifferencer::Equals(reused, e));
  }
}

TEST(RecordLineTest, LinesOutsideTheShapeGiveWhatTheParserGives) {
  const std::vector<std::string> lines = {
      R"({"minibatch":{}})",
      R"( { "minibatch" : { "index" : "12" , "loss" : 1.5e-3 } } )",
      R"({"minibatch":{"index":12,"epoch":"3","samples":64}})",
      R"({"minibatch":{"tStartS":0.5,"e2eS":0.25}})",
      R"({"minibatch":{"loss":"1.5"}})",
      R"({"minibatch":{"loss":"NaN"}})",
      R"({"minibatch":{"loss":"Infinity"}})",
      R"({"minibatch":{"loss":1e999}})",
      R"({"minibatch":{"loss":1.5,"loss":2.5}})",
      R"({"minibatch":{"epoch":2147483648}})",
      R"({"minibatch":{"epoch":-2147483648,"tenant":2147483647}})",
      R"({"minibatch":{"epoch":1.0}})",
      R"({"minibatch":{"epoch":01}})",
      R"({"minibatch":{"index":"9223372036854775807"}})",
      R"({"minibatch":{"index":-0}})",
      R"({"minibatch":{"e2e_s":-0.0}})",
      R"({"minibatch":{"e2e_s":.5}})",
      R"({"minibatch":{"bogus":1}})",
      R"({"minibatch":{"loss":null}})",
      R"({"minibatch":{"page_cache_resident":0}})",
      R"({"minibatch":{"index":1}} trailing)",
      R"({"minibatch":{"index":1})",
      R"({"minibatch":{"index":1},"started":{}})",
      R"({"minibatch":{"index":1,}})",
      R"({"minibatch":{"index":1}})",
      R"(not json)",
  };
  v1::WorkloadEvent reused;
  reused.mutable_started()->set_framework("stale");  // must not leak through
  for (const std::string& line : lines) ExpectSameAsReference(line, &reused);
}

TEST(RecordLineTest, GenerationLatenciesTakeTheFastPath) {
  v1::WorkloadEvent e;
  e.mutable_minibatch()->set_index(3);
  e.mutable_minibatch()->set_tokens(4096);
  e.mutable_minibatch()->set_ttft_s(0.25);
  e.mutable_minibatch()->set_per_token_s(0);
  v1::MinibatchRecord fast;
  ASSERT_TRUE(ParseMinibatchLine(ToJsonLine(e), &fast)) << ToJsonLine(e);
  EXPECT_EQ(fast.tokens(), 4096);
  EXPECT_EQ(fast.ttft_s(), 0.25);
  EXPECT_TRUE(fast.has_per_token_s());
}

TEST(RecordLineTest, ZeroPageCacheResidencyIsKeptAsPresent) {
  v1::WorkloadEvent e;
  e.mutable_minibatch()->set_index(100);
  e.mutable_minibatch()->set_page_cache_resident(0);
  v1::MinibatchRecord fast;
  ASSERT_TRUE(ParseMinibatchLine(ToJsonLine(e), &fast));
  EXPECT_TRUE(fast.has_page_cache_resident());
}

}  // namespace
}  // namespace powersweep
