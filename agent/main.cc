// powersweep-agent: runs on a device, dials the controller and executes the
// runs it is assigned. Flags are parsed here and passed down as config.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
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
#include "absl/synchronization/mutex.h"
#include "agent/agent_factory.h"
#include "agent/cli/flag_names.h"
#include "agent/metrics/agent_metrics_page.h"
#include "agent/platform/jetson/nvpmodel_reboot.h"
#include "agent/run/latest_reading.h"
#include "agent/run/observed_platform.h"
#include "agent/probe/probe_report.h"
#include "agent/run/health_check.h"
#include "agent/run/run_executor.h"
#include "agent/session/session.h"
#include "agent/trace/kernel_tracer.h"
#include "common/clock.h"
#include "common/http/http_server.h"
#include "common/log.h"
#include "common/metrics/metrics_listen.h"
#include "common/tls_credentials.h"

ABSL_FLAG(std::string, controller, "127.0.0.1:7070",
          "host:port of the controller's AgentGateway");
ABSL_FLAG(std::string, tls_ca, "",
          "CA certificate (PEM) of the controller's certificate; dial the "
          "controller over TLS (default: plaintext)");
ABSL_FLAG(std::string, tls_cert, "",
          "this device's client certificate (PEM), CN = the device id "
          "(infra/scripts/make-lab-ca.sh DIR device ID); needs --tls_ca");
ABSL_FLAG(std::string, tls_key, "", "the private key of --tls_cert (PEM)");
ABSL_FLAG(std::string, tls_server_name, "",
          "the name in the controller's certificate, when --controller "
          "addresses it by another name or IP");
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
          "state directory: per-run workload logs and, on a Jetson, the "
          "board's restore file (default: /var/lib/powersweep-agent/"
          "<device-id> as root, else $XDG_STATE_HOME/powersweep-agent/"
          "<device-id> or ~/.local/state/powersweep-agent/<device-id>); "
          "created 0700, refused if it is a symlink, not owned by the "
          "agent's user, or group/world-writable");
ABSL_FLAG(double, batch_interval_s, 1.0,
          "seconds of data per DataBatch sent to the controller");
ABSL_FLAG(double, max_backoff_s, 10.0,
          "cap of the reconnect backoff in seconds");
ABSL_FLAG(std::string, log_level, "info", "debug, info, warning or error");
ABSL_FLAG(std::vector<std::string>, container_images, {},
          "images container runs may use (repo:tag, repo@sha256:..., or an "
          "image id), comma-separated; empty: no container runs. Build the "
          "workload image with infra/docker/build-workload-image.sh");
ABSL_FLAG(std::string, docker_client, "/usr/bin/docker",
          "the Docker command-line client (Debian's docker.io)");
ABSL_FLAG(std::string, qemu, "/usr/bin/qemu-system-x86_64",
          "vm runs: QEMU (Debian's qemu-system-x86)");
ABSL_FLAG(std::string, vm_image, "",
          "vm runs: the guest image folder (vmlinuz, initrd.img, GUEST; "
          "`make vm-image`); default vm-guest/ next to this binary or "
          "beside its folder");
ABSL_FLAG(std::string, vm_accel, "auto",
          "vm runs: auto (KVM when /dev/kvm is usable, else no vm runs), "
          "kvm (an error when unusable) or tcg (QEMU's software emulation, "
          "labelled in every result; times are not comparable with native)");
ABSL_FLAG(std::string, vm_data, "blk",
          "vm and container_in_vm runs: how the guest reads the run's data "
          "set: blk (a read-only ext4 image of it on a virtio-blk disk, made "
          "once per data set in --work_dir/vm-data; measured closer to "
          "native reads) or 9p (the host's / over virtio-9p, nothing made)");
ABSL_FLAG(std::string, platform, "host",
          "host (this machine), jetson (an NVIDIA Jetson board; run as root) "
          "or twin (a simulated Jetson, see docs/twin-model.md)");
ABSL_FLAG(std::string, sysfs_root, "/",
          "jetson: root under which /sys, /proc and /etc are read (a fake "
          "tree for tests)");
ABSL_FLAG(std::string, nvml_library, "libnvidia-ml.so.1",
          "host: the NVML library to load at run time for an NVIDIA GPU's "
          "power, clocks and knobs (gpu_power_limit_w, gpu_freq_hz); \"\" "
          "= none. Without it the host has no GPU (docs/gpu.md)");
