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
  OpenGpu();
}

void HostPlatform::OpenGpu() {
  if (options_.nvml_library.empty()) {
    gpu_note_ = "no NVML (--nvml_library is empty)";
    return;
  }
  absl::StatusOr<std::unique_ptr<NvmlGpu>> gpu =
      NvmlGpu::Open(options_.nvml_library, options_.nvml_gpu);
  if (!gpu.ok()) {
    gpu_note_ = absl::StrCat("no NVML: ", gpu.status().message());
    return;
  }
  gpu_ = *std::move(gpu);
  if (!options_.gpu_restore_path.empty()) {
    std::vector<std::string> notes;
    absl::Status restored = HostGpuKnobs::RestoreFromFile(
        *gpu_, options_.gpu_restore_path, &notes);
    for (const std::string& n : notes) PS_LOG(WARNING) << n;
    if (!restored.ok()) PS_LOG(ERROR) << restored.message();
  }
  absl::MutexLock lock(&mu_);
  gpu_knobs_ =
      std::make_unique<HostGpuKnobs>(gpu_.get(), options_.gpu_restore_path);
  gpu_note_ = gpu_knobs_->not_settable();
  PS_LOG(INFO) << "GPU " << options_.nvml_gpu << ": " << gpu_->info().name
               << " through NVML (" << options_.nvml_library << ")"
               << (gpu_note_.empty() ? "" : "; knobs: " + gpu_note_);
}

HostPlatform::~HostPlatform() {
  absl::MutexLock lock(&mu_);
  if (gpu_knobs_ != nullptr) gpu_knobs_->Restore();
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
  absl::MutexLock lock(&mu_);
  for (int64_t khz : freq_.Available()) caps.add_cpu_freqs_khz(khz);
  caps.set_gpu_note(gpu_note_);
  if (gpu_ == nullptr) return caps;
  caps.set_gpu_name(gpu_->info().name);
  if (gpu_knobs_->clock_settable()) {
    for (int64_t hz : gpu_->info().SmClocksHz()) caps.add_gpu_freqs_hz(hz);
  }
  if (gpu_knobs_->limit_settable()) {
    caps.set_gpu_power_limit_min_w(gpu_knobs_->min_limit_w());
    caps.set_gpu_power_limit_max_w(gpu_knobs_->max_limit_w());
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
  if (gpu_ == nullptr) {
    for (const auto& [field, value] :
         {std::pair<const char*, int64_t>{"gpu_freq_hz", mode.gpu_freq_hz()},
          {"gpu_power_limit_w", mode.gpu_power_limit_w()}}) {
      if (value != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ": this host has no GPU knobs: ", gpu_note_));
      }
    }
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
  // The GPU's values are checked before anything changes.
  if (gpu_knobs_ != nullptr) {
    PS_RETURN_IF_ERROR(
        gpu_knobs_->Check(mode.gpu_power_limit_w(), mode.gpu_freq_hz()));
  }
  PS_ASSIGN_OR_RETURN(FrequencySetting freq,
                      freq_.Set(mode.cpu_freq_khz(), cpus));
  if (mode.cpu_freq_khz() != 0) {
    applied.mutable_actual()->set_cpu_freq_khz(freq.actual_khz);
    applied.set_cpu_freq_provenance(freq.provenance);
    if (!freq.note.empty()) applied.add_notes(freq.note);
  }
  if (gpu_knobs_ != nullptr) {
    absl::StatusOr<GpuKnobSetting> gpu = gpu_knobs_->Apply(
        mode.gpu_power_limit_w(), mode.gpu_freq_hz());
    if (!gpu.ok()) {
      freq_.Restore();
      return gpu.status();
    }
    applied.mutable_actual()->set_gpu_power_limit_w(gpu->power_limit_w);
    applied.mutable_actual()->set_gpu_freq_hz(gpu->sm_clock_hz);
    for (const std::string& n : gpu->notes) applied.add_notes(n);
    if (mode.gpu_power_limit_w() != 0 || mode.gpu_freq_hz() != 0) {
      applied.add_notes(absl::StrCat("GPU knobs set through NVML on ",
                                     gpu_->info().name));
    }
  }
  const std::string cpu_power = rapl_ != nullptr
                                    ? "RAPL energy counters (measured)"
                                    : "modeled from CPU utilization and "
                                      "frequency (no RAPL)";
  applied.add_notes(
      gpu_ != nullptr
          ? absl::StrCat("power: GPU from NVML (measured) + CPU ", cpu_power)
          : absl::StrCat("power: CPU ", cpu_power, "; no GPU (", gpu_note_,
                         ")"));
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
  SampleCpuPower(sample);
  const double gpu_mw = SampleGpu(sample);
  // The total needs the CPU part: without it (RAPL's first read) there is
  // no total, only the GPU's rail.
  if (gpu_mw > 0 && sample->power_mw() > 0) {
    sample->set_power_mw(sample->power_mw() + gpu_mw);
  }
}

