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
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "common/flags_usage.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/clock.h"
#include "common/log.h"
#include "controller/core/fleet.h"
#include "controller/service/agent_gateway_service.h"
#include "controller/service/control_auth.h"
#include "controller/service/control_service.h"
#include "controller/service/server_security.h"
#include "controller/sweep/submitter.h"
#include "grpcpp/grpcpp.h"
#include "storage/sqlite_store.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:7070",
          "Address to serve Control and AgentGateway on. Use 0.0.0.0:7070 "
          "to accept agents from other machines (needs TLS or --insecure); "
          "port 0 picks a free port.");
ABSL_FLAG(std::string, db, "var/powersweep.db",
          "SQLite database file (created if missing; its folder must exist).");
ABSL_FLAG(std::string, port_file, "",
          "If set, write the port actually bound to this file once serving.");
ABSL_FLAG(double, heartbeat_s, 2.0,
          "Heartbeat interval agents are told to use; an agent silent for 3 "
          "intervals is considered gone and its run fails.");
ABSL_FLAG(double, lease_timeout_s, 15.0,
          "An assignment the agent does not answer within this many seconds "
          "is released: the run goes back to pending.");
ABSL_FLAG(double, ack_timeout_s, 10.0,
          "Agents send data the controller has not acknowledged again after "
          "this many seconds (doubling while unanswered, up to 8x).");
ABSL_FLAG(double, reconnect_grace_s, 30.0,
          "Runs leased or running that no agent holds (e.g. after a "
          "controller restart) are kept this many seconds for their agents "
          "to come back; then they are released (failed and retried).");
ABSL_FLAG(double, write_timeout_s, 20.0,
          "An agent session whose stream write waits longer than this many "
          "seconds (the agent stopped reading) is ended and its run "
          "released.");
ABSL_FLAG(int32_t, max_devices, 10000,
          "Most devices the database may hold; registrations of new devices "
          "beyond it are refused.");
ABSL_FLAG(int32_t, max_sessions, 5000,
          "Most agents connected at once; more are refused.");
ABSL_FLAG(bool, verbose, false, "Log debug lines.");
ABSL_FLAG(std::string, tls_cert, "",
          "Serve TLS with this certificate (PEM; e.g. controller.crt from "
          "infra/scripts/make-lab-ca.sh). Needs --tls_key and --tls_ca.");
ABSL_FLAG(std::string, tls_key, "", "The private key of --tls_cert (PEM).");
ABSL_FLAG(std::string, tls_ca, "",
          "CA certificate (PEM) that signed the agents' and operators' client "
          "certificates. With TLS an agent must present a certificate whose "
          "CN is its device id.");
ABSL_FLAG(std::string, control_token_file, "",
          "File holding the bearer token Control callers may send "
          "(authorization: Bearer TOKEN) instead of an operator certificate; "
          "at least 16 characters.");
ABSL_FLAG(bool, insecure, false,
          "Allow serving plaintext, without authenticating agents, on an "
          "address other machines can reach (refused otherwise). Control "
          "callers from other machines still need the token.");
ABSL_FLAG(bool, trust_loopback, true,
          "Allow Control calls from this machine without a token or "
          "certificate when no --control_token_file is set.");
ABSL_FLAG(int64_t, max_sweep_runs, powersweep::kDefaultMaxSweepRuns,
          "Refuse a submitted sweep that expands to more runs than this.");
