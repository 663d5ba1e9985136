#include "controller/modeling/class_space.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/power/preset.h"
#include "common/power_mode_text.h"
#include "common/status_macros.h"
#include "controller/modeling/model_proto.h"

namespace powersweep::modeling {
namespace {

constexpr char kHost[] = "host";

int64_t MaxOf(const std::vector<int64_t>& table) {
  return table.empty() ? 0 : *std::max_element(table.begin(), table.end());
}

// The highest step at or under `cap` (the lowest step when all are above);
// kNoCap or unset: the maximum. 0 for an empty table.
int64_t StepUnderCap(const std::vector<int64_t>& table, int64_t cap) {
  if (table.empty()) return 0;
  if (cap <= 0) return MaxOf(table);
  int64_t best = 0;
  for (int64_t f : table) {
    if (f <= cap) best = std::max(best, f);
  }
  return best > 0 ? best : *std::min_element(table.begin(), table.end());
}

// Knobs set (non-zero) in `over` replace those of `base`.
CustomMode Override(CustomMode base, const CustomMode& over) {
  if (over.cpu_cores != 0) base.cpu_cores = over.cpu_cores;
  if (over.cpu_freq_khz != 0) base.cpu_freq_khz = over.cpu_freq_khz;
  if (over.gpu_freq_hz != 0) base.gpu_freq_hz = over.gpu_freq_hz;
  if (over.mem_freq_hz != 0) base.mem_freq_hz = over.mem_freq_hz;
  return base;
}

}  // namespace

absl::StatusOr<ModeSpace> ClassSpace(
    const std::string& device_class, const PowerCatalog& catalog,
    const std::vector<v1::DeviceCapabilities>& devices,
    const std::vector<CustomMode>& observed) {
  if (device_class != kHost) return catalog.Space(device_class);
  DeviceClassSpec spec;
  spec.name = kHost;
  for (const v1::DeviceCapabilities& d : devices) {
    spec.cpu_cores = std::max(spec.cpu_cores, d.cpu_cores());
    for (int64_t f : d.cpu_freqs_khz()) {
      if (f > 0) spec.cpu_freqs_khz.push_back(f);
    }
    // A GPU's SM clocks it can lock (NVML; agent/platform/host).
    for (int64_t f : d.gpu_freqs_hz()) {
      if (f > 0) spec.gpu_freqs_hz.push_back(f);
    }
  }
  for (const CustomMode& m : observed) {
    spec.cpu_cores = std::max(spec.cpu_cores, m.cpu_cores);
    if (m.cpu_freq_khz > 0) spec.cpu_freqs_khz.push_back(m.cpu_freq_khz);
    if (m.gpu_freq_hz > 0) spec.gpu_freqs_hz.push_back(m.gpu_freq_hz);
  }
  if (spec.cpu_cores <= 0) {
    return absl::FailedPreconditionError(
        "host: the core count of the mode space is not known (no registered "
        "host device and no run that reports its cores)");
  }
  return ModeSpace(std::move(spec));  // sorts and de-duplicates the table
}

CustomMode FillToMaximum(const CustomMode& mode, const ModeSpace& space) {
  const DeviceClassSpec& s = space.spec();
  CustomMode out = mode;
  if (out.cpu_cores == 0) out.cpu_cores = space.cores();
  if (s.cpu_freqs_khz.empty()) {
    out.cpu_freq_khz = 0;
  } else if (out.cpu_freq_khz == 0) {
    out.cpu_freq_khz = MaxOf(s.cpu_freqs_khz);
  }
  if (s.gpu_freqs_hz.empty()) {
    out.gpu_freq_hz = 0;
  } else if (out.gpu_freq_hz == 0) {
    out.gpu_freq_hz = MaxOf(s.gpu_freqs_hz);
  }
  if (s.mem_freqs_hz.empty()) {
    out.mem_freq_hz = 0;
  } else if (out.mem_freq_hz == 0) {
    out.mem_freq_hz = MaxOf(s.mem_freqs_hz);
  }
  return out;
}

absl::StatusOr<CustomMode> ResolvePreset(const std::string& name,
                                         const ModeSpace& space,
                                         const PowerCatalog& catalog) {
  PS_ASSIGN_OR_RETURN(PresetMode p,
                      catalog.FindPreset(space.spec().name, name));
  const DeviceClassSpec& s = space.spec();
  CustomMode m;
  m.cpu_cores =
      p.cpu_cores > 0 ? std::min(p.cpu_cores, space.cores()) : space.cores();
  m.cpu_freq_khz = StepUnderCap(s.cpu_freqs_khz, p.cpu_max_khz);
  m.gpu_freq_hz = StepUnderCap(s.gpu_freqs_hz, p.gpu_max_hz);
  m.mem_freq_hz = StepUnderCap(s.mem_freqs_hz, p.mem_max_hz);
  return m;
}

absl::StatusOr<CustomMode> ResolveQueryMode(const v1::PowerMode& mode,
                                            const ModeSpace& space,
                                            const PowerCatalog& catalog) {
  CustomMode base;
  if (!mode.preset().empty()) {
    PS_ASSIGN_OR_RETURN(CustomMode p,
                        ResolvePreset(mode.preset(), space, catalog));
    base = p;
  }
  const CustomMode m = FillToMaximum(Override(base, KnobsOf(mode)), space);
  absl::Status why = space.Check(KnobsOf(mode));  // names what was asked
  if (why.ok()) why = space.Check(m);
  if (why.ok()) why = space.IndexOf(m).status();
  if (!why.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mode ", mode.preset().empty() ? "" : mode.preset() + " ",
        PowerModeText(ToPowerMode(KnobsOf(mode)), "as the device has it"),
        " is not a mode of ", space.spec().name, ": ", why.message()));
  }
  return m;
}

