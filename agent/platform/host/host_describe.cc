// HostPlatform::DescribeKnobs / DescribeSensors: what `powersweep-agent
// probe` prints about this machine. Reads current values; writes nothing.
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "agent/platform/host/host_platform.h"
#include "agent/telemetry/proc_file.h"

namespace powersweep {
namespace {

std::string Steps(const std::vector<int64_t>& table) {
  if (table.empty()) return "unknown maximum";
  return absl::StrCat(table.size(), " steps ", table.front(), "..",
                      table.back());
}

std::string FirstLineOf(const std::string& path) {
  ProcFile f(path);
  absl::StatusOr<std::string> text = f.Read();
  if (!text.ok()) return "";
  std::string line = text->substr(0, text->find('\n'));
  return std::string(absl::StripAsciiWhitespace(line));
}

}  // namespace

std::vector<KnobReport> HostPlatform::DescribeKnobs() {
  std::vector<KnobReport> out;
  KnobReport cores;
  cores.knob = "cpu_cores";
  cores.current = absl::StrCat(agent_cpus_.size(), " usable");
  cores.range = absl::StrCat("1..", agent_cpus_.size());
  cores.settable = true;
  cores.note = "CPU affinity of the workload";
  cores.provenance = v1::PROVENANCE_MEASURED;
  out.push_back(cores);

  KnobReport cpu;
  cpu.knob = "cpu_freq_khz";
  {
    absl::MutexLock lock(&mu_);
    cpu.range = Steps(freq_.Available());
    if (freq_.has_cpufreq()) {
      const std::string dir = absl::StrCat(
          options_.sys_root, "/devices/system/cpu/cpu", agent_cpus_.front(),
          "/cpufreq/");
      cpu.current = FirstLineOf(dir + "scaling_cur_freq");
      cpu.provenance = v1::PROVENANCE_MEASURED;
      cpu.settable = access((dir + "scaling_max_freq").c_str(), W_OK) == 0;
      cpu.note = cpu.settable ? "cpufreq scaling_max_freq"
                              : dir + "scaling_max_freq is not writable "
                                      "(run as root)";
    } else {
      cpu.current = absl::StrCat(freq_.max_khz(), " (no cpufreq: maximum)");
      cpu.provenance = v1::PROVENANCE_EMULATED;
      cpu.settable = freq_.max_khz() > 0 &&
                     access(options_.cgroup_root.c_str(), W_OK) == 0;
      cpu.note = cpu.settable
                     ? absl::StrCat("emulated by a CPU bandwidth quota in a "
                                    "cgroup under ", options_.cgroup_root)
                     : absl::StrCat(options_.cgroup_root,
                                    " is not writable: cannot emulate");
    }
  }
  out.push_back(cpu);
  absl::MutexLock lock(&mu_);
  if (gpu_ == nullptr) {
    for (const char* knob : {"gpu_power_limit_w", "gpu_freq_hz"}) {
      KnobReport k;
      k.knob = knob;
      k.note = gpu_note_;
      out.push_back(k);
    }
  } else {
    const NvmlGpuInfo& info = gpu_->info();
    KnobReport limit;
    limit.knob = "gpu_power_limit_w";
    if (absl::StatusOr<int64_t> mw = gpu_->PowerLimitMw(); mw.ok()) {
      limit.current = absl::StrCat(*mw / 1000.0);
    }
    limit.settable = gpu_knobs_->limit_settable();
    if (info.limit_max_mw > 0) {
      limit.range = absl::StrCat(gpu_knobs_->min_limit_w(), "..",
                                 gpu_knobs_->max_limit_w());
    }
    limit.note = limit.settable ? "nvmlDeviceSetPowerManagementLimit"
                 : !gpu_note_.empty() ? gpu_note_
                                      : "NVML reports no power limit";
    limit.provenance = v1::PROVENANCE_MEASURED;
    out.push_back(limit);
    KnobReport clock;
    clock.knob = "gpu_freq_hz";
    if (absl::StatusOr<int64_t> mhz = gpu_->SmClockMhz(); mhz.ok()) {
      clock.current = absl::StrCat(*mhz * 1'000'000);
    }
    clock.settable = gpu_knobs_->clock_settable();
    clock.range = Steps(info.SmClocksHz());
    clock.note = clock.settable
                     ? "locked SM clock, nvmlDeviceSetGpuLockedClocks"
                 : !gpu_note_.empty() ? gpu_note_
                                      : "NVML lists no supported SM clocks";
    clock.provenance = v1::PROVENANCE_MEASURED;
    out.push_back(clock);
  }
  KnobReport mem;
  mem.knob = "mem_freq_hz";
  mem.note = "not settable on a host";
  out.push_back(mem);
  return out;
}

std::vector<SensorReport> HostPlatform::DescribeSensors() {
  absl::MutexLock lock(&mu_);
  std::vector<SensorReport> out;
  if (rapl_ != nullptr) {
    out.push_back({"rapl", absl::StrCat("rail per domain (", rapl_->domains(),
                                        " domains)"),
                   options_.sys_root + "/class/powercap/intel-rapl:*/energy_uj",
                   v1::PROVENANCE_MEASURED});
  } else {
    out.push_back({"cpu-modeled",
                   gpu_ != nullptr ? "rail (CPU part of the total)"
                                   : "rail (board total)",
                   "model: agent/platform/host/power_model.h, from per-core "
                   "utilization and the set frequency",
                   v1::PROVENANCE_MODELED});
  }
  if (gpu_ != nullptr) {
    out.push_back({"gpu-nvml",
                   absl::StrCat("rail (GPU ", options_.nvml_gpu, ", ",
                                gpu_->info().name, ")"),
                   absl::StrCat("NVML nvmlDeviceGetPowerUsage (",
                                options_.nvml_library, ")"),
                   v1::PROVENANCE_MEASURED});
  }
  return out;
}

ProbeDetails HostPlatform::DescribeProbe() {
  ProbeDetails d;
  if (gpu_ == nullptr) {
    d.details.push_back({"GPU", gpu_note_});
    return d;
  }
  const NvmlGpuInfo& info = gpu_->info();
  d.details.push_back(
      {"GPU", absl::StrCat(info.index, ": ", info.name, " (NVML, ",
                           info.library, ")")});
  d.details.push_back({"GPU UUID", info.uuid});
  d.details.push_back({"NVIDIA driver", info.driver});
  if (!gpu_note_.empty()) {
    d.warnings.push_back(absl::StrCat("GPU knobs: ", gpu_note_));
  }
  return d;
}

}  // namespace powersweep
