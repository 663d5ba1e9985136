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
#include "agent/run/catalog.h"
#include "agent/telemetry/proc_readers.h"
#include "common/log.h"
#include "common/status_macros.h"

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

HostCpuFrequencyOptions FreqOptions(const HostPlatformOptions& o,
                                    const std::string& device_id) {
  HostCpuFrequencyOptions f;
  f.sys_root = o.sys_root;
  f.proc_root = o.proc_root;
  f.cgroup_root = o.cgroup_root;
  f.cgroup_name = "powersweep-" + device_id;
  f.max_khz = o.max_cpu_khz;
  return f;
}

std::string Hostname() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return host;
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
    : options_(std::move(options)),
      agent_cpus_(std::move(agent_cpus)),
      freq_(FreqOptions(options_, options_.device_id.empty()
                                      ? Hostname()
                                      : options_.device_id),
            agent_cpus_) {
  const std::string host = Hostname();
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
  if (options_.use_rapl) {
    absl::StatusOr<RaplReader> rapl =
        RaplReader::Open(options_.sys_root + "/class/powercap");
    if (rapl.ok()) rapl_ = std::make_unique<RaplReader>(*std::move(rapl));
  }
}

std::string HostPlatform::PowerSource() const {
  absl::MutexLock lock(&mu_);
  if (rapl_ != nullptr) return absl::StrCat("rapl (", rapl_->domains(), " domains)");
  return "modeled";
}

v1::DeviceIdentity HostPlatform::Identity() const { return identity_; }

v1::DeviceCapabilities HostPlatform::Capabilities() const {
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(static_cast<int32_t>(agent_cpus_.size()));
  caps.set_memory_bytes(memory_bytes_);
  {
    absl::MutexLock lock(&mu_);
    for (int64_t khz : freq_.Available()) caps.add_cpu_freqs_khz(khz);
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
  PS_ASSIGN_OR_RETURN(FrequencySetting freq,
                      freq_.Set(mode.cpu_freq_khz(), cpus));
  if (mode.cpu_freq_khz() != 0) {
    applied.mutable_actual()->set_cpu_freq_khz(freq.actual_khz);
    applied.set_cpu_freq_provenance(freq.provenance);
    if (!freq.note.empty()) applied.add_notes(freq.note);
  }
  applied.add_notes(rapl_ != nullptr
                        ? "power: RAPL energy counters (measured)"
                        : "power: modeled from CPU utilization and frequency "
                          "(no RAPL or NVML)");
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
    // A CPU without cpufreq is not retried on every sample (one failed
    // open per core per sample was most of the sampler's syscalls here).
    if (no_freq_file_.count(cpus[i]) > 0) continue;
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
    if (absl::IsNotFound(text.status())) {
      no_freq_file_.insert(cpus[i]);
      freq_files_.erase(it);
      continue;
    }
    int64_t khz = 0;
    if (text.ok() &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &khz)) {
      sample->mutable_cores(static_cast<int>(i))->set_freq_khz(khz);
    }
  }
  if (freq_.emulated()) {
    for (v1::CoreSample& c : *sample->mutable_cores()) {
      c.set_freq_khz(freq_.set_khz());
    }
  }
  SamplePower(sample);
}

void HostPlatform::SamplePower(v1::TelemetrySample* sample) {
  // A sample time that does not advance is a new run (t_s restarts).
  if (sample->t_s() <= last_sample_t_s_ && rapl_ != nullptr) rapl_->Reset();
  last_sample_t_s_ = sample->t_s();
  if (rapl_ != nullptr) {
    absl::StatusOr<RaplPower> p = rapl_->Read(sample->t_s());
    if (p.ok()) {
      for (const RaplRail& r : p->rails) {
        v1::RailSample* rail = sample->add_rails();
        rail->set_name(r.name);
        rail->set_power_mw(r.power_mw);
        rail->set_provenance(v1::PROVENANCE_MEASURED);
      }
      sample->set_power_mw(p->total_mw);
      sample->set_power_provenance(p->rails.empty()
                                       ? v1::PROVENANCE_UNSPECIFIED
                                       : v1::PROVENANCE_MEASURED);
      return;
    }
    PS_LOG(WARNING) << "RAPL unreadable, power is modeled from now on: "
                    << p.status().message();
    rapl_.reset();
  }
  std::vector<CoreLoad> loads;
  const double max_khz = static_cast<double>(freq_.max_khz());
  for (int i = 0; i < sample->cores_size(); ++i) {
    CoreLoad load;
    load.util = sample->cores(i).util();
    load.emulated = freq_.emulated();
    const double khz = static_cast<double>(sample->cores(i).freq_khz());
    if (max_khz > 0 && khz > 0) load.freq_ratio = khz / max_khz;
    loads.push_back(load);
  }
  const double mw = ModeledPowerMw(loads, options_.power_model);
  v1::RailSample* rail = sample->add_rails();
  rail->set_name("cpu-modeled");
  rail->set_power_mw(mw);
  rail->set_provenance(v1::PROVENANCE_MODELED);
  sample->set_power_mw(mw);
  sample->set_power_provenance(v1::PROVENANCE_MODELED);
}

absl::Status HostPlatform::AttachWorkload(int pid) {
  absl::MutexLock lock(&mu_);
  return freq_.AttachWorkload(pid);
}

void HostPlatform::Restore() {
  absl::MutexLock lock(&mu_);
  freq_.Restore();
  run_cpus_ = agent_cpus_;
}

}  // namespace powersweep