absl::StatusOr<CustomMode> RunMode(const v1::RunSpec& spec,
                                   const v1::RunResult* result,
                                   const PowerCatalog& catalog,
                                   const v1::DeviceCapabilities* device) {
  const std::string& cls = spec.device_class();
  const bool applied = result != nullptr && result->has_applied_mode() &&
                       result->applied_mode().has_actual();
  CustomMode m;
  if (cls == kHost) {
    if (spec.power_mode().gpu_power_limit_w() != 0) {
      return absl::InvalidArgumentError(
          "gpu_power_limit_w: the time and energy models do not take a GPU "
          "power limit in this version (sweep locked SM clocks, "
          "gpu_freq_hz, to model a host GPU)");
    }
    // Presets do not exist on host; the actual cores, CPU frequency and
    // locked SM clock (an unlocked GPU boosts up to its highest clock).
    m = KnobsOf(applied ? result->applied_mode().actual() : spec.power_mode());
    m.mem_freq_hz = 0;
    if (spec.power_mode().gpu_freq_hz() == 0) m.gpu_freq_hz = 0;
    if (device != nullptr) {
      if (m.cpu_cores == 0) m.cpu_cores = device->cpu_cores();
      if (m.cpu_freq_khz == 0) {
        for (int64_t f : device->cpu_freqs_khz()) {
          m.cpu_freq_khz = std::max(m.cpu_freq_khz, f);
        }
      }
      if (m.gpu_freq_hz == 0) {
        for (int64_t f : device->gpu_freqs_hz()) {
          m.gpu_freq_hz = std::max(m.gpu_freq_hz, f);
        }
      }
    }
    return m;
  }
  PS_ASSIGN_OR_RETURN(ModeSpace space, catalog.Space(cls));
  if (applied) {
    m = KnobsOf(result->applied_mode().actual());
  } else {
    const v1::PowerMode& req = spec.power_mode();
    if (!req.preset().empty()) {
      PS_ASSIGN_OR_RETURN(CustomMode p,
                          ResolvePreset(req.preset(), space, catalog));
      m = Override(p, KnobsOf(req));
    } else {
      m = KnobsOf(req);
    }
  }
  return FillToMaximum(m, space);
}

DefaultMode DefaultModeOf(const ModeSpace& space, const PowerCatalog& catalog) {
  absl::StatusOr<CustomMode> maxn = ResolvePreset("MAXN", space, catalog);
  if (maxn.ok()) return DefaultMode{"MAXN", *maxn};
  return DefaultMode{"all knobs at maximum",
                     FillToMaximum(CustomMode{}, space)};
}

}  // namespace powersweep::modeling
