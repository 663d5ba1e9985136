// A real powersweep-agent process, given RunSpecs outside the agent's
// bounds by a fake controller (TestGateway), rejects the run with a failed
// RunFinished naming the field, and stays up (keeps heartbeating).
#include <signal.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/agent/session/test_gateway.h"
#include "tests/integration/subprocess.h"

namespace powersweep {
namespace {

using ::powersweep::testing::MakeTempDir;
using ::powersweep::testing::Subprocess;

v1::RunSpec Spec() {
  v1::RunSpec spec;
  spec.set_run_id(77);
  spec.set_attempt(1);
  auto* w = spec.mutable_workload();
  w->set_model("lenet5");
  w->set_dataset("fashion-mnist");
  w->set_task(v1::TASK_TRAIN);
  w->set_batch_size(32);
  w->set_minibatches(5);
  spec.set_telemetry_hz(10);
  spec.set_timeout_s(60);
  return spec;
}

struct Seen {
  std::vector<v1::RunFinished> finished;
  int heartbeats_after_finished = 0;
};

Seen Observe(TestGateway* gw) {
  Seen out;
  for (const Received& r : gw->Snapshot()) {
    if (r.msg.has_run_finished()) out.finished.push_back(r.msg.run_finished());
    if (r.msg.has_heartbeat() && !out.finished.empty()) {
      ++out.heartbeats_after_finished;
    }
  }
  return out;
}

// Runs an agent against a gateway that assigns `spec`; returns what the
// gateway saw once the agent sent RunFinished and 5 heartbeats after it
// (or 30 s passed). `alive` tells whether the agent was still running.
Seen RunAgent(const v1::RunSpec& spec, bool* alive, std::string* log) {
  TestGateway gw;
  gw.heartbeat_s = 0.1;
  gw.assign_on_first_register = spec;
  const std::string addr = gw.Start();
  const std::string dir = MakeTempDir("agent-bounds");
  Subprocess agent({POWERSWEEP_AGENT_BIN, "--controller=" + addr,
                    "--device_id=bounds-host", "--platform=host",
                    "--workload_bin=" FAKE_WORKLOAD, "--work_dir=" + dir,
                    "--dataset=fashion-mnist=" + dir},
                   dir + "/agent.log");
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  Seen seen;
  while (absl::Now() < deadline) {
    seen = Observe(&gw);
    if (seen.heartbeats_after_finished >= 5 || !agent.running()) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  *alive = agent.running();
  *log = agent.Log();
  agent.Kill(SIGTERM);
  gw.Stop();
  return seen;
}

TEST(AgentBoundsProcessTest, HugeTenantsIsRejectedAndTheAgentStaysUp) {
  v1::RunSpec spec = Spec();
  spec.set_tenants(2147483647);
  bool alive = false;
  std::string log;
  Seen seen = RunAgent(spec, &alive, &log);
  ASSERT_EQ(seen.finished.size(), 1u) << log;
  const v1::RunFinished& f = seen.finished[0];
  EXPECT_FALSE(f.result().ok());
  EXPECT_EQ(f.result().run_id(), 77);
  EXPECT_EQ(f.batches(), 0);
  EXPECT_NE(f.result().reason().find("tenants: 2147483647"), std::string::npos)
      << f.result().reason();
  EXPECT_TRUE(alive) << log;
  EXPECT_GE(seen.heartbeats_after_finished, 5) << log;
}

TEST(AgentBoundsProcessTest, HugeAndNonFiniteSecondsAreRejected) {
  for (double timeout : {1e308, std::nan("")}) {
    v1::RunSpec spec = Spec();
    spec.set_timeout_s(timeout);
    spec.set_telemetry_hz(1e308);
    bool alive = false;
    std::string log;
    Seen seen = RunAgent(spec, &alive, &log);
    ASSERT_EQ(seen.finished.size(), 1u) << log;
    const std::string& reason = seen.finished[0].result().reason();
    EXPECT_FALSE(seen.finished[0].result().ok());
    EXPECT_EQ(seen.finished[0].batches(), 0);
    EXPECT_NE(reason.find("timeout_s: "), std::string::npos) << reason;
    EXPECT_NE(reason.find("telemetry_hz: 1e+308"), std::string::npos)
        << reason;
    EXPECT_TRUE(alive) << log;
    EXPECT_GE(seen.heartbeats_after_finished, 5) << log;
  }
}

}  // namespace
}  // namespace powersweep
