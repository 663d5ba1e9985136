// Test helpers for Fleet: a recording AgentConnection, a fixture with a
// real SqliteStore on a temporary file and a FakeClock, and builders for
// identities, capabilities and run specs. Thread-safe where noted.
#ifndef POWERSWEEP_TESTS_CONTROLLER_CORE_FLEET_TEST_UTIL_H_
#define POWERSWEEP_TESTS_CONTROLLER_CORE_FLEET_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/fake_clock.h"
#include "controller/core/agent_connection.h"
#include "controller/core/fleet.h"
#include "gtest/gtest.h"
#include "storage/store.h"

namespace powersweep {

// Records every message it accepts. Thread-safe.
class FakeAgentConnection : public AgentConnection {
 public:
  bool Send(const v1::ControllerMessage& msg) override;
  void Close() override;

  // Sends fail from now on (as on a broken stream), without closing.
  void FailSends();
  // What WriteWaiting() reports (a peer that stopped reading).
  void SetWriteWaiting(absl::Duration d);
  absl::Duration WriteWaiting() const override;
  bool closed() const;
  int send_attempts() const;
  std::vector<v1::ControllerMessage> sent() const;
  std::vector<v1::RunSpec> Assigned() const;
  std::vector<int64_t> AssignedRunIds() const;
  std::vector<std::pair<int64_t, int64_t>> Acks() const;  // (run_id, seq)
  std::vector<int64_t> CancelledRunIds() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<v1::ControllerMessage> sent_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool fail_ ABSL_GUARDED_BY(mu_) = false;
  int attempts_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Duration write_waiting_ ABSL_GUARDED_BY(mu_);
};

v1::DeviceCapabilities HostCaps(int cpu_cores);
// A host run of lenet5 on fashion-mnist, natively, on `cpu_cores` cores.
v1::RunSpec HostRun(int cpu_cores = 1);

class FleetTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Opens a session for `device_id` and registers it (must succeed).
  std::shared_ptr<FakeAgentConnection> Connect(
      const std::string& device_id,
      const v1::DeviceCapabilities& caps = HostCaps(4),
      const std::string& device_class = "host", int64_t active_run_id = 0);
  // Stores a sweep of `runs`; returns their run ids in order.
  std::vector<int64_t> AddSweep(const std::vector<v1::RunSpec>& runs,
                                int max_retries = 0);

  v1::RunStatus Run(int64_t run_id);
  v1::RunState State(int64_t run_id) { return Run(run_id).state(); }
  std::vector<RunStateChange> History(int64_t run_id);
  // Reasons of the history rows that moved the run to `to` (the row that
  // created the run is not a move).
  std::vector<std::string> ReasonsFor(int64_t run_id, v1::RunState to);

  // Registers `reg` on a new session, presenting the token of the
  // device's last session unless `reg` has one; returns the status and the
  // session (null on failure).
  std::shared_ptr<FakeAgentConnection> ConnectWith(v1::Register reg,
                                                   absl::Status* status,
                                                   bool identity_verified = false);
  // A register message like Connect's.
  static v1::Register RegisterOf(const std::string& device_id,
                                 const v1::DeviceCapabilities& caps = HostCaps(4),
                                 const std::string& device_class = "host");
  // Replaces the Fleet by a new one on the same store (a controller
  // restart): every session is gone without a disconnect.
  void RestartController(FleetOptions options = FleetOptions());
  // The device's latest session (from Connect); null when it has none.
  std::shared_ptr<FakeAgentConnection> Session(const std::string& device_id);
  // Delivers `msg` on the device's latest session (from Connect).
  void Deliver(const std::string& device_id, const v1::AgentMessage& msg);
  // Messages from an agent.
  void SendStarted(const std::string& device_id, int64_t run_id);
  void SendBatch(const std::string& device_id, int64_t run_id, int64_t seq,
                 int minibatches = 2);
  void SendFinished(const std::string& device_id, int64_t run_id,
                    int64_t batches, bool ok = true,
                    const std::string& reason = "");
  void SendFinishedResult(const std::string& device_id,
                          const v1::RunResult& result, int64_t batches);
  void SendHeartbeat(const std::string& device_id);

  FakeClock clock_;
  std::string dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Fleet> fleet_;
  // The latest session of each device (Connect, from any thread).
  absl::Mutex conns_mu_;
  std::map<std::string, std::shared_ptr<FakeAgentConnection>> conns_
      ABSL_GUARDED_BY(conns_mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_CONTROLLER_CORE_FLEET_TEST_UTIL_H_
