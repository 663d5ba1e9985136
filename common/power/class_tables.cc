// Built-in device-class tables (declared in mode_space.h). Values from
// /work/shared/reference/jetson-platform.md ("Per board" and "Frequency
// steps", taken from public DVFS scripts). Boards can differ between
// JetPack releases; agents read back what the kernel really set.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/power/mode_space.h"

namespace powersweep {
namespace {

// first, first + step, ... up to and including `last` (when on the grid),
// followed by `extra` values (boards often end on an off-grid top step).
std::vector<int64_t> Steps(int64_t first, int64_t step, int64_t last,
                           std::vector<int64_t> extra = {}) {
  std::vector<int64_t> out;
  for (int64_t f = first; f <= last; f += step) out.push_back(f);
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

}  // namespace

std::vector<DeviceClassSpec> BuiltInDeviceClasses() {
  std::vector<DeviceClassSpec> classes;

  // Any Linux box. Cores come from the device; frequencies are not
  // settable on this class in this version.
  classes.push_back(DeviceClassSpec{"host", 0, {}, {}, {}, {}});

  // Nano (t210): 4 cores in one cluster. CPU: the 15 listed steps. GPU
  // 76.8 MHz..921.6 MHz in 76.8 MHz steps. EMC: the 7 listed rates.
  classes.push_back(DeviceClassSpec{
      "nano",
      4,
      {0},
      {102000, 204000, 307200, 403200, 518400, 614400, 710400, 825600, 921600,
       1036800, 1132800, 1224000, 1326000, 1428000, 1479000},
      Steps(76800000, 76800000, 921600000),
      {204000000, 408000000, 665600000, 800000000, 1065600000, 1331200000,
       1600000000}});

  // Orin AGX (t234): 12 cores in 3 clusters. CPU 115200 + 76800 steps up
  // to 2188800, then 2201600 (29 steps). GPU 306 MHz..1224 MHz in 102 MHz
  // steps, then 1300.5 MHz. EMC: the reference gives only the floor, the
  // usual boot cap and the maximum, so those three are offered.
  classes.push_back(
      DeviceClassSpec{"orin-agx",
                      12,
                      {0, 4, 8},
                      Steps(115200, 76800, 2188800, {2201600}),
                      Steps(306000000, 102000000, 1224000000, {1300500000}),
                      {204000000, 2133000000, 3199000000}});

  // Xavier AGX (t194): 8 cores in 4 clusters, CPU 115200..2265600 (29
  // steps of 76800), 14 GPU and 9 EMC rates: 29,232 custom modes.
  classes.push_back(DeviceClassSpec{
      "xavier-agx",
      8,
      {0, 2, 4, 6},
      Steps(115200, 76800, 2265600),
      {114750000, 216750000, 318750000, 420750000, 522750000, 624750000,
       675750000, 828750000, 905250000, 1032750000, 1198500000, 1236750000,
       1338750000, 1377000000},
      {204000000, 408000000, 665600000, 800000000, 1065600000, 1331200000,
       1600000000, 1866000000, 2133000000}});

  // Xavier NX (t194): 6 cores in 3 clusters. CPU 115200..1881600 in 76800
  // steps, then 1907200 (25 steps). EMC is marked unverified in the
  // reference (max 1600 MHz): the Xavier AGX rates up to 1600 MHz.
  classes.push_back(DeviceClassSpec{
      "xavier-nx",
      6,
      {0, 2, 4},
      Steps(115200, 76800, 1881600, {1907200}),
      {114750000, 204000000, 306000000, 408000000, 510000000, 599250000,
       701250000, 752250000, 803250000, 854250000, 905250000, 956250000,
       1007250000, 1058250000, 1109250000},
      {204000000, 408000000, 665600000, 800000000, 1065600000, 1331200000,
       1600000000}});
  return classes;
}

absl::StatusOr<DeviceClassSpec> FindBuiltInDeviceClass(
    const std::string& name) {
  std::vector<std::string> known;
  for (DeviceClassSpec& c : BuiltInDeviceClasses()) {
    if (c.name == name) return std::move(c);
    known.push_back(c.name);
  }
  return absl::NotFoundError(absl::StrCat("unknown device class '", name,
                                          "' (known: ",
                                          absl::StrJoin(known, ", "), ")"));
}

}  // namespace powersweep
