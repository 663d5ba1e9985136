// Built-in device-class tables (declared in mode_space.h). Values from
// /work/shared/reference/jetson-platform.md ("Per board" and "Frequency
// steps", taken from public DVFS scripts) and, for the 2026 classes (thor,
// orin-nx, orin-nano), from the public sources listed per class in
// docs/jetson.md. Boards can differ between JetPack releases; agents read
// the real tables from sysfs and read back what the kernel really set.
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

  // Orin NX 16 GB (t234, JetPack 6.2 Super): 8 cores, assumed in two
  // clusters of 4 (its 10W/15W modes turn cpu4-7 off). CPU 115200 + 76800
  // steps up to 1958400, then 1984000 (a public NX table; its ends agree
  // with the Super nvpmodel.conf caps). GPU 306..1122 MHz in 102 MHz steps
  // and the Super maximum 1173 MHz (the 40W cap; the steps between are the
  // pre-Super table's grid). EMC: the four lockable Orin points.
  classes.push_back(DeviceClassSpec{
      "orin-nx",
      8,
      {0, 4},
      Steps(115200, 76800, 1958400, {1984000}),
      Steps(306000000, 102000000, 1122000000, {1173000000}),
      {204000000, 665600000, 2133000000, 3199000000}});

  // Orin Nano 8 GB (t234, JetPack 6.2 Super): 6 cores, assumed in clusters
  // cpu0-3 and cpu4-5 (tegrastats shows the two groups at two clocks). CPU
  // 115200..1728000 in 76800 steps (22; the ends are in real dumps), GPU
  // 306..1020 MHz in 102 MHz steps, EMC the four lockable Orin points.
  classes.push_back(DeviceClassSpec{
      "orin-nano",
      6,
      {0, 4},
      Steps(115200, 76800, 1728000),
      Steps(306000000, 102000000, 1020000000),
      {204000000, 665600000, 2133000000, 3199000000}});

  // Jetson AGX Thor T5000 (t264, JetPack 7): 14 cores, assumed in 7
  // cpufreq policies of 2 (NVIDIA's tuning guide sets governors on cpu0,
  // 2, ..., 12). No public frequency table was found: these are the values
  // seen in public dumps of real boards (CPU 972 MHz idle, 1350 MHz, the
  // 70W cap 1998 MHz, MAXN 2601 MHz; GPU gpu-gpc-0 at 314 MHz idle,
  // 1386 MHz under 120W, MAXN 1575 MHz; EMC 665.6 MHz minimum, 2750 MHz
  // idle, 4266 MHz maximum). A board's agent reads its real tables.
  classes.push_back(DeviceClassSpec{
      "thor",
      14,
      {0, 2, 4, 6, 8, 10, 12},
      {972000, 1350000, 1998000, 2601000},
      {314000000, 1386000000, 1575000000},
      {665600000, 2750000000, 4266000000}});
  std::sort(classes.begin(), classes.end(),
            [](const DeviceClassSpec& a, const DeviceClassSpec& b) {
              return a.name < b.name;
            });
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
