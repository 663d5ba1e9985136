// Fleet dispatch: which agent gets which pending run.
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;

using FleetDispatchTest = FleetTest;

TEST_F(FleetDispatchTest, EachIdleAgentGetsOneRunAndNoRunGoesTwice) {
  auto runs = AddSweep({HostRun(), HostRun(), HostRun()});
  auto a = Connect("host-a");
  auto b = Connect("host-b");
  fleet_->Dispatch();
  fleet_->Dispatch();

  EXPECT_THAT(a->AssignedRunIds(), ElementsAre(runs[0]));
  EXPECT_THAT(b->AssignedRunIds(), ElementsAre(runs[1]));
  EXPECT_EQ(Run(runs[0]).state(), v1::RUN_STATE_LEASED);
  EXPECT_EQ(Run(runs[0]).device_id(), "host-a");
  EXPECT_EQ(Run(runs[1]).device_id(), "host-b");
  EXPECT_EQ(State(runs[2]), v1::RUN_STATE_PENDING);
  // The assignment carries the full spec.
  v1::RunSpec assigned = a->Assigned()[0];
  EXPECT_EQ(assigned.workload().model(), "lenet5");
  EXPECT_EQ(assigned.attempt(), 1);
}

TEST_F(FleetDispatchTest, RunsTheAgentCannotServeAreNotGivenToIt) {
  v1::RunSpec other_class = HostRun();
  other_class.set_device_class("xavier-nx");
  v1::RunSpec container = HostRun();
  container.set_runtime(v1::RUNTIME_CONTAINER);
  v1::RunSpec too_many_cores = HostRun(/*cpu_cores=*/8);
  v1::RunSpec other_model = HostRun();
  other_model.mutable_workload()->set_model("resnet18");
  v1::RunSpec other_dataset = HostRun();
  other_dataset.mutable_workload()->set_dataset("cifar10");
  v1::RunSpec fits = HostRun(/*cpu_cores=*/4);
  auto runs = AddSweep({other_class, container, too_many_cores, other_model,
                        other_dataset, fits});

  auto agent = Connect("host-0", HostCaps(4));

  EXPECT_THAT(agent->AssignedRunIds(), ElementsAre(runs[5]));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(State(runs[i]), v1::RUN_STATE_PENDING) << "run " << i;
  }
}

// Runs placed on devices go only to them, and a device whose placed runs
// are queued behind another device's still gets its own in the same
// dispatch.
TEST_F(FleetDispatchTest, RunsPlacedOnDevicesGoOnlyToThoseDevices) {
  auto on = [](std::vector<std::string> devices) {
    v1::RunSpec r = HostRun();
    for (const std::string& d : devices) r.add_devices(d);
    return r;
  };
  auto runs = AddSweep({on({"host-a"}), on({"host-a"}), on({"host-a"}),
                        on({"host-c"}), on({"host-b", "host-c"}), HostRun()});
  auto a = Connect("host-a");
  EXPECT_THAT(a->AssignedRunIds(), ElementsAre(runs[0]));
  auto b = Connect("host-b");
  auto c = Connect("host-c");
  EXPECT_THAT(b->AssignedRunIds(), ElementsAre(runs[4]));
  EXPECT_THAT(c->AssignedRunIds(), ElementsAre(runs[3]));
  // host-a finishes: its next placed run, not the free one behind it.
  SendStarted("host-a", runs[0]);
  SendFinished("host-a", runs[0], 0);
  EXPECT_THAT(a->AssignedRunIds(), ElementsAre(runs[0], runs[1]));
  // host-b finishes: nothing of host-a's, so the unplaced run.
  SendStarted("host-b", runs[4]);
  SendFinished("host-b", runs[4], 0);
  EXPECT_THAT(b->AssignedRunIds(), ElementsAre(runs[4], runs[5]));
  EXPECT_EQ(State(runs[2]), v1::RUN_STATE_PENDING);
}

