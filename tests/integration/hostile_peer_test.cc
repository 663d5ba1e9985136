// Hostile peers against a real controller on loopback (plaintext, the
// default local setup): a peer that stops reading its stream must not
// freeze dispatch or submit for everyone else, and a peer that registers
// with a live agent's device id must be refused while the real agent's
// runs go on.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "grpcpp/grpcpp.h"
#include "powersweep/v1/agent_gateway.grpc.pb.h"
#include "powersweep/v1/sweep.pb.h"
#include "powersweep/v1/workload.pb.h"
#include "tests/integration/local_fleet.h"

namespace powersweep::testing {
namespace {

using Stream = grpc::ClientReaderWriter<v1::AgentMessage, v1::ControllerMessage>;

std::vector<std::string> TwinArgs() {
  return {"--platform=twin", "--device_class=orin-agx", "--instance=0",
          "--twin_time_scale=0.2", "--log_level=warning"};
}

v1::SweepSpec TenRuns() {
  return OrinTwinSweep("it-hostile", v1::TASK_INFER, 10, 20);
}

v1::AgentMessage RegisterAs(const std::string& device_id, bool serves_lenet) {
  v1::AgentMessage m;
  v1::Register* r = m.mutable_register_();
  r->mutable_identity()->set_device_id(device_id);
  r->mutable_identity()->set_device_class("orin-agx");
  r->mutable_identity()->set_platform("twin");
  r->mutable_capabilities()->set_cpu_cores(4);
  r->mutable_capabilities()->add_runtimes(v1::RUNTIME_NATIVE);
  if (serves_lenet) {
    r->mutable_capabilities()->add_models("lenet5");
    r->mutable_capabilities()->add_datasets("fashion-mnist");
  }
  return m;
}

bool Connected(LocalFleet& fleet, const std::string& id) {
  for (const auto& d : fleet.ListDevices()) {
    if (d.identity().device_id() == id) return d.connected();
  }
  return false;
}

// Starts the well-behaved twin agent "orin-ok" and waits until it is
// connected.
void StartTwin(LocalFleet& fleet) {
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("orin-ok", TwinArgs());
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return Connected(fleet, "orin-ok"); },
                                  30))
      << fleet.Logs();
}

TEST(HostilePeerTest, APeerThatStopsReadingFreezesNobodyElse) {
  LocalFleet fleet;
  ASSERT_NO_FATAL_FAILURE(StartTwin(fleet));

  // The slow peer registers (serving nothing) and then floods the
  // controller with batches of a run it does not hold: each is answered
  // with an Ack it never reads.
  auto channel =
      grpc::CreateChannel(fleet.address(), grpc::InsecureChannelCredentials());
  auto gateway = v1::AgentGateway::NewStub(channel);
  grpc::ClientContext ctx;
  std::unique_ptr<Stream> stream = gateway->Session(&ctx);
  ASSERT_TRUE(stream->Write(RegisterAs("slow-0", false)));
  std::thread flood([&] {
    v1::AgentMessage batch;
    batch.mutable_batch()->set_run_id(987654321);
    for (int seq = 1; seq <= 40000; ++seq) {
      batch.mutable_batch()->set_seq(seq);
      if (!stream->Write(batch)) break;
    }
  });

  // Meanwhile the fleet keeps working: submit answers at once and the
  // real agent's sweep completes.
  const auto t0 = std::chrono::steady_clock::now();
  std::string error;
  const int64_t sweep = fleet.Submit(TenRuns(), &error);
  const double submit_s = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - t0)
                              .count();
  ASSERT_GT(sweep, 0) << error;
  EXPECT_LT(submit_s, 10.0) << "submit blocked behind the slow peer";
  EXPECT_TRUE(LocalFleet::WaitFor([&] { return fleet.GetSweep(sweep).finished(); },
                                  90))
      << fleet.Logs();
  EXPECT_EQ(fleet.GetSweep(sweep).done(), 10);
  const bool slow_dropped =
      LocalFleet::WaitFor([&] { return !Connected(fleet, "slow-0"); }, 30);
  std::printf("hostile: submit answered in %.3f s while a peer did not read; "
              "the peer's session was %s\n",
              submit_s, slow_dropped ? "ended" : "still open");
  ctx.TryCancel();
  flood.join();
}

