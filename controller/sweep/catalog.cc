#include "controller/sweep/catalog.h"

#include <algorithm>
#include <utility>

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

// Frequency tables from /work/shared/reference/jetson-platform.md
// ("Frequency steps", public DVFS scripts). Boards can differ between
// JetPack releases; the agent reads back what the kernel really set.
std::vector<DeviceClassInfo> BuiltInClasses() {
  std::vector<DeviceClassInfo> classes;

  // Any Linux box. Cores come from the registered devices; frequencies are
  // not settable on this class in this version; no presets.
  classes.push_back(DeviceClassInfo{"host", 0, {}, {}, {}, {}});

  // Orin AGX (t234): 12 cores. CPU 115200 + 76800 steps up to 2188800,
  // then 2201600 (29 steps). GPU 306 MHz..1224 MHz in 102 MHz steps, then
  // 1300.5 MHz. EMC: the doc gives only the floor, the usual boot cap and
  // the maximum, so those three are the choices offered here.
  classes.push_back(
      DeviceClassInfo{"orin-agx",
                      12,
                      Steps(115200, 76800, 2188800, {2201600}),
                      Steps(306000000, 102000000, 1224000000, {1300500000}),
                      {204000000, 2133000000, 3199000000},
                      {"MAXN", "MODE_15W", "MODE_30W", "MODE_50W"}});

  // Xavier AGX (t194): 8 cores, CPU 115200..2265600 (29 steps of 76800).
  classes.push_back(DeviceClassInfo{
      "xavier-agx",
      8,
      Steps(115200, 76800, 2265600),
      {114750000, 216750000, 318750000, 420750000, 522750000, 624750000,
       675750000, 828750000, 905250000, 1032750000, 1198500000, 1236750000,
       1338750000, 1377000000},
      {204000000, 408000000, 665600000, 800000000, 1065600000, 1331200000,
       1600000000, 1866000000, 2133000000},
      {"MAXN", "MODE_10W", "MODE_15W", "MODE_30W_ALL", "MODE_30W_6CORE",
       "MODE_30W_4CORE", "MODE_30W_2CORE", "MODE_15W_DESKTOP"}});

  // Xavier NX (t194): 6 cores. CPU 115200..1881600 in 76800 steps, then
  // 1907200 (25 steps). EMC is marked unverified in the doc (max 1600 MHz):
  // we use the Xavier AGX table up to 1600000000. Presets: MAXN as asked,
  // plus the nvpmodel names of JetPack 4.6+/5 NX images (unverified).
  classes.push_back(DeviceClassInfo{
      "xavier-nx",
      6,
      Steps(115200, 76800, 1881600, {1907200}),
      {114750000, 204000000, 306000000, 408000000, 510000000, 599250000,
       701250000, 752250000, 803250000, 854250000, 905250000, 956250000,
       1007250000, 1058250000, 1109250000},
      {204000000, 408000000, 665600000, 800000000, 1065600000, 1331200000,
       1600000000},
      {"MAXN", "MODE_10W_2CORE", "MODE_10W_4CORE", "MODE_15W_2CORE",
       "MODE_15W_4CORE", "MODE_15W_6CORE", "MODE_20W_2CORE", "MODE_20W_4CORE",
       "MODE_20W_6CORE"}});

  // Nano (t210): 4 cores. GPU 76.8 MHz..921.6 MHz in 76.8 MHz steps.
  // Presets: nvpmodel ids 0 (MAXN) and 1 (5W).
  classes.push_back(DeviceClassInfo{
      "nano",
      4,
      {102000, 204000, 307200, 403200, 518400, 614400, 710400, 825600, 921600,
       1036800, 1132800, 1224000, 1326000, 1428000, 1479000},
      Steps(76800000, 76800000, 921600000),
      {204000000, 408000000, 665600000, 800000000, 1065600000, 1331200000,
       1600000000},
      {"MAXN", "5W"}});
  return classes;
}

}  // namespace

DeviceClassCatalog DeviceClassCatalog::Default() {
  return DeviceClassCatalog(BuiltInClasses());
}

DeviceClassCatalog::DeviceClassCatalog(std::vector<DeviceClassInfo> classes) {
  for (DeviceClassInfo& c : classes) {
    std::sort(c.cpu_freqs_khz.begin(), c.cpu_freqs_khz.end());
    std::sort(c.gpu_freqs_hz.begin(), c.gpu_freqs_hz.end());
    std::sort(c.mem_freqs_hz.begin(), c.mem_freqs_hz.end());
    std::string name = c.name;
    classes_[name] = std::move(c);
  }
}

const DeviceClassInfo* DeviceClassCatalog::Find(const std::string& name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

std::vector<std::string> DeviceClassCatalog::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, info] : classes_) names.push_back(name);
  return names;
}

WorkloadCatalog WorkloadCatalog::Default() {
  return WorkloadCatalog({ModelInfo{"lenet5", {"fashion-mnist"}}},
                         {"fashion-mnist"});
}

WorkloadCatalog::WorkloadCatalog(std::vector<ModelInfo> models,
                                 std::vector<std::string> datasets)
    : datasets_(std::move(datasets)) {
  for (ModelInfo& m : models) {
    std::string name = m.name;
    models_[name] = std::move(m);
  }
  std::sort(datasets_.begin(), datasets_.end());
}

bool WorkloadCatalog::HasModel(const std::string& model) const {
  return models_.count(model) > 0;
}

bool WorkloadCatalog::HasDataset(const std::string& dataset) const {
  return std::binary_search(datasets_.begin(), datasets_.end(), dataset);
}

bool WorkloadCatalog::Accepts(const std::string& model,
                              const std::string& dataset) const {
  auto it = models_.find(model);
  if (it == models_.end() || !HasDataset(dataset)) return false;
  const std::vector<std::string>& ok = it->second.datasets;
  return std::find(ok.begin(), ok.end(), dataset) != ok.end();
}

std::vector<std::string> WorkloadCatalog::ModelNames() const {
  std::vector<std::string> names;
  for (const auto& [name, info] : models_) names.push_back(name);
  return names;
}

std::vector<std::string> WorkloadCatalog::DatasetNames() const {
  return datasets_;
}

}  // namespace powersweep
