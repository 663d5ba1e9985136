// JetsonTelemetry: the Jetson-specific part of a TelemetrySample, read from
// files opened once and re-read with pread (ProcFile): per-core
// scaling_cur_freq, GPU load (per mille -> 0..1) and devfreq cur_freq, EMC
// rate (when debugfs is readable), every INA3221 rail (mV * mA / 1000 on
// JetPack 5/6, in_powerN_input on JetPack 4) as a MEASURED RailSample, the
// board total (the VDD_IN / POM_5V_IN rail where one exists, else the sum
// of the rails; never both) and the thermal zones that are on (PMIC zones
// were dropped at discovery; -256 C readings are skipped).
//
// Not thread-safe: one owner (JetsonPlatform serializes calls).
#ifndef POWERSWEEP_AGENT_PLATFORM_JETSON_TELEMETRY_H_
#define POWERSWEEP_AGENT_PLATFORM_JETSON_TELEMETRY_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/platform/jetson/discovery.h"
#include "agent/telemetry/proc_file.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {
namespace jetson {

class JetsonTelemetry {
 public:
  // `root`: the sysfs root with no trailing slash ("" for "/").
  JetsonTelemetry(const BoardInfo& board, std::string root);

  // sample->cores must hold one entry per CPU in `cpus`.
  void Sample(const std::vector<int>& cpus, v1::TelemetrySample* sample);

 private:
  struct RailFiles {
    std::string name;
    bool iio = false;          // one power file (iio mW, or hwmon uW)
    double mw_per_unit = 1.0;  // 0.001 for hwmon's microwatts
    ProcFile voltage;
    ProcFile current;
    ProcFile power;
  };
  struct ZoneFiles {
    std::string name;
    ProcFile temp;
  };

  std::optional<int64_t> ReadInt(ProcFile& f);
  std::optional<double> RailPowerMw(RailFiles& r);

  const std::string root_;
  std::map<int, ProcFile> core_freq_;
  std::unique_ptr<ProcFile> gpu_load_;
  std::unique_ptr<ProcFile> gpu_freq_;
  std::unique_ptr<ProcFile> emc_rate_;
  std::vector<RailFiles> rails_;
  int total_rail_ = -1;
  std::vector<ZoneFiles> zones_;
};

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_TELEMETRY_H_
