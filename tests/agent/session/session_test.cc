#include "agent/session/session.h"

#include <stdlib.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "agent/platform/fake_platform.h"
#include "agent/runtime/native/native_runtime.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/session/slow_proxy.h"
#include "tests/agent/session/test_gateway.h"
#include "tests/common/test_dir.h"

namespace powersweep {
namespace {

constexpr int64_t kRun = 31;

v1::RunSpec Spec(int64_t minibatches) {
  v1::RunSpec spec;
  spec.set_run_id(kRun);
  spec.set_attempt(1);
  auto* w = spec.mutable_workload();
  w->set_model("lenet5");
  w->set_dataset("fashion-mnist");
  w->set_task(v1::TASK_INFER);
  w->set_batch_size(16);
  w->set_minibatches(minibatches);
  spec.set_telemetry_hz(20);
  spec.set_timeout_s(60);
  return spec;
}

bool HasRunFinished(TestGateway* gw) {
  gw->mu.AssertReaderHeld();
  for (const Received& r : gw->received) {
    if (r.msg.has_run_finished()) return true;
  }
  return false;
}

class SessionTest : public testing::Test {
 protected:
  SessionTest() {
    catalog_.datasets = {{"fashion-mnist", "/data/fm"}};
    RunExecutorConfig cfg;
    cfg.workload_bin = FAKE_WORKLOAD;
    cfg.work_dir = MakeTestDir("session_test");
    cfg.batch_interval_s = 0.1;
    cfg.cancel_grace_s = 0.5;
    executor_ = std::make_unique<RunExecutor>(
        cfg, &catalog_, &platform_, &clock_,
        [this] { return std::make_unique<NativeRuntime>(&clock_); });
  }
  ~SessionTest() override {
    if (session_) session_->Shutdown();
    if (runner_.joinable()) runner_.join();
    session_.reset();
    gateway_.Stop();
    unsetenv("FAKE_WORKLOAD_FLAGS");
  }
  void StartSession(HealthChecker* health = nullptr,
                    const LatestReading* latest = nullptr,
                    BoardReboot* reboot = nullptr,
                    Platform* platform = nullptr) {
    SessionConfig cfg;
    cfg.health = health;
    cfg.latest = latest;
    cfg.reboot = reboot;
    cfg.controller = gateway_.Start();
    if (slow_handshake_.count() > 0) {
      const int port =
          std::stoi(cfg.controller.substr(cfg.controller.rfind(':') + 1));
      proxy_ = std::make_unique<SlowProxy>(port, slow_handshake_);
      cfg.controller = proxy_->address();
    }
    cfg.initial_backoff_s = 0.05;
    cfg.max_backoff_s = 0.2;
    cfg.flush_timeout_s = 5;
    session_ = std::make_unique<Session>(
        cfg, platform != nullptr ? platform : &platform_, executor_.get(),
        &clock_);
    runner_ = std::thread([this] { session_->Run(); });
  }
  // Waits (bounded) until the gateway received the RunFinished.
  bool AwaitRunFinished() {
    absl::MutexLock lock(&gateway_.mu);
    return gateway_.mu.AwaitWithTimeout(
        absl::Condition(&HasRunFinished, &gateway_), absl::Seconds(30));
  }