// A group of idle agents that serve the same asks the store once; when
// the oldest runs are all placed on one of them, the others still get
// theirs in that dispatch.
TEST_F(FleetDispatchTest, PlacedRunsQueuedBehindAnotherDeviceDoNotStallIdleOnes) {
  auto on = [](const std::string& d) {
    v1::RunSpec r = HostRun();
    r.add_devices(d);
    return r;
  };
  // Sessions registered while nothing is pending, then one dispatch.
  auto a = Connect("host-a");
  auto b = Connect("host-b");
  auto runs = AddSweep({on("host-a"), on("host-a"), on("host-a"), on("host-b")});
  fleet_->Dispatch();
  EXPECT_THAT(a->AssignedRunIds(), ElementsAre(runs[0]));
  EXPECT_THAT(b->AssignedRunIds(), ElementsAre(runs[3]));
}

TEST_F(FleetDispatchTest, AnAgentOfTheRightClassServesTheOtherClass) {
  v1::RunSpec nx = HostRun();
  nx.set_device_class("xavier-nx");
  auto runs = AddSweep({nx, HostRun()});
  auto host = Connect("host-0");
  auto jetson = Connect("nx-0", HostCaps(6), "xavier-nx");
  EXPECT_THAT(host->AssignedRunIds(), ElementsAre(runs[1]));
  EXPECT_THAT(jetson->AssignedRunIds(), ElementsAre(runs[0]));
}

TEST_F(FleetDispatchTest, AnAssignmentThatCannotBeSentGoesBackToPending) {
  auto a = Connect("host-a");
  a->FailSends();
  auto runs = AddSweep({HostRun()});
  fleet_->Dispatch();

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_PENDING),
              ElementsAre("could not send the assignment to agent host-a"));
  const int attempts = a->send_attempts();
  fleet_->Dispatch();
  EXPECT_EQ(a->send_attempts(), attempts) << "the broken session is retried";

  auto b = Connect("host-b");
  EXPECT_THAT(b->AssignedRunIds(), ElementsAre(runs[0]));
  EXPECT_EQ(Run(runs[0]).spec().attempt(), 1);
}

TEST_F(FleetDispatchTest, ConcurrentDispatchNeverLeasesARunTwice) {
  // Agents register and sweeps arrive while several threads dispatch, so
  // dispatchers race for the same idle agents and the same pending runs.
  constexpr int kRegistrars = 3;
  constexpr int kAgentsPerRegistrar = 4;
  constexpr int kDispatchers = 3;
  constexpr int kSweeps = 10;
  constexpr int kRunsPerSweep = 2;

  std::vector<std::shared_ptr<FakeAgentConnection>> conns(kRegistrars *
                                                          kAgentsPerRegistrar);
  std::vector<std::vector<int64_t>> sweeps(kSweeps);
  std::atomic<bool> go{false};
  std::atomic<bool> sweeps_done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kRegistrars; ++t) {
    threads.emplace_back([&, t] {
      while (!go) std::this_thread::yield();
      for (int i = 0; i < kAgentsPerRegistrar; ++i) {
        const int n = t * kAgentsPerRegistrar + i;
        conns[n] = Connect(absl::StrCat("host-", n));
      }
    });
  }
  threads.emplace_back([&] {
    while (!go) std::this_thread::yield();
    for (int s = 0; s < kSweeps; ++s) {
      sweeps[s] = AddSweep(std::vector<v1::RunSpec>(kRunsPerSweep, HostRun()));
    }
    sweeps_done = true;
  });
  for (int t = 0; t < kDispatchers; ++t) {
    threads.emplace_back([&] {
      while (!go) std::this_thread::yield();
      while (!sweeps_done) fleet_->Dispatch();
    });
  }
  go = true;
  for (std::thread& t : threads) t.join();
  fleet_->Dispatch();  // runs created after the last dispatch

  std::set<int64_t> assigned;
  for (const auto& conn : conns) {
    ASSERT_NE(conn, nullptr);
    std::vector<int64_t> ids = conn->AssignedRunIds();
    ASSERT_EQ(ids.size(), 1u) << "every agent holds exactly one run";
    EXPECT_TRUE(assigned.insert(ids[0]).second) << "run " << ids[0] << " twice";
  }
  int leased = 0;
  for (const std::vector<int64_t>& runs : sweeps) {
    for (int64_t run_id : runs) {
      EXPECT_LE(ReasonsFor(run_id, v1::RUN_STATE_LEASED).size(), 1u);
      if (State(run_id) == v1::RUN_STATE_LEASED) ++leased;
    }
  }
  EXPECT_EQ(leased, kRegistrars * kAgentsPerRegistrar);
}

}  // namespace
}  // namespace powersweep
