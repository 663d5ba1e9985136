// fleet_bench: how the controller's cost grows with the fleet. For each
// fleet size N (default 50, 200, 1000) it starts a real powersweep-controller
// on loopback with a fresh database, N twin agents in this process (the real
// agent Session, RunExecutor and twin platform and runtime, one set of
// threads each; --twin_time_scale 0 so a run takes no simulated time), and
// submits N x 10 runs of a few minibatches. It prints, per N: the
// controller's CPU time per run (utime + stime of its process between
// submit and the last run's end), runs per second, the p50 / p99 dispatch
// latency (from a device's previous run ending to its next lease, from the
// runs table) and the controller's peak memory (VmHWM). A benchmark, not a
// test: it prints figures and asserts nothing about time.
//
// Usage: fleet_bench [--agents=50,200,1000] [--runs_per_agent=10]
//                    [--minibatches=4] [--timeout_s=900]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/run/run_executor.h"
#include "agent/runtime/twin/twin_agent.h"
#include "agent/session/session.h"
#include "common/clock.h"
#include "common/log.h"
#include "grpcpp/grpcpp.h"
#include "powersweep/v1/control.grpc.pb.h"
#include "powersweep/v1/sweep.pb.h"
#include "powersweep/v1/workload.pb.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

ABSL_FLAG(std::string, agents, "50,200,1000",
          "Fleet sizes to measure, comma-separated.");
ABSL_FLAG(int32_t, runs_per_agent, 10, "Runs per agent in each sweep.");
ABSL_FLAG(int32_t, minibatches, 4, "Minibatches per run.");
ABSL_FLAG(double, timeout_s, 900, "Give up on a fleet size after this long.");

namespace powersweep {
namespace {

using testing::QueryNumber;
using testing::Query;

// utime + stime of `pid`, in seconds.
double CpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; rest >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) {
      stime = std::stod(field);
      break;
    }
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// VmHWM of `pid` in MiB.
double PeakMib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      return std::stod(line.substr(6)) / 1024.0;
    }
  }
  return 0;
}

struct BenchAgent {
  TwinAgent twin;
  std::unique_ptr<RunExecutor> executor;
  std::unique_ptr<Session> session;
  std::thread thread;
};

v1::SweepSpec Sweep(int runs) {
  v1::SweepSpec spec = testing::OrinTwinSweep(
      "fleet-bench", v1::TASK_INFER, runs, absl::GetFlag(FLAGS_minibatches));
  spec.set_seed(1);
  spec.set_telemetry_hz(5);
  spec.set_timeout_s(600);
  return spec;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * v.size()));
  return v[i];
}

// Milliseconds from each device's previous run end to its next lease.
std::vector<double> DispatchLatencies(const std::string& db) {
  std::vector<double> out;
  std::map<std::string, std::vector<std::pair<double, double>>> by_device;
  for (const auto& row :
       Query(db, "SELECT device_id, leased_unix_ms, finished_unix_ms FROM runs"
                 " WHERE state = 'done' ORDER BY leased_unix_ms")) {
    by_device[row[0]].emplace_back(std::stod(row[1]), std::stod(row[2]));
  }
  for (auto& [device, runs] : by_device) {
    for (size_t i = 1; i < runs.size(); ++i) {
      out.push_back(std::max(0.0, runs[i].first - runs[i - 1].second));
    }
  }
  return out;
}

