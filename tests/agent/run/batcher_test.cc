#include "agent/run/batcher.h"

#include <vector>

#include "common/fake_clock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

v1::MinibatchRecord Rec(int64_t i) {
  v1::MinibatchRecord r;
  r.set_index(i);
  return r;
}

TEST(Batcher, CutsEveryMaxRecordsAndNumbersFromOne) {
  FakeClock clock;
  std::vector<v1::DataBatch> out;
  Batcher b(42, 3, &clock, 100.0, 2, [&](const v1::DataBatch& d) {
    out.push_back(d);
  });
  for (int i = 0; i < 5; ++i) b.AddRecord(Rec(i));
  b.Flush();
  b.Flush();  // nothing left: no empty batch
  ASSERT_EQ(out.size(), 3u);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].run_id(), 42);
    EXPECT_EQ(out[i].attempt(), 3);
    EXPECT_EQ(out[i].seq(), static_cast<int64_t>(i + 1));
  }
  EXPECT_EQ(out[2].minibatches_size(), 1);
  EXPECT_EQ(out[2].minibatches(0).index(), 4);
  EXPECT_EQ(b.batches(), 3);
}

TEST(Batcher, CutsWhenTheBatchIntervalHasPassed) {
  FakeClock clock;
  std::vector<v1::DataBatch> out;
  Batcher b(1, 1, &clock, 1.0, 200, [&](const v1::DataBatch& d) {
    out.push_back(d);
  });
  b.AddRecord(Rec(0));
  clock.Advance(absl::Milliseconds(500));
  b.AddSample(v1::TelemetrySample());
  EXPECT_TRUE(out.empty());
  clock.Advance(absl::Milliseconds(500));
  b.AddRecord(Rec(1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].minibatches_size(), 2);
  EXPECT_EQ(out[0].telemetry_size(), 1);
}

}  // namespace
}  // namespace powersweep
