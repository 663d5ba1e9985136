// A descriptor flood against a real controller on loopback, run under the
// open-files limit a systemd unit leaves in place (1,024, here as the hard
// limit too, so the controller cannot raise it): 1,100 TCP connections
// that never send the HTTP/2 preface. Before the controller had its own
// listener, gRPC's hit EMFILE once and stopped accepting for good
// (grpc/grpc#20418): no agent could register afterwards. Now the listener
// refuses connections past its descriptor ceiling, the handshake deadline
// closes silent ones, and the fleet works again once the flood is over.
// The recovery times are printed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "powersweep/v1/control.grpc.pb.h"
#include "tests/common/http/http_test_client.h"
#include "tests/common/metrics/series_value.h"
#include "tests/integration/local_fleet.h"

namespace powersweep::testing {
namespace {

constexpr int kFloodConnections = 1100;

// Lets this test process hold the flood.
void RaiseOwnLimit() {
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
}

// Opens `n` connections to 127.0.0.1:port that never send anything.
std::vector<int> Flood(int port, int n) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<int> fds;
  for (int i = 0; i < n; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) break;
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      close(fd);
      continue;
    }
    fds.push_back(fd);
  }
  return fds;
}

// Connections of `fds` the controller has closed (EOF or reset).
int ClosedByPeer(const std::vector<int>& fds) {
  int closed = 0;
  for (int fd : fds) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 0) == 1) {
      char byte;
      if (recv(fd, &byte, 1, MSG_DONTWAIT) <= 0) ++closed;
    }
  }
  return closed;
}

// A Control call on a new channel answers within 2 s.
bool ControlAnswers(const std::string& address) {
  auto stub = v1::Control::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  v1::ListDevicesResponse resp;
  return stub->ListDevices(&ctx, {}, &resp).ok();
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       since)
      .count();
}

LocalFleetOptions UnitLimits(const std::string& files,
                             const std::string& handshake_s) {
  LocalFleetOptions options;
  options.controller_prefix = {"/usr/bin/prlimit", "--nofile=1024:1024", "--"};
  options.controller_args = {"--metrics_listen=127.0.0.1:0",
                             "--metrics_port_file=" + files + "/metrics",
                             "--handshake_timeout_s=" + handshake_s};
  return options;
}

std::vector<std::string> TwinArgs() {
  return {"--platform=twin", "--device_class=orin-agx", "--instance=0",
          "--twin_time_scale=0.05", "--log_level=warning"};
}

TEST(DescriptorFloodTest, TheFleetWorksAgainOnceAFloodPastTheLimitIsOver) {
  RaiseOwnLimit();
  const std::string files = MakeTempDir("powersweep-flood");
  LocalFleet fleet(UnitLimits(files, "10"));
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  const int metrics_port = LocalFleet::PortFromFile(files + "/metrics");
  ASSERT_GT(metrics_port, 0) << fleet.Logs();

  std::vector<int> flood = Flood(fleet.port(), kFloodConnections);
  ASSERT_EQ(static_cast<int>(flood.size()), kFloodConnections);
  // Let the listener take in the whole backlog.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ASSERT_TRUE(fleet.controller()->running()) << fleet.Logs();
  const std::string during = HttpGet(metrics_port, "/metrics").body;
  const double refused =
      SeriesValue(during, "powersweep_connections_total{outcome=\"refused\"}")
          .value_or(-1);
  const double ceiling =
      SeriesValue(during, "powersweep_descriptor_ceiling").value_or(-1);
  std::printf("flood of %d: %.0f refused, descriptor ceiling %.0f\n",
              kFloodConnections, refused, ceiling);
  EXPECT_GT(refused, 0) << during;
  EXPECT_GT(ceiling, 0);
  EXPECT_LE(ceiling, 1024 - 64);

  for (int fd : flood) close(fd);
  const auto over = std::chrono::steady_clock::now();
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return ControlAnswers(fleet.address()); }, 20))
      << fleet.Logs();
  const double control_s = Seconds(over);

  fleet.StartAgent("orin-agx-twin-0", TwinArgs());
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        for (const v1::DeviceStatus& d : fleet.ListDevices()) {
          if (d.connected()) return true;
        }
        return false;
      },
      30))
      << fleet.Logs();
  const double agent_s = Seconds(over);
  std::string error;
  const int64_t sweep =
      fleet.Submit(OrinTwinSweep("it-flood", v1::TASK_INFER, 2, 10), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 60))
      << fleet.Logs();
  EXPECT_EQ(fleet.GetSweep(sweep).done(), 2) << fleet.Logs();
  std::printf(
      "after the flood: Control answered in %.2f s, a new agent was "
      "connected in %.2f s, a 2-run sweep was done in %.2f s\n",
      control_s, agent_s, Seconds(over));
}

TEST(DescriptorFloodTest, TheHandshakeDeadlineClosesConnectionsThatNeverSpeak) {
  RaiseOwnLimit();
  const std::string files = MakeTempDir("powersweep-flood");
  LocalFleet fleet(UnitLimits(files, "1"));
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();

  // The flood stays open: only the controller can end it.
  std::vector<int> flood = Flood(fleet.port(), kFloodConnections);
  ASSERT_EQ(static_cast<int>(flood.size()), kFloodConnections);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return ClosedByPeer(flood) == kFloodConnections; }, 20))
      << ClosedByPeer(flood) << " of " << kFloodConnections
      << " closed\n" << fleet.Logs();
  const double closed_s = Seconds(start);
  EXPECT_TRUE(ControlAnswers(fleet.address())) << fleet.Logs();
  std::printf(
      "all %d silent connections were closed by the controller within "
      "%.2f s (handshake deadline 1 s); Control answers meanwhile\n",
      kFloodConnections, closed_s);
  for (int fd : flood) close(fd);
}

}  // namespace
}  // namespace powersweep::testing
