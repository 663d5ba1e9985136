#include "controller/sweep/submitter.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/fake_clock.h"
#include "controller/sweep/problem_list.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/memory_store.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::SweepSpec Spec() {
  v1::SweepSpec s;
  s.set_name("submit");
  s.add_device_classes("orin-agx");
  s.add_models("lenet5");
  s.add_datasets("fashion-mnist");
  s.add_batch_sizes(16);
  s.add_batch_sizes(32);
  s.add_tasks(v1::TASK_TRAIN);
  s.add_tasks(v1::TASK_INFER);
  s.set_repetitions(3);
  s.set_epochs(1);
  return s;
}

std::vector<v1::DeviceStatus> Orin() {
  v1::DeviceStatus d;
  d.mutable_identity()->set_device_id("orin-0");
  d.mutable_identity()->set_device_class("orin-agx");
  d.mutable_capabilities()->set_cpu_cores(12);
  d.mutable_capabilities()->add_runtimes(v1::RUNTIME_NATIVE);
  d.mutable_capabilities()->add_models("lenet5");
  d.mutable_capabilities()->add_datasets("fashion-mnist");
  return {d};
}

// A MemoryStore that counts CreateSweep calls; set_fail_create makes them
// fail as a broken database would.
class CountingStore : public MemoryStore {
 public:
  absl::StatusOr<int64_t> CreateSweep(const v1::SweepSpec& spec,
                                      const std::vector<v1::RunSpec>& runs,
                                      absl::Time now) override {
    ++create_sweep_calls_;
    if (!fail_create_.ok()) return fail_create_;
    return MemoryStore::CreateSweep(spec, runs, now);
  }
  int create_sweep_calls() const { return create_sweep_calls_; }
  void set_fail_create(absl::Status s) { fail_create_ = std::move(s); }

 private:
  int create_sweep_calls_ = 0;
  absl::Status fail_create_;
};

class SweepSubmitterTest : public ::testing::Test {
 protected:
  CountingStore store_;
  FakeClock clock_;
  SweepSubmitter submitter_{&store_, &clock_};
};

TEST_F(SweepSubmitterTest, StoresAllRunsInOneCreateSweep) {
  absl::StatusOr<v1::SubmitSweepResponse> r = submitter_.Submit(Spec(), Orin());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(store_.create_sweep_calls(), 1);
  EXPECT_EQ(r->run_count(), 12);  // 2 batch sizes x 2 tasks x 3 repetitions
  EXPECT_THAT(r->warnings(), ::testing::IsEmpty());

  absl::StatusOr<std::vector<v1::RunStatus>> runs =
      store_.ListRuns(r->sweep_id());
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 12u);
  for (const v1::RunStatus& run : *runs) {
    EXPECT_EQ(run.state(), v1::RUN_STATE_PENDING);
    EXPECT_EQ(run.spec().attempt(), 1);
    EXPECT_EQ(run.created_unix_ms(), absl::ToUnixMillis(clock_.Now()));
  }
  EXPECT_EQ(runs->front().spec().repetition(), 0);
  EXPECT_EQ(runs->back().spec().repetition(), 2);
}

TEST_F(SweepSubmitterTest, StoresTheSpecWithDefaultsFilled) {
  absl::StatusOr<v1::SubmitSweepResponse> r = submitter_.Submit(Spec(), Orin());
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<v1::SweepSpec> stored = store_.GetSweepSpec(r->sweep_id());
  ASSERT_TRUE(stored.ok());
  EXPECT_DOUBLE_EQ(stored->telemetry_hz(), 10);
  EXPECT_DOUBLE_EQ(stored->timeout_s(), 600);
  EXPECT_THAT(stored->runtimes(), ElementsAre(v1::RUNTIME_NATIVE));
  EXPECT_EQ(stored->power_modes_size(), 1);
}

TEST_F(SweepSubmitterTest, RejectedSweepStoresNothing) {
  v1::SweepSpec bad = Spec();
  bad.set_batch_sizes(1, 0);
  bad.add_models("resnet9");
  absl::StatusOr<v1::SubmitSweepResponse> r = submitter_.Submit(bad, Orin());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(),
              HasSubstr("models[1]: unknown model 'resnet9' (known: alexnet, "
                        "deepspeech2, dqn, gpt2_small, inception_v3, lenet5, "
                        "lstm_lm, memnet, mobilebert, mobilenetv3, resnet18, "
                        "resnet50, seq2seq, seq2seq_lstm, squeezenet1_1, vae, "
                        "vgg11, vgg19)"));
  EXPECT_THAT(r.status().message(),
              HasSubstr("batch_sizes[1]: must be positive, got 0"));
  EXPECT_EQ(store_.create_sweep_calls(), 0);
}