  RealClock clock_;
  Catalog catalog_;
  FakePlatform platform_{{0}};
  std::unique_ptr<RunExecutor> executor_;
  // Outlives the session (the destructor ends the session first).
  std::unique_ptr<HealthChecker> health_;
  TestGateway gateway_;
  // > 0: the session reaches the gateway through a SlowProxy that holds
  // each connection this long.
  std::chrono::milliseconds slow_handshake_{0};
  std::unique_ptr<SlowProxy> proxy_;
  std::unique_ptr<Session> session_;
  std::thread runner_;
};

TEST_F(SessionTest, RegistersRunsTheAssignmentAndReportsEveryBatch) {
  setenv("FAKE_WORKLOAD_FLAGS", "--interval-ms 20", 1);
  gateway_.assign_on_first_register = Spec(25);
  StartSession();
  ASSERT_TRUE(AwaitRunFinished());
  std::vector<Received> got = gateway_.Snapshot();
  ASSERT_TRUE(got[0].msg.has_register_());
  EXPECT_EQ(got[0].msg.register_().identity().device_id(), "fake-0");
  EXPECT_EQ(got[0].msg.register_().active_run_id(), 0);
  // The platform's hardware and the executor's catalog.
  const v1::DeviceCapabilities& caps = got[0].msg.register_().capabilities();
  EXPECT_EQ(caps.cpu_cores(), 1);
  ASSERT_EQ(caps.datasets_size(), 1);
  EXPECT_EQ(caps.datasets(0), "fashion-mnist");
  EXPECT_EQ(caps.models_size(), static_cast<int>(catalog_.models.size()));
  ASSERT_EQ(caps.runtimes_size(), 1);
  EXPECT_EQ(caps.runtimes(0), v1::RUNTIME_NATIVE);
  int started = 0;
  std::vector<int64_t> seqs;
  int64_t minibatches = 0, samples = 0;
  v1::RunFinished finished;
  for (const Received& r : got) {
    if (r.msg.has_run_started()) {
      ++started;
      EXPECT_TRUE(seqs.empty()) << "RunStarted after a batch";
    }
    if (r.msg.has_batch()) {
      EXPECT_EQ(r.msg.batch().run_id(), kRun);
      seqs.push_back(r.msg.batch().seq());
      minibatches += r.msg.batch().minibatches_size();
      samples += r.msg.batch().telemetry_size();
    }
    if (r.msg.has_run_finished()) finished = r.msg.run_finished();
  }
  EXPECT_EQ(started, 1);
  EXPECT_TRUE(finished.result().ok()) << finished.result().reason();
  ASSERT_GT(finished.batches(), 1);
  ASSERT_EQ(static_cast<int64_t>(seqs.size()), finished.batches());
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], int64_t(i) + 1);
  EXPECT_EQ(minibatches, 25);
  EXPECT_GT(samples, 0);
}

TEST_F(SessionTest, ReconnectsAfterADropAndReplaysUnacknowledgedBatches) {
  setenv("FAKE_WORKLOAD_FLAGS", "--interval-ms 50", 1);
  gateway_.assign_on_first_register = Spec(60);  // about 3 s of work
  gateway_.drop_after_batches = 3;
  gateway_.ack_first_connection_up_to = 1;  // batches 2 and 3 stay unacked
  StartSession();
  ASSERT_TRUE(AwaitRunFinished());

  std::vector<Received> got = gateway_.Snapshot();
  std::vector<const v1::AgentMessage*> registers;
  std::map<int64_t, std::vector<std::pair<int, std::string>>> by_seq;
  std::vector<int64_t> seqs_on_second;
  v1::RunFinished finished;
  int heartbeats = 0;
  for (const Received& r : got) {
    if (r.msg.has_register_()) registers.push_back(&r.msg);
    if (r.msg.has_heartbeat()) ++heartbeats;
    if (r.msg.has_batch()) {
      by_seq[r.msg.batch().seq()].push_back(
          {r.connection, r.msg.batch().SerializeAsString()});
      if (r.connection == 2) seqs_on_second.push_back(r.msg.batch().seq());
    }
    if (r.msg.has_run_finished()) finished = r.msg.run_finished();
  }
  ASSERT_EQ(registers.size(), 2u);
  // The run was still executing when the agent came back.
  EXPECT_EQ(registers[1]->register_().active_run_id(), kRun);
  EXPECT_GT(heartbeats, 0);
  EXPECT_TRUE(finished.result().ok()) << finished.result().reason();
  EXPECT_EQ(finished.result().run_id(), kRun);
  // Every batch arrived at least once.
  ASSERT_GT(finished.batches(), 3);
  for (int64_t s = 1; s <= finished.batches(); ++s) {
    EXPECT_TRUE(by_seq.count(s)) << "batch " << s << " never arrived";
  }
  EXPECT_EQ(static_cast<int64_t>(by_seq.size()), finished.batches());
  // Batch 1 was acked: sent once. 2 and 3 were not: sent again, identical.
  EXPECT_EQ(by_seq[1].size(), 1u);
  for (int64_t s : {2, 3}) {
    ASSERT_EQ(by_seq[s].size(), 2u) << "batch " << s;
    EXPECT_EQ(by_seq[s][0].first, 1);
    EXPECT_EQ(by_seq[s][1].first, 2);
    EXPECT_EQ(by_seq[s][0].second, by_seq[s][1].second);
  }
  // The replay comes first and in order, then new batches follow.
  ASSERT_GE(seqs_on_second.size(), 2u);
  EXPECT_EQ(seqs_on_second[0], 2);
  for (size_t i = 1; i < seqs_on_second.size(); ++i) {
    EXPECT_EQ(seqs_on_second[i], seqs_on_second[i - 1] + 1);
  }
  EXPECT_GE(session_->registrations(), 2);
}

