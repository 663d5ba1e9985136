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
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/clock.h"
#include "common/flags_usage.h"
#include "common/http/http_server.h"
#include "common/log.h"
#include "common/net/descriptors.h"
#include "common/net/guarded_listener.h"
#include "common/net/listen_socket.h"
#include "common/metrics/metrics_listen.h"
#include "controller/core/fleet.h"
#include "controller/metrics/controller_metrics_page.h"
#include "controller/service/agent_gateway_service.h"
#include "controller/service/control_auth.h"
#include "controller/service/control_service.h"
#include "controller/service/server_security.h"
#include "controller/sweep/submitter.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
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
ABSL_FLAG(double, unconfirmed_device_ttl_s, 600,
          "A device that registered without a client certificate and never "
          "started a run is deleted from the database this many seconds "
          "after it disconnected; until it starts a run it does not count "
          "against --max_devices (at most --max_devices such devices at "
          "once).");
ABSL_FLAG(int32_t, max_sessions, 5000,
          "Most agents connected at once; more are refused.");
ABSL_FLAG(int32_t, max_connections, 4096,
          "Most TCP connections held at once (agents, CLI calls, and "
          "connections still in their handshake); more are closed as they "
          "arrive. The controller also keeps 64 descriptors below its "
          "open-files limit (raised to the hard limit at start), so a "
          "connection flood can never exhaust it.");
ABSL_FLAG(double, handshake_timeout_s, 10.0,
          "A connection that has not finished its TLS/HTTP/2 handshake "
          "within this many seconds (e.g. one that never speaks) is "
          "closed.");
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
ABSL_FLAG(std::string, metrics_listen, "",
          "Serve Prometheus metrics (runs by state, agents, ingest, "
          "dispatch latency, database errors) at http://HOST:PORT/metrics, "
          "e.g. 127.0.0.1:9464 (port 0 picks a free port); empty: off. A "
          "non-loopback address needs --metrics_allow_remote.");
ABSL_FLAG(bool, metrics_allow_remote, false,
          "Allow --metrics_listen on an address other machines can reach "
          "(the page has no authentication).");
ABSL_FLAG(std::string, metrics_port_file, "",
          "If set, write the metrics port actually bound to this file.");
ABSL_FLAG(bool, grpc_reflection, true,
          "Serve gRPC server reflection (grpc.reflection.v1alpha), so "
          "grpcurl and grpc_cli can list and call the API without the "
          ".proto files. Like the health service it needs no token.");
ABSL_FLAG(int64_t, max_sweep_runs, powersweep::kDefaultMaxSweepRuns,
          "Refuse a submitted sweep that expands to more runs than this.");
ABSL_FLAG(int64_t, max_import_samples, powersweep::kDefaultMaxImportSamples,
          "Refuse an ImportTelemetry stream with more samples than this.");