// A peer that keeps heartbeating but reads nothing, with a receive window
// so small that a few acknowledgements fill it: the controller's writer
// blocks with a short queue (far from the queue limit), so only the write
// timeout can end the session.
TEST(HostilePeerTest, APeerThatHeartbeatsButDoesNotReadIsEndedByTheWriteTimeout) {
  LocalFleetOptions options;
  options.controller_args = {"--write_timeout_s=2"};
  LocalFleet fleet(options);
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();

  grpc::ChannelArguments args;
  args.SetInt("grpc.http2.bdp_probe", 0);
  args.SetInt("grpc.http2.lookahead_bytes", 1024);
  auto channel = grpc::CreateCustomChannel(
      fleet.address(), grpc::InsecureChannelCredentials(), args);
  auto gateway = v1::AgentGateway::NewStub(channel);
  grpc::ClientContext ctx;
  std::unique_ptr<Stream> stream = gateway->Session(&ctx);
  ASSERT_TRUE(stream->Write(RegisterAs("deaf-0", false)));
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return Connected(fleet, "deaf-0"); },
                                  30))
      << fleet.Logs();
  // 400 batches of a run it does not hold: 400 acks, a few KiB, well
  // under the 4096-message queue limit. Then heartbeats only.
  std::atomic<bool> stop{false};
  std::thread talk([&] {
    v1::AgentMessage batch;
    batch.mutable_batch()->set_run_id(987654321);
    for (int seq = 1; seq <= 400; ++seq) {
      batch.mutable_batch()->set_seq(seq);
      if (!stream->Write(batch)) return;
    }
    v1::AgentMessage hb;
    hb.mutable_heartbeat();
    while (!stop && stream->Write(hb)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  const bool dropped =
      LocalFleet::WaitFor([&] { return !Connected(fleet, "deaf-0"); }, 60);
  const double after_s = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - t0)
                             .count();
  stop = true;
  ctx.TryCancel();
  talk.join();
  ASSERT_TRUE(dropped) << fleet.Logs();
  EXPECT_NE(fleet.Logs().find("has not read its stream"), std::string::npos)
      << fleet.Logs();
  std::printf("hostile: a heartbeating peer that did not read was ended "
              "%.1f s after it stopped reading (write timeout 2 s)\n",
              after_s);
}

TEST(HostilePeerTest, AnImpostorCannotTakeOverALiveAgentsSession) {
  LocalFleet fleet;
  ASSERT_NO_FATAL_FAILURE(StartTwin(fleet));
  std::string error;
  const int64_t sweep = fleet.Submit(TenRuns(), &error);
  ASSERT_GT(sweep, 0) << error;

  auto channel =
      grpc::CreateChannel(fleet.address(), grpc::InsecureChannelCredentials());
  auto gateway = v1::AgentGateway::NewStub(channel);
  grpc::ClientContext ctx;
  std::unique_ptr<Stream> stream = gateway->Session(&ctx);
  v1::AgentMessage reg = RegisterAs("orin-ok", true);
  reg.mutable_register_()->set_resume_token("0123456789abcdef0123456789abcdef");
  ASSERT_TRUE(stream->Write(reg));
  v1::ControllerMessage answer;
  EXPECT_FALSE(stream->Read(&answer)) << "the impostor was registered";
  grpc::Status st = stream->Finish();
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(st.error_message().find("already has a live session"),
            std::string::npos)
      << st.error_message();

  EXPECT_TRUE(LocalFleet::WaitFor([&] { return fleet.GetSweep(sweep).finished(); },
                                  90))
      << fleet.Logs();
  EXPECT_EQ(fleet.GetSweep(sweep).done(), 10);
  for (const auto& run : fleet.ListRuns(sweep)) {
    EXPECT_EQ(run.device_id(), "orin-ok");
  }
  EXPECT_TRUE(Connected(fleet, "orin-ok"));
}

}  // namespace
}  // namespace powersweep::testing
