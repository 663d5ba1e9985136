#include "agent/platform/host/host_platform.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "agent/telemetry/proc_readers.h"

namespace powersweep {

namespace {

std::vector<int> AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

std::string ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

}  // namespace

absl::StatusOr<std::unique_ptr<HostPlatform>> HostPlatform::Create(
    HostPlatformOptions options) {
  std::vector<int> allowed = options.allowed_cpus.empty()
                                 ? AffinityCpus()
                                 : options.allowed_cpus;
  std::vector<int> agent_cpus = allowed;
  if (!options.cpus.empty()) {
    absl::StatusOr<std::vector<int>> wanted = ParseCpuList(options.cpus);
    if (!wanted.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--cpus: ", wanted.status().message()));
    }
    agent_cpus.clear();
    for (int c : *wanted) {
      if (std::find(allowed.begin(), allowed.end(), c) == allowed.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--cpus: CPU ", c, " is not in the agent's allowed set [",
            absl::StrJoin(allowed, ","), "]"));
      }
      agent_cpus.push_back(c);
    }
  }
  if (agent_cpus.empty()) {
    return absl::InvalidArgumentError("--cpus: no CPU left for runs");
  }
  return std::unique_ptr<HostPlatform>(
      new HostPlatform(std::move(options), std::move(agent_cpus)));
}

HostPlatform::HostPlatform(HostPlatformOptions options,
                           std::vector<int> agent_cpus)
    : options_(std::move(options)), agent_cpus_(std::move(agent_cpus)) {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  utsname u;
  std::string kernel;
  if (uname(&u) == 0) kernel = u.release;
  identity_.set_device_id(options_.device_id.empty() ? host
                                                     : options_.device_id);
  identity_.set_device_class("host");
  identity_.set_platform("host");
  identity_.set_hostname(host);
  identity_.set_kernel(kernel);
  identity_.set_serial(ReadFirstLine(options_.machine_id_path));
  identity_.set_agent_version(options_.agent_version);
  absl::StatusOr<MemInfo> mem = MeminfoReader(options_.proc_root).Read();
  if (mem.ok()) memory_bytes_ = mem->total_bytes;
  run_cpus_ = agent_cpus_;
}

v1::DeviceIdentity HostPlatform::Identity() const { return identity_; }

v1::DeviceCapabilities HostPlatform::Capabilities() const {
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(static_cast<int32_t>(agent_cpus_.size()));
  caps.set_memory_bytes(memory_bytes_);
  caps.add_runtimes(v1::RUNTIME_NATIVE);
  for (const std::string& m : options_.catalog.models) caps.add_models(m);
  for (const auto& [name, path] : options_.catalog.datasets) {
    caps.add_datasets(name);
  }
  return caps;
}

absl::StatusOr<v1::AppliedPowerMode> HostPlatform::Apply(
    const v1::PowerMode& mode) {
  if (!mode.preset().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "preset: \"", mode.preset(),
        "\" not available on the host platform in this version"));
  }
  if (mode.cpu_freq_khz() != 0) {
    return absl::InvalidArgumentError(
        "cpu_freq_khz: not settable on the host platform in this version");
  }
  if (mode.gpu_freq_hz() != 0) {
    return absl::InvalidArgumentError(
        "gpu_freq_hz: not settable on the host platform in this version");
  }
  if (mode.mem_freq_hz() != 0) {
    return absl::InvalidArgumentError(
        "mem_freq_hz: not settable on the host platform in this version");
  }
  const int n = mode.cpu_cores();
  if (n < 0 || n > static_cast<int>(agent_cpus_.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpu_cores: ", n, " requested but this agent has ",
        agent_cpus_.size(), " CPUs [", absl::StrJoin(agent_cpus_, ","), "]"));
  }
  std::vector<int> cpus(agent_cpus_.begin(),
                        agent_cpus_.begin() + (n == 0 ? agent_cpus_.size()
                                                      : static_cast<size_t>(n)));
  v1::AppliedPowerMode applied;
  *applied.mutable_requested() = mode;
  applied.mutable_actual()->set_cpu_cores(static_cast<int32_t>(cpus.size()));
  applied.set_cores_provenance(v1::PROVENANCE_MEASURED);
  applied.set_cpu_freq_provenance(v1::PROVENANCE_UNSPECIFIED);
  applied.add_notes(absl::StrCat("workload pinned to CPUs ",
                                 absl::StrJoin(cpus, ","),
                                 " by affinity"));
  absl::MutexLock lock(&mu_);
  run_cpus_ = std::move(cpus);
  return applied;
}

std::vector<int> HostPlatform::RunCpus() const {
  absl::MutexLock lock(&mu_);
  return run_cpus_;
}

void HostPlatform::Sample(const std::vector<int>& cpus,
                          v1::TelemetrySample* sample) {
  absl::MutexLock lock(&mu_);
  for (size_t i = 0; i < cpus.size() && i < static_cast<size_t>(
                                              sample->cores_size());
       ++i) {
    auto it = freq_files_.find(cpus[i]);
    if (it == freq_files_.end()) {
      it = freq_files_
               .emplace(cpus[i],
                        ProcFile(absl::StrCat(options_.sys_root,
                                              "/devices/system/cpu/cpu",
                                              cpus[i],
                                              "/cpufreq/scaling_cur_freq")))
               .first;
    }
    absl::StatusOr<std::string> text = it->second.Read();
    int64_t khz = 0;
    if (text.ok() &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &khz)) {
      sample->mutable_cores(static_cast<int>(i))->set_freq_khz(khz);
    }
  }
  sample->set_power_mw(0);
  sample->set_power_provenance(v1::PROVENANCE_UNSPECIFIED);
}

void HostPlatform::Restore() {
  absl::MutexLock lock(&mu_);
  run_cpus_ = agent_cpus_;
}

}  // namespace powersweep