ABSL_FLAG(int64_t, max_import_samples, powersweep::kDefaultMaxImportSamples,
          "Refuse an ImportTelemetry stream with more samples than this.");

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

  for (auto [flag, value] :
       {std::pair<const char*, int64_t>{"--max_sweep_runs",
                                        absl::GetFlag(FLAGS_max_sweep_runs)},
        {"--max_import_samples", absl::GetFlag(FLAGS_max_import_samples)}}) {
    if (value <= 0) {
      PS_LOG(ERROR) << flag << ": must be positive, got " << value;
      return 2;
    }
  }
  ServerSecurityFlags security_flags;
  security_flags.listen = absl::GetFlag(FLAGS_listen);
  security_flags.tls_cert = absl::GetFlag(FLAGS_tls_cert);
  security_flags.tls_key = absl::GetFlag(FLAGS_tls_key);
  security_flags.tls_ca = absl::GetFlag(FLAGS_tls_ca);
  security_flags.control_token_file = absl::GetFlag(FLAGS_control_token_file);
  security_flags.insecure = absl::GetFlag(FLAGS_insecure);
  security_flags.trust_loopback = absl::GetFlag(FLAGS_trust_loopback);
  absl::StatusOr<ServerSecurity> security = MakeServerSecurity(security_flags);
  if (!security.ok()) {
    PS_LOG(ERROR) << security.status().message();
    return 2;
  }
  if (!security->tls && security_flags.insecure) {
    PS_LOG(WARNING) << "--insecure: serving plaintext; agents' identities "
                       "are not verified and tokens travel in the clear";
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
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"--lease_timeout_s",
                                       absl::GetFlag(FLAGS_lease_timeout_s)},
        {"--ack_timeout_s", absl::GetFlag(FLAGS_ack_timeout_s)},
        {"--reconnect_grace_s", absl::GetFlag(FLAGS_reconnect_grace_s)},
        {"--write_timeout_s", absl::GetFlag(FLAGS_write_timeout_s)}}) {
    if (!(value > 0) || value > 86400) {
      PS_LOG(ERROR) << name << ": must be in (0, 86400] seconds, got "
                    << value;
      return 2;
    }
  }
  fleet_options.lease_timeout =
      absl::Seconds(absl::GetFlag(FLAGS_lease_timeout_s));
  fleet_options.ack_timeout = absl::Seconds(absl::GetFlag(FLAGS_ack_timeout_s));
  fleet_options.reconnect_grace =
      absl::Seconds(absl::GetFlag(FLAGS_reconnect_grace_s));
  fleet_options.write_timeout =
      absl::Seconds(absl::GetFlag(FLAGS_write_timeout_s));
  fleet_options.max_devices = absl::GetFlag(FLAGS_max_devices);
  fleet_options.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  if (fleet_options.max_devices < 1 || fleet_options.max_sessions < 1) {
    PS_LOG(ERROR) << "--max_devices and --max_sessions: must be at least 1";
    return 2;
  }
  Fleet fleet(store->get(), &clock, fleet_options);
  // One line per sweep left unfinished ("resuming sweep ..."), then notes
  // the runs a previous controller left active, before any agent can
  // register (they get reconnect_grace to come back).
  fleet.LogUnfinishedSweeps();
  fleet.CheckLiveness();
  SweepSubmitter submitter(store->get(), &clock,
                           absl::GetFlag(FLAGS_max_sweep_runs));
  const ControlAuthenticator control_auth(security->control);
  ControlServiceOptions control_options;
  control_options.auth = &control_auth;
  control_options.max_import_samples = absl::GetFlag(FLAGS_max_import_samples);
  ControlService control(store->get(), &fleet, &submitter, nullptr,
                         control_options);
  AgentGatewayService gateway(&fleet, /*require_certificate=*/security->tls);

  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen), security->credentials,
                           &port);
  // Agents ping every 20 s; notice dead agents (and permit their pings).
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
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
  PS_LOG(INFO) << "serving on port " << port << ", database " << db_path
               << (security->tls ? ", TLS (agents need certificates)"
                                 : ", plaintext");

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
  // Lock-order cycle detection walks a graph on every lock; tests keep it,
  // the long-running processes do not pay for it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  powersweep::InitFlagsUsage(
      "Runs the powersweep controller: stores sweeps in SQLite, dispatches "
      "runs to connected agents, ingests their records.\n\n"
      "Usage: powersweep-controller [--listen=ADDR] [--db=FILE] "
      "[--port_file=FILE] [--heartbeat_s=S] [--lease_timeout_s=S]\n"
      "  [--ack_timeout_s=S] [--reconnect_grace_s=S] [--write_timeout_s=S]\n"
      "  [--max_devices=N] "
      "[--max_sessions=N]\n"
      "  [--tls_cert=FILE --tls_key=FILE --tls_ca=FILE] "
      "[--control_token_file=FILE] [--insecure]\n\n"
      "Listening on a non-loopback address needs TLS or --insecure.");
  absl::ParseCommandLine(argc, argv);
  return powersweep::Serve();
}
