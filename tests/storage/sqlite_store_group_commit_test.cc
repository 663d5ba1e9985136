// SqliteStore group commit: concurrent IngestBatch calls are committed
// together, yet each batch keeps its own outcome: every batch is stored
// once, a repeat is reported as a duplicate, and a bad batch fails alone.
#include <atomic>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

constexpr int kRuns = 8;
constexpr int kBatches = 40;

TEST(GroupCommitTest, ConcurrentBatchesAreEachStoredOnceWithTheirOwnOutcome) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  FakeClock clock;
  auto sweep = store->CreateSweep(MakeSpec("group"), MakeRuns(kRuns), clock.Now());
  ASSERT_TRUE(sweep.ok());
  auto runs = store->ListRuns(*sweep);
  ASSERT_TRUE(runs.ok());

  std::atomic<int> stored{0}, duplicates{0}, refused{0}, other_errors{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < kRuns; ++r) {
    const int64_t run_id = (*runs)[r].spec().run_id();
    threads.emplace_back([&, run_id] {
      for (int seq = 1; seq <= kBatches; ++seq) {
        auto outcome = store->IngestBatch(MakeBatch(run_id, seq, 3, 2));
        if (!outcome.ok()) {
          ++other_errors;
        } else if (*outcome == IngestOutcome::kStored) {
          ++stored;
        }
        if (seq % 10 == 0) {  // a resend of an earlier batch
          auto again = store->IngestBatch(MakeBatch(run_id, seq - 5, 3, 2));
          if (again.ok() && *again == IngestOutcome::kDuplicate) ++duplicates;
        }
        if (seq == 20) {  // a batch of an attempt the run is not on
          v1::DataBatch stale = MakeBatch(run_id, 99, 3, 2);
          stale.set_attempt(2);
          auto bad = store->IngestBatch(stale);
          if (bad.status().code() == absl::StatusCode::kFailedPrecondition) {
            ++refused;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(stored.load(), kRuns * kBatches);
  EXPECT_EQ(duplicates.load(), kRuns * (kBatches / 10));
  EXPECT_EQ(refused.load(), kRuns);
  EXPECT_EQ(other_errors.load(), 0);
  for (const auto& run : *runs) {
    EXPECT_EQ(*store->CountBatches(run.spec().run_id()), kBatches);
    EXPECT_EQ(store->GetMinibatches(run.spec().run_id())->size(),
              static_cast<size_t>(kBatches * 3));
    EXPECT_EQ(store->GetTelemetry(run.spec().run_id())->size(),
              static_cast<size_t>(kBatches * 2));
  }
}

}  // namespace
}  // namespace powersweep