ABSL_FLAG(int32_t, nvml_gpu, 0, "host: the index of the NVML GPU to use");
ABSL_FLAG(std::string, device_class, "",
          "twin: the simulated class (orin-agx, xavier-agx, xavier-nx, nano, "
          "orin-nx, orin-nano, thor)");
ABSL_FLAG(int64_t, instance, 0,
          "twin: instance number; default device id <class>-twin-<instance>");
ABSL_FLAG(uint64_t, twin_seed, 1,
          "twin: seed of the instance variation and the per-minibatch noise");
ABSL_FLAG(double, twin_slowdown, 1.0,
          "twin: a deliberate offset on top of the seeded instance variation: "
          "every simulated time of this instance is multiplied by it (1.15: "
          "15% slower; for testing outlier detection), in (0, 10]");
ABSL_FLAG(std::string, twin_temperature_file, "",
          "twin, for tests: while this file exists and holds a number, the "
          "twin reports a sensor at that many degrees C (e.g. to fail the "
          "health check: --health_max_temp_c)");
ABSL_FLAG(double, health_max_temp_c, 95,
          "the agent's health check fails while the board temperature (its "
          "hottest sensor, PMIC excluded) is at or above this; it is checked "
          "at registration, in every heartbeat while idle and before "
          "accepting a run, and an unhealthy agent rejects runs");
ABSL_FLAG(std::string, metrics_listen, "",
          "serve Prometheus metrics (power, temperatures, clocks, run "
          "state) at http://HOST:PORT/metrics, e.g. 127.0.0.1:9465 (port 0 "
          "picks a free port); empty: off. A non-loopback address needs "
          "--metrics_allow_remote");
ABSL_FLAG(bool, allow_reboot, false,
          "jetson: a run whose preset needs a reboot (its GPU power gating "
          "differs from the board's) is declined, the run goes back to the "
          "queue, and the agent reboots the board into the mode with "
          "`nvpmodel -m ID`; systemd starts the agent again after the boot. "
          "Off: such runs fail with the reason");
ABSL_FLAG(std::string, nvpmodel, "/usr/sbin/nvpmodel",
          "jetson, with --allow_reboot: the nvpmodel binary");
ABSL_FLAG(bool, metrics_allow_remote, false,
          "allow --metrics_listen on an address other machines can reach "
          "(the page has no authentication)");
ABSL_FLAG(std::string, metrics_port_file, "",
          "if set, write the metrics port actually bound to this file");
ABSL_FLAG(double, twin_time_scale, 0.01,
          "twin: wall seconds per simulated second (0.01: a 100 s run takes "
          "1 s; 0: as fast as possible)");

