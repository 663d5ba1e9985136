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
  for (const char* knob : {"gpu_freq_hz", "mem_freq_hz"}) {
    KnobReport k;
    k.knob = knob;
    k.note = "not settable on a host in this version (no NVML backend)";
    out.push_back(k);
  }
  return out;
}

std::vector<SensorReport> HostPlatform::DescribeSensors() {
  absl::MutexLock lock(&mu_);
  if (rapl_ != nullptr) {
    return {{"rapl", absl::StrCat("rail per domain (", rapl_->domains(),
                                  " domains)"),
             options_.sys_root + "/class/powercap/intel-rapl:*/energy_uj",
             v1::PROVENANCE_MEASURED}};
  }
  return {{"cpu-modeled", "rail (board total)",
           "model: agent/platform/host/power_model.h, from per-core "
           "utilization and the set frequency",
           v1::PROVENANCE_MODELED}};
}

}  // namespace powersweep
