// Discovery of the power monitors' rails (INA3221 on every board, INA238 on
// Thor's input) and thermal zones (see discovery.h).
#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/platform/jetson/discovery.h"
#include "common/power/board_rails.h"

namespace powersweep {
namespace jetson {

namespace {

constexpr char kI2cDevices[] = "/sys/bus/i2c/devices";
constexpr char kThermalDir[] = "/sys/devices/virtual/thermal";
constexpr int kMaxChannels = 8;

// Unconnected channels ("NC") and the driver's summed channel are not rails.
bool SkipLabel(const std::string& label) {
  if (label.empty()) return true;
  if (absl::StrContains(absl::AsciiStrToLower(label), "sum of shunt")) {
    return true;
  }
  for (absl::string_view tok : absl::StrSplit(label, absl::ByAnyChar(" _-"))) {
    if (tok == "NC") return true;
  }
  return false;
}

void HwmonRails(SysfsIo& io, const std::string& dev, std::vector<Rail>* out) {
  const std::string hwmon_dir = dev + "/hwmon";
  for (const std::string& hw : io.List(hwmon_dir)) {
    if (!absl::StartsWith(hw, "hwmon")) continue;  // never a fixed hwmonN
    const std::string d = hwmon_dir + "/" + hw;
    for (int n = 1; n <= kMaxChannels; ++n) {
      const std::string label =
          ReadTextOr(io, absl::StrCat(d, "/in", n, "_label"));
      if (SkipLabel(label)) continue;
      Rail rail;
      rail.name = label;
      rail.voltage_path = absl::StrCat(d, "/in", n, "_input");
      rail.current_path = absl::StrCat(d, "/curr", n, "_input");
      rail.monitor = "ina3221";
      if (!io.Exists(rail.voltage_path) || !io.Exists(rail.current_path)) {
        continue;
      }
      out->push_back(std::move(rail));
    }
  }
}

// INA238 (one channel; hwmon: in1 bus mV, curr1 mA, power1 uW). Its hwmon
// node has no label: the rail is named by the device's `label` file when
// the device tree gives one, else VIN (Thor's developer kit has one INA238,
// on the input rail; see docs/jetson.md).
void Ina238Rail(SysfsIo& io, const std::string& dev, std::vector<Rail>* out) {
  const std::string hwmon_dir = dev + "/hwmon";
  for (const std::string& hw : io.List(hwmon_dir)) {
    if (!absl::StartsWith(hw, "hwmon")) continue;
    const std::string d = hwmon_dir + "/" + hw;
    Rail rail;
    rail.name = ReadTextOr(io, dev + "/label");
    if (rail.name.empty()) rail.name = ReadTextOr(io, d + "/in1_label");
    if (rail.name.empty()) rail.name = "VIN";
    rail.monitor = "ina238";
    rail.voltage_path = d + "/in1_input";
    rail.current_path = d + "/curr1_input";
    if (io.Exists(d + "/power1_input")) {
      rail.power_path = d + "/power1_input";
      rail.power_in_uw = true;
    } else if (!io.Exists(rail.voltage_path) ||
               !io.Exists(rail.current_path)) {
      continue;
    }
    out->push_back(std::move(rail));
  }
}

void IioRails(SysfsIo& io, const std::string& dev, std::vector<Rail>* out) {
  for (const std::string& x : io.List(dev)) {
    if (!absl::StartsWith(x, "iio:device")) continue;
    const std::string d = dev + "/" + x;
    for (int n = 0; n < kMaxChannels; ++n) {
      const std::string name =
          ReadTextOr(io, absl::StrCat(d, "/rail_name_", n));
      if (SkipLabel(name)) continue;
      Rail rail;
      rail.name = name;
      rail.power_path = absl::StrCat(d, "/in_power", n, "_input");
      rail.voltage_path = absl::StrCat(d, "/in_voltage", n, "_input");
      rail.current_path = absl::StrCat(d, "/in_current", n, "_input");
      rail.monitor = "ina3221";
      if (!io.Exists(rail.power_path)) continue;
      out->push_back(std::move(rail));
    }
  }
}

int ZoneNumber(const std::string& name) {
  int n = 0;
  absl::SimpleAtoi(name.substr(std::string("thermal_zone").size()), &n);
  return n;
}

}  // namespace

std::vector<Rail> DiscoverRails(SysfsIo& io) {
  std::vector<Rail> rails;
  for (const std::string& dev : io.List(kI2cDevices)) {
    const std::string d = std::string(kI2cDevices) + "/" + dev;
    const std::string name = ReadTextOr(io, d + "/name");
    if (absl::StrContains(name, "ina3221")) {
      HwmonRails(io, d, &rails);  // JetPack 5 and later
      IioRails(io, d, &rails);    // JetPack 4
    } else if (name == "ina238") {
      Ina238Rail(io, d, &rails);
    }
  }
  return rails;
}

int FindTotalRail(const std::vector<Rail>& rails) {
  // Only input rails are board totals (common/power/board_rails.h). Orin
  // AGX's VIN_SYS_5V0 is one rail of several, and Xavier AGX has no total
  // rail at all.
  for (size_t i = 0; i < rails.size(); ++i) {
    if (IsBoardInputRail(rails[i].name)) return static_cast<int>(i);
  }
  return -1;
}

std::vector<ThermalZone> DiscoverThermal(SysfsIo& io) {
  std::vector<std::string> zones;
  for (const std::string& name : io.List(kThermalDir)) {
    if (absl::StartsWith(name, "thermal_zone")) zones.push_back(name);
  }
  std::sort(zones.begin(), zones.end(),
            [](const std::string& a, const std::string& b) {
              return ZoneNumber(a) < ZoneNumber(b);
            });
  std::vector<ThermalZone> out;
  for (const std::string& z : zones) {
    const std::string d = std::string(kThermalDir) + "/" + z;
    ThermalZone zone;
    zone.name = ReadTextOr(io, d + "/type");
    // PMIC-Die reads a constant 100 C: not a measurement.
    if (zone.name.empty() || absl::StrContains(zone.name, "PMIC")) continue;
    zone.temp_path = d + "/temp";
    absl::StatusOr<int64_t> milli = ReadInt(io, zone.temp_path);
    if (absl::IsUnavailable(milli.status())) {
      zone.gated = true;  // EAGAIN: power-gated now, a gap until it answers
      out.push_back(std::move(zone));
      continue;
    }
    if (!milli.ok()) continue;
    zone.off = *milli == -256000;
    out.push_back(std::move(zone));
  }
  return out;
}

}  // namespace jetson
}  // namespace powersweep
