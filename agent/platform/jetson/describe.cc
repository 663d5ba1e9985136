// JetsonPlatform::DescribeKnobs / DescribeSensors: what `powersweep-agent
// probe` prints about a board. Reads current values; writes nothing.
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "agent/platform/jetson/jetson_platform.h"

namespace powersweep {
namespace jetson {
namespace {

std::string Current(SysfsIo& io, const std::string& path) {
  absl::StatusOr<std::string> text = io.Read(path);
  if (!text.ok()) return "";
  return std::string(absl::StripAsciiWhitespace(*text));
}

std::string Steps(const std::vector<int64_t>& table) {
  if (table.empty()) return "no table";
  return absl::StrCat(table.size(), " steps ", table.front(), "..",
                      table.back());
}

// Settable when every file is writable; else the first error (names the
// file: missing debugfs, or not root).
void Writable(SysfsIo& io, const std::vector<std::string>& files,
              KnobReport* knob) {
  for (const std::string& f : files) {
    absl::Status s = io.CheckWritable(f);
    if (!s.ok()) {
      knob->settable = false;
      knob->note = std::string(s.message());
      return;
    }
  }
  knob->settable = true;
}

std::string CpuRange(const std::vector<int>& cpus) {
  if (cpus.empty()) return "";
  return cpus.size() == 1 ? absl::StrCat("cpu", cpus.front())
                          : absl::StrCat("cpu", cpus.front(), "-", cpus.back());
}

}  // namespace

std::vector<KnobReport> JetsonPlatform::DescribeKnobs() {
  absl::MutexLock lock(&mu_);
  std::vector<KnobReport> out;
  const int ncpu = static_cast<int>(board_.cpus.size());

  KnobReport cores;
  cores.knob = "cpu_cores";
  cores.current = absl::StrCat(OnlineCpus(*io_, board_).size(), " online");
  cores.range = absl::StrCat("1..", ncpu);
  cores.provenance = v1::PROVENANCE_MEASURED;
  std::vector<std::string> online_files;
  for (int cpu : board_.cpus) {
    if (cpu != 0) online_files.push_back(BoardInfo::OnlinePath(cpu));
  }
  Writable(*io_, online_files, &cores);
  if (cores.settable) cores.note = "cpuN/online";
  out.push_back(cores);

  for (const CpuCluster& c : board_.clusters) {
    KnobReport k;
    k.knob = absl::StrCat("cpu_freq_khz ", CpuRange(c.cpus));
    k.current = Current(*io_, c.cpufreq_dir + "/scaling_cur_freq");
    k.range = Steps(c.freqs_khz);
    k.provenance = v1::PROVENANCE_MEASURED;
    Writable(*io_,
             {c.cpufreq_dir + "/scaling_min_freq",
              c.cpufreq_dir + "/scaling_max_freq"},
             &k);
    if (k.settable) k.note = "scaling_min_freq = scaling_max_freq";
    out.push_back(k);
  }

  KnobReport gpu;
  gpu.knob = "gpu_freq_hz";
  gpu.provenance = v1::PROVENANCE_MEASURED;
  if (board_.gpu.present) {
    gpu.current = Current(*io_, board_.gpu.devfreq_dir + "/cur_freq");
    gpu.range = Steps(board_.gpu.freqs_hz);
    Writable(*io_,
             {board_.gpu.devfreq_dir + "/min_freq",
              board_.gpu.devfreq_dir + "/max_freq", board_.gpu.power_control},
             &gpu);
    if (gpu.settable) {
      gpu.note = absl::StrCat("devfreq ", board_.gpu.devfreq_dir);
    }
  } else {
    gpu.note = "no GPU devfreq node found";
  }
  out.push_back(gpu);

  KnobReport emc;
  emc.knob = "mem_freq_hz";
  emc.provenance = v1::PROVENANCE_MEASURED;
  emc.range = board_.emc.rates_hz.empty()
                  ? "no table"
                  : absl::StrCat(Steps(board_.emc.rates_hz),
                                 board_.emc.rates_from_board ? ""
                                                             : " (class table)");
  if (board_.emc.present && board_.emc.devfreq()) {
    emc.current = Current(*io_, board_.emc.RatePath());
    Writable(*io_,
             {board_.emc.devfreq_dir + "/min_freq",
              board_.emc.devfreq_dir + "/max_freq"},
             &emc);
    if (emc.settable) emc.note = "bwmgr devfreq min/max, pinned";
  } else if (board_.emc.present) {
    emc.current = Current(*io_, board_.emc.Path("rate"));
    Writable(*io_,
             {board_.emc.Path("mrq_rate_locked"), board_.emc.Path("state"),
              board_.emc.Path("rate")},
             &emc);
    if (emc.settable) emc.note = "BPMP debugfs emc rate, locked";
  } else {
    emc.note = absl::StrCat(io_->Resolve(board_.emc.Path("rate")),
                            " is missing (debugfs not mounted, or secure "
                            "boot)");
  }
  out.push_back(emc);
  return out;
}

std::vector<SensorReport> JetsonPlatform::DescribeSensors() {
  std::vector<SensorReport> out;
  for (size_t i = 0; i < board_.rails.size(); ++i) {
    const Rail& r = board_.rails[i];
    SensorReport s;
    s.name = r.name;
    s.kind = static_cast<int>(i) == board_.total_rail ? "rail (board total)"
                                                       : "rail";
    if (!r.monitor.empty()) s.kind += ", " + r.monitor;
    s.source = r.power_path.empty() ? r.voltage_path + " x " + r.current_path
                                    : r.power_path;
    s.provenance = v1::PROVENANCE_MEASURED;
    out.push_back(s);
  }
  if (board_.total_rail < 0 && !board_.rails.empty()) {
    out.push_back({"total", "sum of the rails (no input rail)", "rails above",
                   v1::PROVENANCE_MEASURED});
  }
  for (const ThermalZone& z : board_.thermal) {
    out.push_back({z.name,
                   z.gated ? "thermal (power-gated now: a gap until it "
                             "answers)"
                           : "thermal",
                   z.temp_path, v1::PROVENANCE_MEASURED});
  }
  if (!board_.gpu.load_path.empty()) {
    out.push_back({"gpu", "load (per mille)", board_.gpu.load_path,
                   v1::PROVENANCE_MEASURED});
  }
  if (board_.emc.present) {
    out.push_back({"emc", "clock rate", board_.emc.RatePath(),
                   v1::PROVENANCE_MEASURED});
  }
  return out;
}

}  // namespace jetson
}  // namespace powersweep