double HostPlatform::SampleGpu(v1::TelemetrySample* sample) {
  if (gpu_ == nullptr) return 0;
  NvmlReading r = gpu_->Read();
  if (gpu_->lost()) {
    if (!gpu_lost_logged_) {
      PS_LOG(WARNING) << "GPU " << options_.nvml_gpu << " (" <<
          gpu_->info().name << ") is lost (NVML_ERROR_GPU_IS_LOST): its "
          "power and clocks are no longer sampled";
      gpu_lost_logged_ = true;
    }
    return 0;
  }
  if (r.sm_clock_hz) sample->set_gpu_freq_hz(*r.sm_clock_hz);
  if (r.util) sample->set_gpu_util(*r.util);
  if (r.mem_clock_hz) sample->set_mem_freq_hz(*r.mem_clock_hz);
  if (r.mem_used_bytes) sample->set_gpu_mem_used_bytes(*r.mem_used_bytes);
  if (r.temperature_c) {
    v1::Temperature* t = sample->add_temperatures();
    t->set_name("GPU");
    t->set_celsius(*r.temperature_c);
  }
  if (!r.power_mw) return 0;
  v1::RailSample* rail = sample->add_rails();
  rail->set_name("gpu-nvml");
  rail->set_power_mw(*r.power_mw);
  rail->set_provenance(v1::PROVENANCE_MEASURED);
  return *r.power_mw;
}

void HostPlatform::StartRunEnergyCounter() {
  absl::MutexLock lock(&mu_);
  run_start_gpu_j_.reset();
  if (gpu_ == nullptr) return;
  absl::StatusOr<double> j = gpu_->EnergyJ();
  if (j.ok()) run_start_gpu_j_ = *j;
}

double HostPlatform::StopRunEnergyCounter() {
  absl::MutexLock lock(&mu_);
  if (gpu_ == nullptr || !run_start_gpu_j_) return 0;
  absl::StatusOr<double> j = gpu_->EnergyJ();
  const double start = *run_start_gpu_j_;
  run_start_gpu_j_.reset();
  if (!j.ok() || *j < start) return 0;
  return *j - start;
}

void HostPlatform::FillGpuProvenance(v1::GpuProvenance* gpu) {
  if (gpu_ == nullptr) return;
  const NvmlGpuInfo& info = gpu_->info();
  gpu->set_name(info.name);
  gpu->set_compute_capability(info.compute_capability);
  gpu->set_driver_version(info.driver);
}

void HostPlatform::SampleCpuPower(v1::TelemetrySample* sample) {
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
  if (gpu_knobs_ != nullptr) {
    for (const std::string& failed : gpu_knobs_->Restore()) {
      PS_LOG(ERROR) << "cannot restore the GPU: " << failed;
    }
  }
  run_cpus_ = agent_cpus_;
}

}  // namespace powersweep
