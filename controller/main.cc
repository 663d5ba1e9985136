// powersweep-controller: serves Control (for the powersweep CLI) and
// AgentGateway (for agents) on one port, owns the SQLite database.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "common/flags_usage.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/clock.h"
#include "common/log.h"
#include "controller/core/fleet.h"
#include "controller/service/agent_gateway_service.h"
#include "controller/service/control_service.h"
#include "controller/sweep/submitter.h"
#include "grpcpp/grpcpp.h"
#include "storage/sqlite_store.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:7070",
          "Address to serve Control and AgentGateway on. Use 0.0.0.0:7070 "
          "to accept agents from other machines; port 0 picks a free port.");
ABSL_FLAG(std::string, db, "var/powersweep.db",
          "SQLite database file (created if missing; its folder must exist).");
ABSL_FLAG(std::string, port_file, "",
          "If set, write the port actually bound to this file once serving.");
ABSL_FLAG(double, heartbeat_s, 2.0,
          "Heartbeat interval agents are told to use; an agent silent for 3 "
          "intervals is considered gone and its run fails.");
ABSL_FLAG(bool, verbose, false, "Log debug lines.");

namespace powersweep {
namespace {

int Serve() {
  if (absl::GetFlag(FLAGS_verbose)) SetLogLevel(LogLevel::kDebug);
  SetLogTag("controller");
  const double heartbeat_s = absl::GetFlag(FLAGS_heartbeat_s);
  if (!(heartbeat_s > 0)) {
    PS_LOG(ERROR) << "--heartbeat_s: must be positive, got " << heartbeat_s;
    return 2;
  }

  // Block the stop signals in every thread; one thread waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const std::string db_path = absl::GetFlag(FLAGS_db);
  auto store = SqliteStore::Open(db_path);
  if (!store.ok()) {
    PS_LOG(ERROR) << "cannot open database: " << store.status();
    return 1;
  }
  RealClock clock;
  FleetOptions fleet_options;
  fleet_options.heartbeat_interval = absl::Seconds(heartbeat_s);
  Fleet fleet(store->get(), &clock, fleet_options);
  SweepSubmitter submitter(store->get(), &clock);
  ControlService control(store->get(), &fleet, &submitter);
  AgentGatewayService gateway(&fleet);

  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen),
                           grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&control);
  builder.RegisterService(&gateway);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    PS_LOG(ERROR) << "cannot listen on --listen=" << absl::GetFlag(FLAGS_listen);
    return 1;
  }
  const std::string port_file = absl::GetFlag(FLAGS_port_file);
  if (!port_file.empty()) {
    std::ofstream(port_file + ".tmp") << port << "\n";
    if (std::rename((port_file + ".tmp").c_str(), port_file.c_str()) != 0) {
      PS_LOG(ERROR) << "--port_file: cannot write " << port_file << ": "
                    << std::strerror(errno);
      return 1;
    }
  }
  PS_LOG(INFO) << "serving on port " << port << ", database " << db_path;

  absl::Notification stopping;
  std::thread liveness([&] {
    while (!stopping.WaitForNotificationWithTimeout(
        absl::Seconds(heartbeat_s / 2))) {
      fleet.CheckLiveness();
      fleet.Dispatch();
    }
  });
  std::thread signals([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    PS_LOG(INFO) << "signal " << sig << ": shutting down";
    stopping.Notify();
    server->Shutdown(std::chrono::system_clock::now() +
                     std::chrono::seconds(2));
  });
  server->Wait();
  if (!stopping.HasBeenNotified()) stopping.Notify();
  liveness.join();
  signals.detach();
  PS_LOG(INFO) << "stopped";
  return 0;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) {
  powersweep::InitFlagsUsage(
      "Runs the powersweep controller: stores sweeps in SQLite, dispatches "
      "runs to connected agents, ingests their records.\n\n"
      "Usage: powersweep-controller [--listen=ADDR] [--db=FILE] "
      "[--port_file=FILE] [--heartbeat_s=S]");
  absl::ParseCommandLine(argc, argv);
  return powersweep::Serve();
}
