// Power-mode space of each device class: the one source of the core counts
// and settable frequencies (CPU kHz, GPU Hz, memory/EMC Hz) that the
// controller validates sweeps against and that agents (jetson, twin)
// enumerate and apply.
//
// DeviceClassSpec is the data (built-in tables from
// /work/shared/reference/jetson-platform.md, "Frequency steps"); ModeSpace
// is the custom mode space of one class: every combination of online cores
// (1..cores), CPU, GPU and EMC frequency, enumerable by index:
//   index = ((core_i * n_cpu + cpu_i) * n_gpu + gpu_i) * n_mem + mem_i
// (cores outermost, memory frequency innermost; a knob with no table counts
// once and is 0 = "left as the device has it" in the enumerated modes).
// Xavier AGX: 8 x 29 x 14 x 9 = 29,232 modes.
//
// All types are immutable values; every function is pure and thread-safe.
#ifndef POWERSWEEP_COMMON_POWER_MODE_SPACE_H_
#define POWERSWEEP_COMMON_POWER_MODE_SPACE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace powersweep {

struct DeviceClassSpec {
  // "host", "nano", "orin-agx", "orin-nano", "orin-nx", "thor",
  // "xavier-agx", "xavier-nx".
  std::string name;
  // Cores of the board; 0 = varies per device (host: the agent reports it).
  int cpu_cores = 0;
  // First core of each CPU cluster (one cpufreq policy per cluster), e.g.
  // {0, 4, 8} on Orin AGX. Empty when not known (host).
  std::vector<int> cluster_first_cores;
  // Settable frequencies, ascending. Empty = not settable on this class.
  std::vector<int64_t> cpu_freqs_khz;
  std::vector<int64_t> gpu_freqs_hz;
  std::vector<int64_t> mem_freqs_hz;
};

// The built-in classes, sorted by name: host, nano, orin-agx, orin-nano,
// orin-nx, thor, xavier-agx, xavier-nx.
std::vector<DeviceClassSpec> BuiltInDeviceClasses();
// NotFound naming the class and listing the known ones.
absl::StatusOr<DeviceClassSpec> FindBuiltInDeviceClass(const std::string& name);

// One point of a custom mode space. A zero knob: not set (as the device has
// it).
struct CustomMode {
  int cpu_cores = 0;
  int64_t cpu_freq_khz = 0;
  int64_t gpu_freq_hz = 0;
  int64_t mem_freq_hz = 0;
  bool operator==(const CustomMode& o) const {
    return cpu_cores == o.cpu_cores && cpu_freq_khz == o.cpu_freq_khz &&
           gpu_freq_hz == o.gpu_freq_hz && mem_freq_hz == o.mem_freq_hz;
  }
};

// The table values bracketing `value`: the largest below and the smallest
// above, or `value` alone when it is in the table. Empty for an empty table.
std::vector<int64_t> NearestValues(const std::vector<int64_t>& table,
                                   int64_t value);
// The single closest table value (the lower one on a tie); 0 for an empty
// table.
int64_t ClosestValue(const std::vector<int64_t>& table, int64_t value);

class ModeSpace {
 public:
  // `device_cores` is used when spec.cpu_cores is 0 (host): the cores the
  // device reports. Tables are sorted and de-duplicated here.
  explicit ModeSpace(DeviceClassSpec spec, int device_cores = 0);

  const DeviceClassSpec& spec() const { return spec_; }
  int cores() const { return cores_; }

  // Number of modes: cores x |cpu| x |gpu| x |mem| (empty tables count 1).
  // 0 when the class has no known core count.
  int64_t Size() const;
  // OutOfRange when index is not in [0, Size()).
  absl::StatusOr<CustomMode> At(int64_t index) const;
  // InvalidArgument (see Check) when `mode` is not a point of the space; a
  // mode must set cores and every knob the class can set.
  absl::StatusOr<int64_t> IndexOf(const CustomMode& mode) const;
  // Calls fn for every mode in index order; stops early when fn is false.
  void ForEach(const std::function<bool(const CustomMode&)>& fn) const;

  // Checks each knob that is set (non-zero) against the class, one line per
  // problem, with the field names of v1::PowerMode, e.g.
  //   "gpu_freq_hz: 500000000 is not a frequency of xavier-agx (nearest:
  //    420750000, 522750000)"
  //   "cpu_cores: 16 is more than the 12 cores of orin-agx"
  //   "cpu_freq_khz: not settable on class host in this version"
  //   "cpu_cores: must not be negative (0 leaves it as the device has it),
  //    got -1"
  std::vector<std::string> Problems(const CustomMode& mode) const;
  // OK, or InvalidArgument with Problems() joined by "; ".
  absl::Status Check(const CustomMode& mode) const;

 private:
  DeviceClassSpec spec_;
  int cores_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_POWER_MODE_SPACE_H_
