// RaplReader: power from Intel RAPL energy counters through powercap
// (POWERCAP/intel-rapl:P/energy_uj for package P, intel-rapl:P:S for its
// subdomains, each with `name` and `max_energy_range_uj`).
//
// Power is the counter difference over the time between two reads
// (PROVENANCE_MEASURED); a counter that went down wrapped at
// max_energy_range_uj and is unwrapped. The first read after construction
// or Reset(), or a read whose time does not advance, gives no power. Every
// domain is a rail (named by its `name` file, e.g. "package-0", "core",
// "dram"); the total is the sum of the top-level domains (intel-rapl:P,
// which already include their core/uncore subdomains, so nothing is
// counted twice).
//
// Files are opened once and read with pread. Not thread-safe (one owner).
#ifndef POWERSWEEP_AGENT_PLATFORM_HOST_RAPL_H_
#define POWERSWEEP_AGENT_PLATFORM_HOST_RAPL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/telemetry/proc_file.h"

namespace powersweep {

struct RaplRail {
  std::string name;
  double power_mw = 0;
  bool top_level = false;
};

struct RaplPower {
  std::vector<RaplRail> rails;
  double total_mw = 0;
};

class RaplReader {
 public:
  // Domains under `powercap_dir` (e.g. /sys/class/powercap); none found or
  // none readable (energy_uj needs root on recent kernels) is NotFound
  // naming the directory or the file.
  static absl::StatusOr<RaplReader> Open(const std::string& powercap_dir);

  // Power since the previous Read at `t_s` (any monotonic seconds); empty
  // rails on the first read. Errors name the file.
  absl::StatusOr<RaplPower> Read(double t_s);
  void Reset() { have_prev_ = false; }
  size_t domains() const { return domains_.size(); }

 private:
  struct Domain {
    std::string name;
    bool top_level = false;
    int64_t max_range_uj = 0;
    ProcFile energy;
    int64_t prev_uj = 0;
  };
  std::vector<Domain> domains_;
  bool have_prev_ = false;
  double prev_t_s_ = 0;
};

// Energy counter difference with wraparound at `max_range_uj` (> 0).
int64_t EnergyDeltaUj(int64_t prev_uj, int64_t now_uj, int64_t max_range_uj);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_HOST_RAPL_H_
