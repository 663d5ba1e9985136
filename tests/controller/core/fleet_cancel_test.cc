// A user cancels a sweep's runs: pending ones end cancelled at once, the
// running one's agent is told to stop, and the agent's later report does
// not turn it into done, failed or a retry.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;

class FleetCancelTest : public FleetTest {};

TEST_F(FleetCancelTest, PendingAndRunningRunsEndCancelledAndTheAgentIsTold) {
  auto runs = AddSweep({HostRun(), HostRun(), HostRun()}, /*max_retries=*/3);
  auto conn = Connect("host-0");
  ASSERT_THAT(conn->AssignedRunIds(), ElementsAre(runs[0]));
  SendStarted("host-0", runs[0]);

  auto n = fleet_->CancelRuns(Run(runs[0]).spec().sweep_id(), 0, "enough");
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 3);
  for (int64_t id : runs) EXPECT_EQ(State(id), v1::RUN_STATE_CANCELLED);
  EXPECT_THAT(conn->CancelledRunIds(), ElementsAre(runs[0]));
  EXPECT_EQ(Run(runs[1]).reason(), "enough");

  // The agent stops the workload and reports a failed (cancelled) run: it
  // stays cancelled, is not retried, and nothing else is assigned.
  SendFinished("host-0", runs[0], 0, /*ok=*/false, "cancelled: enough");
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_CANCELLED);
  EXPECT_THAT(conn->AssignedRunIds(), ElementsAre(runs[0]));
  // Cancelling again changes nothing.
  auto again = fleet_->CancelRuns(Run(runs[0]).spec().sweep_id(), 0, "again");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

TEST_F(FleetCancelTest, OneRunOnlyAndUnknownRunsAreNotFound) {
  auto runs = AddSweep({HostRun(), HostRun()});
  const int64_t sweep = Run(runs[0]).spec().sweep_id();
  auto n = fleet_->CancelRuns(sweep, runs[1], "not needed");
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);
  EXPECT_EQ(State(runs[1]), v1::RUN_STATE_CANCELLED);
  EXPECT_EQ(fleet_->CancelRuns(sweep, 999, "x").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(fleet_->CancelRuns(sweep + 100, 0, "x").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace powersweep