namespace powersweep {
namespace {

constexpr char kAgentVersion[] = "0.1.0";

int Fail(const std::string& msg) {
  std::fprintf(stderr, "powersweep-agent: %s\n", msg.c_str());
  return 2;
}

std::string SelfDir() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : self.parent_path().string();
}

int Main(bool probe) {
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
  const std::string platform_name = absl::GetFlag(FLAGS_platform);
  if (probe) SetLogLevel(LogLevel::kWarning);
  MetricsFlags metrics_flags{absl::GetFlag(FLAGS_metrics_listen),
                             absl::GetFlag(FLAGS_metrics_allow_remote),
                             absl::GetFlag(FLAGS_metrics_port_file)};
  if (absl::Status st = CheckMetricsFlags(metrics_flags); !st.ok()) {
    return Fail(std::string(st.message()));
  }
  if (probe) metrics_flags.listen.clear();  // a probe serves no page

  AgentOptions aopts;
  aopts.platform = platform_name;
  aopts.probe = probe;
  aopts.agent_version = kAgentVersion;
  aopts.device_id = absl::GetFlag(FLAGS_device_id);
  aopts.cpus = absl::GetFlag(FLAGS_cpus);
  aopts.workload_bin = absl::GetFlag(FLAGS_workload_bin);
  aopts.default_workload_dir = SelfDir();
  aopts.datasets = absl::GetFlag(FLAGS_dataset);
  aopts.work_dir = absl::GetFlag(FLAGS_work_dir);
  aopts.container_images = absl::GetFlag(FLAGS_container_images);
  aopts.docker_client = absl::GetFlag(FLAGS_docker_client);
  aopts.qemu = absl::GetFlag(FLAGS_qemu);
  aopts.vm_image = absl::GetFlag(FLAGS_vm_image);
  aopts.vm_accel = absl::GetFlag(FLAGS_vm_accel);
  aopts.vm_data = absl::GetFlag(FLAGS_vm_data);
  aopts.sysfs_root = absl::GetFlag(FLAGS_sysfs_root);
  aopts.nvml_library = absl::GetFlag(FLAGS_nvml_library);
  aopts.nvml_gpu = absl::GetFlag(FLAGS_nvml_gpu);
  aopts.device_class = absl::GetFlag(FLAGS_device_class);
  aopts.instance = absl::GetFlag(FLAGS_instance);
  aopts.twin_seed = absl::GetFlag(FLAGS_twin_seed);
  aopts.twin_time_scale = absl::GetFlag(FLAGS_twin_time_scale);
  aopts.twin_slowdown = absl::GetFlag(FLAGS_twin_slowdown);
  aopts.twin_temperature_file = absl::GetFlag(FLAGS_twin_temperature_file);
  HealthCheckOptions health_options;
  health_options.max_temp_c = absl::GetFlag(FLAGS_health_max_temp_c);
  if (!(health_options.max_temp_c > 0 && health_options.max_temp_c <= 200)) {
    return Fail(absl::StrCat("--health_max_temp_c: must be in (0, 200], got ",
                             health_options.max_temp_c));
  }
  RealClock clock;
  absl::StatusOr<std::unique_ptr<Agent>> made = MakeAgent(aopts, &clock);
  if (!made.ok()) return Fail(std::string(made.status().message()));
  Agent& agent = **made;
  // Every sample of the platform (idle health checks, native runs) and of a
  // run (twins too) lands in `reading`: the heartbeat's newest sample and
  // the /metrics page read it there.
  LatestReading reading(&clock);
  ObservedPlatform observed(agent.platform.get(), &reading);
  Platform* const platform = &observed;
  if (probe) {
    std::fputs(ProbeReport(platform_name, platform, &clock).c_str(), stdout);
    return 0;
  }
  const std::string device_id = platform->Identity().device_id();

  RunExecutorConfig ecfg;
  ecfg.workload_bin = agent.workload_bin;
  ecfg.work_dir = agent.work_dir;
  ecfg.batch_interval_s = absl::GetFlag(FLAGS_batch_interval_s);
  if (ecfg.batch_interval_s <= 0) {
    return Fail("--batch_interval_s: must be > 0");
  }
  // Runs that ask for kernel event traces get them through perf_event_open
  // (twins' runs report them missing).
  ecfg.tracer = std::make_shared<KernelTracer>();

  // Signals are taken by a dedicated thread; block them everywhere else
  // before any thread starts (the runtime unblocks them in the workload).
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

  SessionConfig scfg;
  scfg.controller = absl::GetFlag(FLAGS_controller);
  ChannelTlsFiles tls{absl::GetFlag(FLAGS_tls_ca), absl::GetFlag(FLAGS_tls_cert),
                      absl::GetFlag(FLAGS_tls_key)};
  if (!tls.ca.empty() || !tls.cert.empty() || !tls.key.empty()) {
    auto creds = MakeChannelCredentials(tls);
    if (!creds.ok()) return Fail(std::string(creds.status().message()));
    scfg.credentials = *creds;
    scfg.tls_server_name = absl::GetFlag(FLAGS_tls_server_name);
  } else if (!absl::GetFlag(FLAGS_tls_server_name).empty()) {
    return Fail("--tls_server_name: only used with --tls_ca (TLS)");
  }

  std::unique_ptr<jetson::NvpmodelReboot> reboot;
  if (absl::GetFlag(FLAGS_allow_reboot)) {
    if (platform_name != "jetson") {
      return Fail("--allow_reboot: only with --platform=jetson");
    }
    reboot = std::make_unique<jetson::NvpmodelReboot>(
        jetson::NvpmodelRebootOptions{ecfg.work_dir,
                                      absl::GetFlag(FLAGS_nvpmodel)});
    scfg.reboot = reboot.get();
  }
  HealthChecker health(platform, &clock, health_options);
  scfg.health = &health;
  scfg.latest = &reading;
  ecfg.on_mode_mismatch = [&health](const std::string& reason) {
    health.MarkUnhealthy(reason);
  };
  ecfg.on_sample = [&reading](const v1::TelemetrySample& s) {
    reading.Observe(s, /*count=*/true);
  };
  RunExecutor executor(ecfg, &agent.catalog, platform, &clock, agent.runtimes);
  scfg.max_backoff_s = absl::GetFlag(FLAGS_max_backoff_s);
  if (scfg.max_backoff_s < scfg.initial_backoff_s) {
    scfg.max_backoff_s = scfg.initial_backoff_s;
  }
  // Unacknowledged data survives an agent restart in this file.
  const std::string spool_path = ecfg.work_dir + "/spool.log";
  absl::StatusOr<std::unique_ptr<Spool>> spool = Spool::Open(spool_path);
  if (!spool.ok()) {
    return Fail(absl::StrCat("--work_dir: ", spool.status().message()));
  }
  Session session(scfg, platform, &executor, &clock, std::move(*spool));

  const v1::DeviceIdentity identity = platform->Identity();
  absl::StatusOr<std::unique_ptr<HttpServer>> metrics_server =
      StartMetricsPage(metrics_flags, [&, identity] {
        AgentStatus status;
        status.connected = session.connected();
        status.registrations = session.registrations();
        status.run_id = executor.ActiveRunId();
        status.spooled = static_cast<int64_t>(session.spooled());
        if (std::optional<v1::DeviceHealth> h = health.LastVerdict()) {
          status.healthy = h->healthy();
        }
        return RenderAgentMetrics(identity, status, reading.Get(),
                                  clock.MonotonicNanos());
      });
  if (!metrics_server.ok()) {
    return Fail(std::string(metrics_server.status().message()));
  }

  std::thread signals([&session, sigs] {
    int sig = 0;
    sigwait(&sigs, &sig);
    PS_LOG(INFO) << "received signal " << sig;
    session.Shutdown();
  });
  signals.detach();  // blocked in sigwait until a signal; ends with the process

  PS_LOG(INFO) << "device " << device_id << " ("
               << platform->Capabilities().cpu_cores() << " CPUs"
               << (agent.catalog.containers ? ", container runs" : "")
               << (agent.catalog.vms
                       ? absl::StrCat(", vm runs (", agent.catalog.vm_accel,
                                      agent.catalog.containers
                                          ? ", also container_in_vm"
                                          : "",
                                      ")")
                       : "")
               << "), controller " << scfg.controller
               << (scfg.credentials != nullptr ? " (TLS)" : " (plaintext)")
               << ", workload "
               << agent.workload_bin << ", work dir " << ecfg.work_dir;
  session.Run();
  if (*metrics_server != nullptr) (*metrics_server)->Stop();
  // Runs restore the board when they end (also when SIGTERM/SIGINT cancels
  // them); this covers a mode left applied by a run that never finished.
  if (platform_name == "jetson") platform->Restore();
  PS_LOG(INFO) << "stopped";
  return 0;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) {
  // Lock-order cycle detection walks a graph on every lock; tests keep it,
  // the long-running processes do not pay for it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::SetProgramUsageMessage(
      "powersweep-agent: executes powersweep runs on this device.\n"
      "Dials the controller's AgentGateway, registers this device, runs the\n"
      "assigned workloads (powersweep-workload) pinned to the requested\n"
      "cores, and streams minibatch records and telemetry back.\n"
      "Example: powersweep-agent --controller 10.0.0.5:7070 --device-id "
      "host-0 --cpus 0-3 --dataset fashion-mnist=/data/fashion-mnist\n"
      "\n"
      "  powersweep-agent probe [--platform P] [--sysfs-root DIR] ...\n"
      "prints what the agent finds on this device (identity, knobs with\n"
      "their current values and whether they can be set, rails and sensors,\n"
      "named modes, the custom mode space, one telemetry sample) and exits;\n"
      "it needs no controller and changes nothing.\n"
      "Flag names may be written with dashes or underscores.");
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "agent/main.cc");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);
  std::vector<std::string> args = powersweep::MergeRepeatedFlag(
      powersweep::UnderscoreFlagNames(argc, argv), "dataset");
  const bool probe = args.size() > 1 && args[1] == "probe";
  if (probe) args.erase(args.begin() + 1);
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  std::vector<char*> rest =
      absl::ParseCommandLine(static_cast<int>(cargs.size()), cargs.data());
  if (rest.size() > 1) {
    std::fprintf(stderr,
                 "powersweep-agent: unknown command \"%s\" (the only command "
                 "is \"probe\"; see --help)\n",
                 rest[1]);
    return 2;
  }
  return powersweep::Main(probe);
}
