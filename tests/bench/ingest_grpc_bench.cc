// ingest_grpc_bench: end-to-end ingest over gRPC into SQLite against raw
// SQLite inserts of the same rows, in one process run. The end-to-end side
// is the controller's real path: an AgentGateway server (Fleet, the
// session's writer thread, SqliteStore with group commit) on loopback, and
// a client that registers, takes the assigned run and streams the run's
// DataBatches as an agent does, up to `--window` unacknowledged at a time;
// the time runs from the first batch written to the last acknowledgement
// read. The raw side inserts the same rows with plain prepared INSERTs,
// one transaction per batch (storage/ingest_bench_rows.h). A benchmark: it
// prints rows/s and the ratio, and asserts nothing about time.
//
// Usage: ingest_grpc_bench [--batches=500] [--minibatches=20]
//                          [--telemetry=40] [--window=16] [--dir=/tmp]
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/log.h"
#include "controller/core/fleet.h"
#include "controller/service/agent_gateway_service.h"
#include "grpcpp/grpcpp.h"
#include "storage/ingest_bench_rows.h"

ABSL_FLAG(int64_t, batches, 500, "DataBatches to send.");
ABSL_FLAG(int64_t, minibatches, 20, "Minibatch records per batch.");
ABSL_FLAG(int64_t, telemetry, 40, "Telemetry samples per batch.");
ABSL_FLAG(int32_t, window, 16, "Batches in flight without an ack.");
ABSL_FLAG(std::string, dir, "/tmp", "Folder for the temporary databases.");

namespace powersweep {
namespace {

using Stream = grpc::ClientReaderWriter<v1::AgentMessage, v1::ControllerMessage>;

double Seconds(std::chrono::steady_clock::time_point a,
               std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Condition: `*acked` reached `at_least`.
struct AckedAtLeast {
  int64_t* acked;
  int64_t at_least;
  static bool Met(AckedAtLeast* a) { return *a->acked >= a->at_least; }
};

// Streams `wire` as run `run_id` through the gateway at `address`; seconds
// from the first batch to the last ack, or < 0 on error.
double OverGrpc(const std::string& address, int64_t run_id,
                const std::vector<std::string>& wire) {
  auto stub = v1::AgentGateway::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  std::unique_ptr<Stream> stream = stub->Session(&ctx);
  v1::AgentMessage reg;
  reg.mutable_register_()->mutable_identity()->set_device_id("bench-0");
  reg.mutable_register_()->mutable_identity()->set_device_class("host");
  v1::DeviceCapabilities* caps = reg.mutable_register_()->mutable_capabilities();
  caps->set_cpu_cores(4);
  caps->add_runtimes(v1::RUNTIME_NATIVE);
  caps->add_models("lenet5");
  caps->add_datasets("fashion-mnist");
  v1::ControllerMessage in;
  if (!stream->Write(reg) || !stream->Read(&in) || !in.has_registered()) return -1;
  if (!stream->Read(&in) || !in.has_assign() ||
      in.assign().spec().run_id() != run_id) {
    return -1;
  }
  const int32_t attempt = in.assign().spec().attempt();
  v1::AgentMessage m;
  m.mutable_assign_reply()->set_run_id(run_id);
  m.mutable_assign_reply()->set_attempt(attempt);
  m.mutable_assign_reply()->set_accepted(true);
  stream->Write(m);
  m.Clear();
  m.mutable_run_started()->set_run_id(run_id);
  stream->Write(m);

  absl::Mutex mu;
  int64_t acked = 0;
  std::thread reader([&] {
    v1::ControllerMessage msg;
    while (stream->Read(&msg)) {
      if (msg.has_ack() && msg.ack().seq() > 0) {
        absl::MutexLock lock(&mu);
        ++acked;
      }
    }
  });
  const int64_t window = absl::GetFlag(FLAGS_window);
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < wire.size(); ++i) {
    {
      absl::MutexLock lock(&mu);
      AckedAtLeast need{&acked, static_cast<int64_t>(i) - window};
      mu.Await(absl::Condition(&AckedAtLeast::Met, &need));
    }
    v1::AgentMessage batch;
    batch.mutable_batch()->ParseFromString(wire[i]);
    batch.mutable_batch()->set_attempt(attempt);
    if (!stream->Write(batch)) break;
  }
  const int64_t total = static_cast<int64_t>(wire.size());
  bool all = false;
  {
    absl::MutexLock lock(&mu);
    AckedAtLeast need{&acked, total};
    all = mu.AwaitWithTimeout(absl::Condition(&AckedAtLeast::Met, &need),
                              absl::Seconds(300));
  }
  const auto t1 = std::chrono::steady_clock::now();
  ctx.TryCancel();
  reader.join();
  return all ? Seconds(t0, t1) : -1;
}

int Main() {
  SetLogLevel(LogLevel::kError);
  std::string tmpl = absl::GetFlag(FLAGS_dir) + "/ingest_grpc_bench_XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "--dir: cannot create a folder in %s\n",
                 absl::GetFlag(FLAGS_dir).c_str());
    return 1;
  }
  const int64_t batches = absl::GetFlag(FLAGS_batches);
  const int64_t minibatches = absl::GetFlag(FLAGS_minibatches);
  const int64_t telemetry = absl::GetFlag(FLAGS_telemetry);
  const double rows = static_cast<double>(batches * (minibatches + telemetry));

  int64_t raw_run = 0;
  {
    auto raw_store = SqliteStore::Open(tmpl + "/raw.db");
    if (!BenchCheck(raw_store.status())) return 1;
    std::vector<int64_t> ids = BenchRuns(raw_store->get(), 1);
    if (ids.empty()) return 1;
    raw_run = ids[0];
  }
  const double raw_s = BenchRawInserts(
      tmpl + "/raw.db", raw_run,
      BenchWireBatches(batches, minibatches, telemetry, raw_run));

  auto store = SqliteStore::Open(tmpl + "/bench.db");
  if (!BenchCheck(store.status())) return 1;
  std::vector<int64_t> ids = BenchRuns(store->get(), 1);
  if (ids.empty()) return 1;
  RealClock clock;
  Fleet fleet(store->get(), &clock, FleetOptions());
  AgentGatewayService gateway(&fleet, /*require_certificate=*/false);
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&gateway);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) return 1;
  const double grpc_s =
      OverGrpc("127.0.0.1:" + std::to_string(port), ids[0],
               BenchWireBatches(batches, minibatches, telemetry, ids[0]));
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (raw_s < 0 || grpc_s < 0) {
    std::fprintf(stderr, "a side failed (raw %.2f s, gRPC %.2f s)\n", raw_s,
                 grpc_s);
    return 1;
  }
  std::printf("rows:     %lld batches x (%lld minibatches + %lld telemetry)\n",
              static_cast<long long>(batches),
              static_cast<long long>(minibatches),
              static_cast<long long>(telemetry));
  std::printf("raw:      %.0f rows/s (plain INSERTs, one transaction per batch)\n",
              rows / raw_s);
  std::printf("gRPC:     %.0f rows/s (agent stream -> gateway -> Fleet -> "
              "SqliteStore, acknowledged)\n",
              rows / grpc_s);
  std::printf("gRPC/raw: %.1f%% of raw throughput\n", 100.0 * raw_s / grpc_s);
  store->reset();
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  return 0;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "End-to-end ingest over gRPC into SQLite vs raw SQLite inserts.\n"
      "Usage: ingest_grpc_bench [--batches=500] [--minibatches=20] "
      "[--telemetry=40] [--window=16] [--dir=/tmp]");
  absl::ParseCommandLine(argc, argv);
  return powersweep::Main();
}