TEST_F(SweepSubmitterTest, WarningsReachTheResponse) {
  v1::SweepSpec spec = Spec();
  spec.add_device_classes("nano");
  absl::StatusOr<v1::SubmitSweepResponse> r = submitter_.Submit(spec, Orin());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->run_count(), 24);
  EXPECT_THAT(r->warnings(), ElementsAre("no device of class nano is "
                                         "registered; its runs wait until one "
                                         "connects"));
}

TEST_F(SweepSubmitterTest, StoreFailureIsReturned) {
  store_.set_fail_create(absl::UnavailableError("disk full"));
  absl::StatusOr<v1::SubmitSweepResponse> r = submitter_.Submit(Spec(), Orin());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message(), "disk full");
}

TEST_F(SweepSubmitterTest, ThousandsOfProblemsAreCutToTheFirstFifty) {
  v1::SweepSpec spec = Spec();
  for (int i = 0; i < 3000; ++i) spec.add_batch_sizes(-1 - i);
  absl::StatusOr<v1::SubmitSweepResponse> r = submitter_.Submit(spec, Orin());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(r.status().message());
  const std::vector<std::string> lines = absl::StrSplit(msg, '\n');
  ASSERT_EQ(lines.size(), kMaxProblemLines + 1);
  EXPECT_THAT(lines[0], HasSubstr("batch_sizes[2]: must be positive"));
  EXPECT_THAT(lines.back(), ::testing::MatchesRegex(
                                "\\.\\.\\. and [0-9]+ more problems"));
  EXPECT_LT(msg.size(), 16u * 1024);
  EXPECT_EQ(store_.create_sweep_calls(), 0);
}

TEST(LimitProblemLines, KeepsShortListsAndCutsLongLines) {
  EXPECT_TRUE(LimitProblemLines(absl::OkStatus()).ok());
  absl::Status few = absl::InvalidArgumentError("a: x\nb: y");
  EXPECT_EQ(LimitProblemLines(few), few);
  absl::Status three = absl::InvalidArgumentError("a\nb\nc");
  EXPECT_EQ(LimitProblemLines(three, 2).message(), "a\nb\n... and 1 more problem");
  absl::Status wide = absl::InvalidArgumentError(std::string(5000, 'x'));
  const std::string cut(LimitProblemLines(wide).message());
  EXPECT_EQ(cut.size(), kMaxProblemLineChars);
  EXPECT_THAT(cut, ::testing::EndsWith("..."));
}

// The list of known presets in a problem is never cut ("sigmetr...").
TEST(LimitProblemLines, KeepsAClassesWholeListOfPresets) {
  std::string line =
      "power_modes[0].preset: unknown preset 'MODE_30W' for xavier-agx "
      "(known: MAXN, MODE_10W, MODE_15W, MODE_30W_ALL, MODE_30W_6CORE, "
      "MODE_30W_4CORE, MODE_30W_2CORE, MODE_15W_DESKTOP";
  for (char c = 'a'; c <= 'n'; ++c) absl::StrAppend(&line, ", sigmetrics-", std::string(1, c));
  absl::StrAppend(&line, ")");
  ASSERT_GT(line.size(), 300u);
  const absl::Status st = absl::InvalidArgumentError(line);
  EXPECT_EQ(LimitProblemLines(st).message(), line);
}

TEST_F(SweepSubmitterTest, SweepOverTheRunLimitStoresNothing) {
  SweepSubmitter limited(&store_, &clock_, /*max_runs=*/11);
  absl::StatusOr<v1::SubmitSweepResponse> r = limited.Submit(Spec(), Orin());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(r.status().message(), HasSubstr("expands to 12 runs"));
  EXPECT_THAT(r.status().message(), HasSubstr("--max_sweep_runs of 11"));
  EXPECT_EQ(store_.create_sweep_calls(), 0);

  SweepSubmitter exact(&store_, &clock_, /*max_runs=*/12);
  EXPECT_TRUE(exact.Submit(Spec(), Orin()).ok());
}

}  // namespace
}  // namespace powersweep