TEST_F(SessionTest, ShutdownCancelsTheRunAndFlushesItsResult) {
  setenv("FAKE_WORKLOAD_FLAGS", "--sleep-s 30", 1);
  gateway_.assign_on_first_register = Spec(2);
  StartSession();
  {
    absl::MutexLock lock(&gateway_.mu);
    auto started = [](TestGateway* gw) {
      gw->mu.AssertReaderHeld();
      for (const Received& r : gw->received) {
        if (r.msg.has_run_started()) return true;
      }
      return false;
    };
    ASSERT_TRUE(gateway_.mu.AwaitWithTimeout(
        absl::Condition(+started, &gateway_), absl::Seconds(30)));
  }
  session_->Shutdown();
  runner_.join();
  EXPECT_EQ(session_->spooled(), 0u);  // the result was acknowledged
  std::vector<Received> got = gateway_.Snapshot();
  ASSERT_TRUE(got.back().msg.has_run_finished());
  EXPECT_EQ(got.back().msg.run_finished().result().reason(),
            "cancelled: agent shutting down");
}

// The fake platform reads no sensor at all, so its health check fails: the
// agent says so when it registers and in its heartbeats, and rejects the
// assignment with the reason and the check instead of running it.
TEST_F(SessionTest, AnUnhealthyAgentReportsItAndRejectsTheAssignment) {
  health_ = std::make_unique<HealthChecker>(&platform_, &clock_,
                                            HealthCheckOptions());
  gateway_.assign_on_first_register = Spec(5);
  StartSession(health_.get());
  auto seen = [this](auto pred) {
    for (int i = 0; i < 300; ++i) {
      for (const Received& r : gateway_.Snapshot()) {
        if (pred(r.msg)) return r.msg;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return v1::AgentMessage();
  };
  const v1::AgentMessage reg =
      seen([](const v1::AgentMessage& m) { return m.has_register_(); });
  ASSERT_TRUE(reg.register_().has_health());
  EXPECT_FALSE(reg.register_().health().healthy());
  EXPECT_THAT(reg.register_().health().reason(),
              ::testing::HasSubstr("no sensor answered"));

  const v1::AgentMessage reply =
      seen([](const v1::AgentMessage& m) { return m.has_assign_reply(); });
  ASSERT_TRUE(reply.has_assign_reply());
  EXPECT_FALSE(reply.assign_reply().accepted());
  EXPECT_EQ(reply.assign_reply().run_id(), kRun);
  EXPECT_THAT(reply.assign_reply().reason(),
              ::testing::StartsWith("unhealthy: no sensor answered"));
  EXPECT_FALSE(reply.assign_reply().health().healthy());

  const v1::AgentMessage hb = seen([](const v1::AgentMessage& m) {
    return m.has_heartbeat() && m.heartbeat().has_health();
  });
  ASSERT_TRUE(hb.has_heartbeat());
  EXPECT_FALSE(hb.heartbeat().health().healthy());
  for (const Received& r : gateway_.Snapshot()) {
    EXPECT_FALSE(r.msg.has_run_started()) << "an unhealthy agent ran the run";
  }
}

// A board whose "90W" needs a reboot (its GPU power gating differs).
class GatedPlatform : public FakePlatform {
 public:
  GatedPlatform() : FakePlatform({0}) {}
  std::optional<RebootTarget> RebootFor(const v1::PowerMode& mode) override {
    if (mode.preset() != "90W") return std::nullopt;
    return RebootTarget{"90W", 2, "mask 15873, the board runs 64"};
  }
};

class FakeReboot : public BoardReboot {
 public:
  std::string Blocked(const RebootTarget&) override { return blocked; }
  absl::Status Start(const RebootTarget& target) override {
    absl::MutexLock lock(&mu);
    started.push_back(target.preset);
    return absl::OkStatus();
  }
  std::string blocked;
  absl::Mutex mu;
  std::vector<std::string> started ABSL_GUARDED_BY(mu);
};

// --allow_reboot: the run is declined (the controller puts it back in the
// queue) and, once the reply is out, the board reboots into the mode.
TEST_F(SessionTest, ARunThatNeedsARebootIsDeclinedAndTheBoardRebooted) {
  GatedPlatform gated;
  FakeReboot reboot;
  v1::RunSpec spec = Spec(5);
  spec.mutable_power_mode()->set_preset("90W");
  gateway_.assign_on_first_register = spec;
  StartSession(nullptr, nullptr, &reboot, &gated);
  v1::AgentMessage reply;
  for (int i = 0; i < 300 && !reply.has_assign_reply(); ++i) {
    for (const Received& r : gateway_.Snapshot()) {
      if (r.msg.has_assign_reply()) reply = r.msg;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(reply.has_assign_reply());
  EXPECT_FALSE(reply.assign_reply().accepted());
  EXPECT_THAT(reply.assign_reply().reason(),
              ::testing::StartsWith("rebooting the board into 90W (nvpmodel "
                                    "-m 2)"));
  bool rebooted = false;
  for (int i = 0; i < 300 && !rebooted; ++i) {
    {
      absl::MutexLock lock(&reboot.mu);
      rebooted = reboot.started == std::vector<std::string>{"90W"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(rebooted);
  for (const Received& r : gateway_.Snapshot()) {
    EXPECT_FALSE(r.msg.has_run_started()) << "ran a mode that needs a reboot";
  }
}

// A mode the agent already rebooted for once is not rebooted for again:
// the run is accepted (and fails at Apply on a real board).
TEST_F(SessionTest, AModeAlreadyRebootedForIsNotRebootedForAgain) {
  GatedPlatform gated;
  FakeReboot reboot;
  reboot.blocked = "the agent already rebooted for 90W";
  v1::RunSpec spec = Spec(5);
  spec.mutable_power_mode()->set_preset("90W");
  gateway_.assign_on_first_register = spec;
  StartSession(nullptr, nullptr, &reboot, &gated);
  ASSERT_TRUE(AwaitRunFinished());
  absl::MutexLock lock(&reboot.mu);
  EXPECT_TRUE(reboot.started.empty());
}

// `powersweep top` shows the sample the heartbeats carry: the device's
// newest, sent once (a heartbeat without a newer sample carries none, so
// the controller's "age" of the sample keeps growing).
TEST_F(SessionTest, HeartbeatsCarryTheNewestSampleOnce) {
  LatestReading latest(&clock_);
  v1::TelemetrySample first;
  first.set_power_mw(7100);
  latest.Observe(first, /*count=*/false);
  StartSession(/*health=*/nullptr, &latest);
  auto heartbeats_with = [this](double power_mw) {
    int n = 0;
    for (const Received& r : gateway_.Snapshot()) {
      n += r.msg.has_heartbeat() && r.msg.heartbeat().has_latest() &&
           r.msg.heartbeat().latest().power_mw() == power_mw;
    }
    return n;
  };
  auto heartbeats = [this] {
    int n = 0;
    for (const Received& r : gateway_.Snapshot()) n += r.msg.has_heartbeat();
    return n;
  };
  for (int i = 0; i < 300 && heartbeats_with(7100) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(heartbeats_with(7100), 1);
  // Several more heartbeats (every 0.1 s): none repeats the sample.
  const int seen = heartbeats();
  for (int i = 0; i < 300 && heartbeats() < seen + 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(heartbeats(), seen + 3);
  EXPECT_EQ(heartbeats_with(7100), 1);

  v1::TelemetrySample second;
  second.set_power_mw(9300);
  latest.Observe(second, /*count=*/true);
  for (int i = 0; i < 300 && heartbeats_with(9300) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(heartbeats_with(9300), 1);
}

// A controller that answers a new connection's handshake only after 1.5 s
// (busy after a restart, the whole fleet reconnecting at once) still gets
// the agent. gRPC gives a connection attempt GRPC_ARG_MIN_RECONNECT_BACKOFF_MS
// at the least; when that followed the agent's initial backoff (here
// 0.05 s) every attempt was cut short and the agent never registered.
TEST_F(SessionTest, RegistersWithAControllerSlowToAnswerTheHandshake) {
  slow_handshake_ = std::chrono::milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  StartSession();
  bool registered = false;
  for (int i = 0; i < 500 && !registered; ++i) {
    for (const Received& r : gateway_.Snapshot()) {
      registered |= r.msg.has_register_();
    }
    if (!registered) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double waited_s = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count();
  EXPECT_TRUE(registered) << "not registered after " << waited_s << " s ("
                          << proxy_->connections() << " connections tried)";
  EXPECT_GE(waited_s, 1.4);
}

}  // namespace
}  // namespace powersweep