bool MeasureFleet(int n, int runs_per_agent) {
  testing::LocalFleetOptions options;
  options.controller_args = {"--heartbeat_s=2"};
  testing::LocalFleet fleet(options);
  if (!fleet.ok()) {
    std::fprintf(stderr, "the controller did not start:\n%s\n",
                 fleet.Logs().c_str());
    return false;
  }
  const std::string dir = fleet.dir();
  const std::string db = fleet.db_path();
  const std::string address = fleet.address();
  v1::Control::Stub* stub = fleet.control();
  const pid_t controller = fleet.controller()->pid();

  RealClock clock;
  std::vector<std::unique_ptr<BenchAgent>> agents;
  const auto t_start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    auto a = std::make_unique<BenchAgent>();
    TwinAgentOptions topts;
    topts.device_class = "orin-agx";
    topts.instance = i;
    topts.seed = 1;
    topts.time_scale = 0;
    topts.device_id = absl::StrCat("bench-", i);
    auto twin = MakeTwinAgent(topts, &clock);
    if (!twin.ok()) {
      std::fprintf(stderr, "twin: %s\n", twin.status().ToString().c_str());
      return false;
    }
    a->twin = std::move(*twin);
    RunExecutorConfig ecfg;
    ecfg.workload_bin = a->twin.workload_bin;
    ecfg.work_dir = dir + "/agents";
    ecfg.batch_interval_s = 0.2;
    a->executor = std::make_unique<RunExecutor>(
        ecfg, &a->twin.catalog, a->twin.platform.get(), &clock,
        NativeOnly(a->twin.runtimes));
    SessionConfig scfg;
    scfg.controller = address;
    scfg.max_backoff_s = 2;
    a->session = std::make_unique<Session>(scfg, a->twin.platform.get(),
                                           a->executor.get(), &clock);
    Session* s = a->session.get();
    a->thread = std::thread([s] { s->Run(); });
    agents.push_back(std::move(a));
  }
  int connected = 0;
  for (int i = 0; i < 1200 && connected < n; ++i) {
    grpc::ClientContext ctx;
    v1::ListDevicesResponse resp;
    stub->ListDevices(&ctx, {}, &resp);
    connected = 0;
    for (const auto& d : resp.devices()) connected += d.connected();
    if (connected < n) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const double connect_s = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - t_start)
                               .count();

  const double cpu0 = CpuSeconds(controller);
  const auto t0 = std::chrono::steady_clock::now();
  grpc::ClientContext sctx;
  v1::SubmitSweepRequest req;
  *req.mutable_spec() = Sweep(n * runs_per_agent);
  v1::SubmitSweepResponse resp;
  grpc::Status st = stub->SubmitSweep(&sctx, req, &resp);
  if (!st.ok()) {
    std::fprintf(stderr, "submit: %s\n", st.error_message().c_str());
    return false;
  }
  const int total = n * runs_per_agent;
  int done = 0;
  double elapsed = 0;
  while (elapsed < absl::GetFlag(FLAGS_timeout_s)) {
    grpc::ClientContext ctx;
    v1::GetSweepRequest g;
    g.set_sweep_id(resp.sweep_id());
    v1::SweepStatus status;
    stub->GetSweep(&ctx, g, &status);
    done = status.done() + status.failed() + status.cancelled();
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                  .count();
    if (done >= total) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const double cpu = CpuSeconds(controller) - cpu0;
  const double peak = PeakMib(controller);
  const std::vector<double> lat = DispatchLatencies(db);
  const int ok_runs = static_cast<int>(
      QueryNumber(db, "SELECT COUNT(*) FROM runs WHERE state = 'done'"));
  std::printf(
      "%5d agents: %5d/%d runs done in %7.1f s (%6.1f runs/s; agents "
      "connected in %.1f s); controller CPU %.2f ms/run (%.1f s in all); "
      "dispatch latency p50 %.0f ms, p99 %.0f ms; controller peak memory "
      "%.0f MiB\n",
      n, ok_runs, total, elapsed, ok_runs / std::max(elapsed, 1e-9), connect_s,
      1000.0 * cpu / std::max(ok_runs, 1), cpu, Percentile(lat, 0.5),
      Percentile(lat, 0.99), peak);
  std::fflush(stdout);
  for (auto& a : agents) a->session->Shutdown();
  for (auto& a : agents) a->thread.join();
  agents.clear();
  return done >= total;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Measures the controller's CPU per run, throughput, dispatch latency "
      "and memory for fleets of twin agents.\n"
      "Usage: fleet_bench [--agents=50,200,1000] [--runs_per_agent=10] "
      "[--minibatches=4] [--timeout_s=900]");
  absl::ParseCommandLine(argc, argv);
  powersweep::SetLogLevel(powersweep::LogLevel::kError);
  bool ok = true;
  const std::vector<std::string> sizes =
      absl::StrSplit(absl::GetFlag(FLAGS_agents), ',', absl::SkipEmpty());
  for (const std::string& n : sizes) {
    ok = powersweep::MeasureFleet(std::stoi(n),
                                  absl::GetFlag(FLAGS_runs_per_agent)) &&
         ok;
  }
  return ok ? 0 : 1;
}