namespace powersweep {
namespace {

int Serve() {
  // Block the stop signals in every thread; one thread waits for them.
  // First of all: gRPC starts threads of its own as soon as credentials
  // are made (MakeServerSecurity), and a thread that does not block
  // SIGTERM would take it and end the process without shutting down.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
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
  const MetricsFlags metrics_flags{absl::GetFlag(FLAGS_metrics_listen),
                                   absl::GetFlag(FLAGS_metrics_allow_remote),
                                   absl::GetFlag(FLAGS_metrics_port_file)};
  if (absl::Status st = CheckMetricsFlags(metrics_flags); !st.ok()) {
    PS_LOG(ERROR) << st.message();
    return 2;
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
        {"--write_timeout_s", absl::GetFlag(FLAGS_write_timeout_s)},
        {"--unconfirmed_device_ttl_s",
         absl::GetFlag(FLAGS_unconfirmed_device_ttl_s)}}) {
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
  fleet_options.unconfirmed_device_ttl =
      absl::Seconds(absl::GetFlag(FLAGS_unconfirmed_device_ttl_s));
  fleet_options.max_devices = absl::GetFlag(FLAGS_max_devices);
  fleet_options.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  if (absl::GetFlag(FLAGS_max_connections) < 1) {
    PS_LOG(ERROR) << "--max_connections: must be at least 1, got "
                  << absl::GetFlag(FLAGS_max_connections);
    return 2;
  }
  if (const double h = absl::GetFlag(FLAGS_handshake_timeout_s);
      !(h >= 0.1 && h <= 3600)) {
    PS_LOG(ERROR) << "--handshake_timeout_s: must be in [0.1, 3600] "
                     "seconds, got "
                  << h;
    return 2;
  }
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

  // grpc.health.v1.Health and (unless --grpc_reflection=false) server
  // reflection, for standard clients; gRPC serves both itself, outside
  // ControlAuthenticator: they tell the serving status and the API's
  // schema, never data (docs/observability.md).
  grpc::EnableDefaultHealthCheckService(true);
  if (absl::GetFlag(FLAGS_grpc_reflection)) {
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  }
  // The listening socket is the controller's own (GuardedListener), not
  // gRPC's: gRPC 1.51's listener stops for good after one EMFILE.
  const OpenFilesLimit files = RaiseOpenFilesLimit();
  if (files.soft != files.soft_before) {
    PS_LOG(INFO) << "open-files limit raised from " << files.soft_before
                 << " to " << files.soft;
  }
  absl::StatusOr<ListeningSocket> socket =
      ListenTcp(absl::GetFlag(FLAGS_listen), /*backlog=*/1024);
  if (!socket.ok()) {
    PS_LOG(ERROR) << "--listen: " << socket.status().message();
    return socket.status().code() == absl::StatusCode::kInvalidArgument ? 2
                                                                        : 1;
  }
  const int port = socket->port;
  grpc::ServerBuilder builder;
  std::shared_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor =
      builder.experimental().AddExternalConnectionAcceptor(
          grpc::ServerBuilder::experimental_type::ExternalConnectionType::
              FROM_FD,
          security->credentials);
  builder.AddChannelArgument(
      GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
      static_cast<int>(absl::GetFlag(FLAGS_handshake_timeout_s) * 1000));
  // Agents ping every 20 s; notice dead agents (and permit their pings).
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  builder.RegisterService(&control);
  builder.RegisterService(&gateway);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    PS_LOG(ERROR) << "cannot start the gRPC server on --listen="
                  << absl::GetFlag(FLAGS_listen);
    close(socket->fd);
    return 1;
  }
  GuardedListenerOptions listener_options;
  listener_options.max_connections = absl::GetFlag(FLAGS_max_connections);
  listener_options.descriptor_limit = files.soft;
  const int listen_fd = socket->fd;
  absl::StatusOr<std::unique_ptr<GuardedListener>> listener =
      GuardedListener::Start(
          *socket,
          [&acceptor, listen_fd](int fd) {
            grpc::experimental::ExternalConnectionAcceptor::
                NewConnectionParameters params;
            params.listener_fd = listen_fd;
            params.fd = fd;
            acceptor->HandleNewConnection(&params);
          },
          listener_options);
  if (!listener.ok()) {
    PS_LOG(ERROR) << listener.status().message();
    server->Shutdown();
    return 1;
  }
  PS_LOG(INFO) << "accepting at most " << (*listener)->counts().ceiling
               << " descriptors (open-files limit " << files.soft
               << ", --max_connections="
               << absl::GetFlag(FLAGS_max_connections) << ")";
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  for (const char* service :
       {"powersweep.v1.Control", "powersweep.v1.AgentGateway"}) {
    health->SetServingStatus(service, true);
  }

  ControllerMetricsSources sources;
  sources.store = store->get();
  sources.fleet = &fleet;
  sources.store_errors = &(*store)->error_counts();
  sources.listener = listener->get();
  absl::StatusOr<std::unique_ptr<HttpServer>> metrics_server =
      StartMetricsPage(metrics_flags,
                       [sources] { return RenderControllerMetrics(sources); });
  if (!metrics_server.ok()) {
    PS_LOG(ERROR) << metrics_server.status().message();
    server->Shutdown();
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
    const absl::Duration tick = absl::Seconds(heartbeat_s / 2);
    absl::Time last = absl::Now();
    while (!stopping.WaitForNotificationWithTimeout(tick)) {
      // Woken more than a heartbeat late: this process was not running
      // (SIGSTOP, a suspended VM); agents are not to blame for the gap.
      const absl::Time now = absl::Now();
      if (now - last > tick + absl::Seconds(heartbeat_s)) {
        fleet.NoteStall(now - last - tick);
      }
      last = now;
      fleet.CheckLiveness();
      fleet.Dispatch();
    }
  });
  std::thread signals([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    PS_LOG(INFO) << "signal " << sig << ": shutting down";
    stopping.Notify();
    // Health checks see NOT_SERVING while the server drains.
    server->GetHealthCheckService()->SetServingStatus(false);
    server->Shutdown(std::chrono::system_clock::now() +
                     std::chrono::seconds(2));
  });
  server->Wait();
  if (!stopping.HasBeenNotified()) stopping.Notify();
  liveness.join();
  (*listener)->Stop();
  if (*metrics_server != nullptr) (*metrics_server)->Stop();
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
      "  [--max_devices=N] [--unconfirmed_device_ttl_s=S] [--max_sessions=N] "
      "[--max_connections=N] "
      "[--handshake_timeout_s=S]\n"
      "  [--tls_cert=FILE --tls_key=FILE --tls_ca=FILE] "
      "[--control_token_file=FILE] [--insecure]\n"
      "  [--metrics_listen=HOST:PORT [--metrics_allow_remote] "
      "[--metrics_port_file=FILE]] [--grpc_reflection=false]\n\n"
      "Listening on a non-loopback address needs TLS or --insecure. The "
      "standard gRPC health service and server reflection are served on "
      "--listen too.");
  absl::ParseCommandLine(argc, argv);
  return powersweep::Serve();
}
