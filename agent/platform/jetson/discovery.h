// Discovery of a Jetson board through SysfsIo: identity (class from the
// chip id and the device-tree model, serial, L4T release, kernel), CPUs and
// their cpufreq clusters, the GPU devfreq node, INA3221 rails (hwmon on
// JetPack 5/6, iio on JetPack 4, found by globbing), thermal zones and the
// BPMP debugfs EMC knobs. Every path in BoardInfo is a real absolute path
// (resolve it with SysfsIo::Resolve). Stateless functions; BoardInfo is a
// value type.
#ifndef POWERSWEEP_AGENT_PLATFORM_JETSON_DISCOVERY_H_
#define POWERSWEEP_AGENT_PLATFORM_JETSON_DISCOVERY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/platform/jetson/sysfs_io.h"

namespace powersweep {
namespace jetson {

inline constexpr char kCpuDir[] = "/sys/devices/system/cpu";
inline constexpr char kEmcDir[] = "/sys/kernel/debug/bpmp/debug/clk/emc";

struct CpuCluster {
  std::vector<int> cpus;               // ascending; cpus.front() names it
  std::vector<int64_t> freqs_khz;      // scaling_available_frequencies
  // ".../cpuN/cpufreq" of the first CPU (one write sets the whole cluster).
  std::string cpufreq_dir;
};

struct GpuNode {
  bool present = false;
  std::string of_node_name;    // "ga10b", "gv11b", "gpu", ...
  std::string devfreq_dir;     // "/sys/class/devfreq/<node>"
  std::string power_control;   // "<devfreq_dir>/device/power/control"
  std::string load_path;       // per mille; empty when not found
  std::vector<int64_t> freqs_hz;
};

struct Rail {
  std::string name;
  // JetPack 5/6 (hwmon): mV and mA files; JetPack 4 (iio): mW file.
  std::string voltage_path;
  std::string current_path;
  std::string power_path;
};

struct ThermalZone {
  std::string name;       // the zone's type
  std::string temp_path;  // millidegrees C; -256000 = sensor off
  bool off = false;       // read -256 C at discovery
};

struct EmcKnobs {
  bool present = false;   // the debugfs rate file exists and is readable
  std::vector<int64_t> rates_hz;
  bool rates_from_board = false;  // from emc/tables/regular (else class table)
  std::string Path(const std::string& file) const {
    return std::string(kEmcDir) + "/" + file;
  }
};

struct BoardInfo {
  std::string device_class;   // "orin-agx", "xavier-agx", "xavier-nx", "nano"
  int chip_id = 0;            // 25 Xavier, 33 Nano, 35 Orin
  std::string model;
  std::string serial;
  std::string l4t_release;    // "35.4.1"
  int jetpack = 0;            // 4, 5 or 6 (from the L4T major)
  std::string kernel;         // /proc/sys/kernel/osrelease
  std::vector<int> cpus;      // every present CPU
  std::vector<CpuCluster> clusters;
  GpuNode gpu;
  std::vector<Rail> rails;
  int total_rail = -1;        // index of VDD_IN/POM_5V_IN; -1 = sum of rails
  std::vector<ThermalZone> thermal;
  EmcKnobs emc;

  // The cluster holding `cpu`, or nullptr.
  const CpuCluster* ClusterOf(int cpu) const;
  // "/sys/devices/system/cpu/cpuN/online".
  static std::string OnlinePath(int cpu);
};

// FailedPrecondition naming the file when this is not a supported Jetson
// (no chip id, unknown chip or model).
absl::StatusOr<BoardInfo> DiscoverBoard(SysfsIo& io);

// Parses "# R35 (release), REVISION: 4.1, ..." into "35.4.1".
absl::StatusOr<std::string> ParseL4tRelease(const std::string& text);
// "orin-agx", ... from the chip id and model; InvalidArgument when unknown.
absl::StatusOr<std::string> BoardClass(int chip_id, const std::string& model);

// Sensors (discovery_sensors.cc).
std::vector<Rail> DiscoverRails(SysfsIo& io);
int FindTotalRail(const std::vector<Rail>& rails);
std::vector<ThermalZone> DiscoverThermal(SysfsIo& io);

// EMC rates used when the board has no rate tables in debugfs.
std::vector<int64_t> ClassEmcRatesHz(const std::string& device_class);

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_DISCOVERY_H_
