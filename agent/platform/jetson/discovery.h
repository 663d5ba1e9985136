// Discovery of a Jetson board through SysfsIo: identity (class from the
// chip id and the device-tree model, serial, L4T release, kernel), CPUs and
// their cpufreq clusters, the GPU devfreq node, the power monitors' rails,
// thermal zones and the EMC knobs. Everything is found by name, never by
// index: hwmon devices by their `name` (ina3221, ina238; hwmonN changes
// between boots), iio devices (JetPack 4) by `name`, thermal zones by
// `type`, the GPU devfreq node by its node name (17000000.gpu,
// 17000000.ga10b, gpu-gpc-0, ...) or its device-tree node name, the EMC by
// what is present (BPMP debugfs `clk/emc`, else the `bwmgr` devfreq node of
// Thor). Every path in BoardInfo is a real absolute path (resolve it with
// SysfsIo::Resolve). Stateless functions; BoardInfo is a value type.
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
// Thor (JetPack 7): the memory clock is a devfreq node.
inline constexpr char kEmcDevfreqDir[] = "/sys/class/devfreq/bwmgr";

struct CpuCluster {
  std::vector<int> cpus;               // ascending; cpus.front() names it
  std::vector<int64_t> freqs_khz;      // scaling_available_frequencies
  // ".../cpuN/cpufreq" of the first CPU (one write sets the whole cluster).
  std::string cpufreq_dir;
};

struct GpuNode {
  bool present = false;
  // The device-tree node name ("ga10b", "gv11b", "gpu", ...), else the
  // devfreq node's own name ("gpu-gpc-0" on Thor).
  std::string of_node_name;
  std::string devfreq_dir;     // "/sys/class/devfreq/<node>"
  std::string power_control;   // "<devfreq_dir>/device/power/control"
  std::string load_path;       // per mille; empty when not found
  std::vector<int64_t> freqs_hz;
};

struct Rail {
  std::string name;
  // hwmon (JetPack 5 and later): mV and mA files, or a uW power file
  // (INA238's power1_input); iio (JetPack 4): a mW power file.
  std::string voltage_path;
  std::string current_path;
  std::string power_path;
  bool power_in_uw = false;  // power_path is hwmon's microwatts
  std::string monitor;       // the monitor's name: "ina3221", "ina238"
};

struct ThermalZone {
  std::string name;       // the zone's type
  std::string temp_path;  // millidegrees C; -256000 = sensor off
  bool off = false;       // read -256 C at discovery
  // Read EAGAIN at discovery (Thor's gpu-thermal while the GPU is
  // power-gated): kept, and a gap in its series until it answers.
  bool gated = false;
};

struct EmcKnobs {
  bool present = false;   // the debugfs rate file (or bwmgr) is readable
  std::vector<int64_t> rates_hz;
  // From emc/tables/regular or bwmgr's available_frequencies (else the
  // class table).
  bool rates_from_board = false;
  // Non-empty: the EMC is the devfreq node here (Thor's bwmgr), pinned
  // through min_freq/max_freq like the GPU; empty: BPMP debugfs.
  std::string devfreq_dir;
  bool devfreq() const { return !devfreq_dir.empty(); }
  // A file of the BPMP debugfs EMC clock.
  std::string Path(const std::string& file) const {
    return std::string(kEmcDir) + "/" + file;
  }
  // The file holding the current rate in Hz.
  std::string RatePath() const {
    return devfreq() ? devfreq_dir + "/cur_freq" : Path("rate");
  }
};

struct BoardInfo {
  // "thor", "orin-agx", "orin-nx", "orin-nano", "xavier-agx", "xavier-nx",
  // "nano".
  std::string device_class;
  int chip_id = 0;            // 25 Xavier, 33 Nano, 35 Orin, 38 Thor
  std::string model;
  std::string serial;
  std::string l4t_release;    // "35.4.1"
  int jetpack = 0;            // 4, 5, 6 or 7 (from the L4T major)
  std::string kernel;         // /proc/sys/kernel/osrelease
  std::vector<int> cpus;      // every present CPU
  std::vector<CpuCluster> clusters;
  GpuNode gpu;
  std::vector<Rail> rails;
  int total_rail = -1;        // index of the input rail; -1 = sum of rails
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
// JetPack major of an L4T major: 32 -> 4, 35 -> 5, 36 -> 6, 38 and 39 -> 7;
// 0 when unknown.
int JetpackOfL4t(int l4t_major);
// "orin-agx", ... from the chip id and model; InvalidArgument when unknown.
absl::StatusOr<std::string> BoardClass(int chip_id, const std::string& model);

// Sensors (discovery_sensors.cc).
std::vector<Rail> DiscoverRails(SysfsIo& io);
int FindTotalRail(const std::vector<Rail>& rails);
std::vector<ThermalZone> DiscoverThermal(SysfsIo& io);

// EMC rates used when the board lists none: the class table of
// common/power (empty for an unknown class).
std::vector<int64_t> ClassEmcRatesHz(const std::string& device_class);

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_DISCOVERY_H_
