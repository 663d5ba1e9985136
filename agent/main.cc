// powersweep-agent: runs on a device, dials the controller and executes the
// runs it is assigned. Flags are parsed here and passed down as config.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/catalog.h"
#include "agent/flag_names.h"
#include "agent/platform/host/host_platform.h"
#include "agent/run_executor.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/session/session.h"
#include "common/clock.h"
#include "common/log.h"

ABSL_FLAG(std::string, controller, "127.0.0.1:7070",
          "host:port of the controller's AgentGateway");
ABSL_FLAG(std::string, device_id, "",
          "unique device id in the fleet (default: the hostname)");
ABSL_FLAG(std::string, cpus, "",
          "CPUs runs may use, e.g. \"0-1\" or \"0,2\" (default: every CPU "
          "in the agent's affinity)");
ABSL_FLAG(std::string, workload_bin, "",
          "path of powersweep-workload (default: next to this binary)");
ABSL_FLAG(std::vector<std::string>, dataset, {},
          "dataset NAME=PATH, repeatable or comma-separated (default: "
          "fashion-mnist=/usr/share/datasets/fashion-mnist)");
ABSL_FLAG(std::string, work_dir, "",
          "directory for per-run workload logs (default: "
          "/tmp/powersweep-agent-<device-id>)");
ABSL_FLAG(double, batch_interval_s, 1.0,
          "seconds of data per DataBatch sent to the controller");
ABSL_FLAG(double, max_backoff_s, 10.0,
          "cap of the reconnect backoff in seconds");
ABSL_FLAG(std::string, log_level, "info", "debug, info, warning or error");

namespace powersweep {
namespace {

int Fail(const std::string& msg) {
  std::fprintf(stderr, "powersweep-agent: %s\n", msg.c_str());
  return 2;
}

std::string SelfDir() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : self.parent_path().string();
}

int Main() {
  const std::string level = absl::GetFlag(FLAGS_log_level);
  if (level == "debug") {
    SetLogLevel(LogLevel::kDebug);
  } else if (level == "info") {
    SetLogLevel(LogLevel::kInfo);
  } else if (level == "warning") {
    SetLogLevel(LogLevel::kWarning);
  } else if (level == "error") {
    SetLogLevel(LogLevel::kError);
  } else {
    return Fail(absl::StrCat("--log_level: unknown level \"", level, "\""));
  }
  SetLogTag("agent");

  std::string workload_bin = absl::GetFlag(FLAGS_workload_bin);
  if (workload_bin.empty()) workload_bin = SelfDir() + "/powersweep-workload";
  if (access(workload_bin.c_str(), X_OK) != 0) {
    return Fail(absl::StrCat("--workload_bin: ", workload_bin,
                             " does not exist or is not executable"));
  }

  Catalog catalog;
  catalog.datasets = Catalog::DefaultDatasets();
  if (!absl::GetFlag(FLAGS_dataset).empty()) {
    auto datasets = ParseDatasetFlags(absl::GetFlag(FLAGS_dataset));
    if (!datasets.ok()) return Fail(std::string(datasets.status().message()));
    catalog.datasets = *datasets;
  }
  for (const auto& [name, path] : catalog.datasets) {
    if (!std::filesystem::is_directory(path)) {
      PS_LOG(WARNING) << "dataset " << name << ": " << path
                      << " is not a directory; runs using it will fail";
    }
  }

  HostPlatformOptions popts;
  popts.device_id = absl::GetFlag(FLAGS_device_id);
  popts.cpus = absl::GetFlag(FLAGS_cpus);
  popts.catalog = catalog;
  popts.agent_version = "0.1.0";
  auto platform = HostPlatform::Create(popts);
  if (!platform.ok()) return Fail(std::string(platform.status().message()));
  const std::string device_id = (*platform)->Identity().device_id();

  RunExecutorConfig ecfg;
  ecfg.workload_bin = workload_bin;
  ecfg.work_dir = absl::GetFlag(FLAGS_work_dir);
  if (ecfg.work_dir.empty()) {
    ecfg.work_dir = "/tmp/powersweep-agent-" + device_id;
  }
  std::error_code ec;
  std::filesystem::create_directories(ecfg.work_dir, ec);
  if (ec) {
    return Fail(absl::StrCat("--work_dir: cannot create ", ecfg.work_dir,
                             ": ", ec.message()));
  }
  ecfg.batch_interval_s = absl::GetFlag(FLAGS_batch_interval_s);
  if (ecfg.batch_interval_s <= 0) {
    return Fail("--batch_interval_s: must be > 0");
  }

  // Signals are taken by a dedicated thread; block them everywhere else
  // before any thread starts (the runtime unblocks them in the workload).
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

  RealClock clock;
  RunExecutor executor(ecfg, &catalog, platform->get(), &clock,
                       [&clock] { return std::make_unique<NativeRuntime>(&clock); });
  SessionConfig scfg;
  scfg.controller = absl::GetFlag(FLAGS_controller);
  scfg.max_backoff_s = absl::GetFlag(FLAGS_max_backoff_s);
  if (scfg.max_backoff_s < scfg.initial_backoff_s) {
    scfg.max_backoff_s = scfg.initial_backoff_s;
  }
  Session session(scfg, platform->get(), &executor, &clock);

  std::thread signals([&session, sigs] {
    int sig = 0;
    sigwait(&sigs, &sig);
    PS_LOG(INFO) << "received signal " << sig;
    session.Shutdown();
  });
  signals.detach();  // blocked in sigwait until a signal; ends with the process

  PS_LOG(INFO) << "device " << device_id << " (" 
               << (*platform)->Capabilities().cpu_cores()
               << " CPUs), controller " << scfg.controller << ", workload "
               << workload_bin << ", work dir " << ecfg.work_dir;
  session.Run();
  PS_LOG(INFO) << "stopped";
  return 0;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "powersweep-agent: executes powersweep runs on this device.\n"
      "Dials the controller's AgentGateway, registers this device, runs the\n"
      "assigned workloads (powersweep-workload) pinned to the requested\n"
      "cores, and streams minibatch records and telemetry back.\n"
      "Example: powersweep-agent --controller 10.0.0.5:7070 --device-id "
      "host-0 --cpus 0-3 --dataset fashion-mnist=/data/fashion-mnist\n"
      "Flag names may be written with dashes or underscores.");
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "agent/main.cc");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);
  std::vector<std::string> args = powersweep::MergeRepeatedFlag(
      powersweep::UnderscoreFlagNames(argc, argv), "dataset");
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  absl::ParseCommandLine(static_cast<int>(cargs.size()), cargs.data());
  return powersweep::Main();
}
