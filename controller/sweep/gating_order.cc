#include "controller/sweep/gating_order.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {
namespace {

// The preset's mask on its class, -1 when not known.
int64_t MaskOf(const v1::RunSpec& run, const PowerCatalog& catalog) {
  const std::string& preset = run.power_mode().preset();
  const PowerCatalog::ClassEntry* entry = catalog.Find(run.device_class());
  if (preset.empty() || entry == nullptr) return -1;
  for (const PresetMode& p : entry->presets) {
    if (p.name == preset) return p.gpu_pg_mask;
  }
  return -1;
}

}  // namespace

std::string GroupRunsByGpuGating(std::vector<v1::RunSpec>* runs,
                                 const PowerCatalog& catalog) {
  // Rank of each (class, mask) by first appearance; unknown masks rank 0.
  std::map<std::string, std::vector<int64_t>> order;
  std::vector<int> rank(runs->size(), 0);
  for (size_t i = 0; i < runs->size(); ++i) {
    const int64_t mask = MaskOf((*runs)[i], catalog);
    if (mask < 0) continue;
    std::vector<int64_t>& seen = order[(*runs)[i].device_class()];
    auto it = std::find(seen.begin(), seen.end(), mask);
    if (it == seen.end()) it = seen.insert(seen.end(), mask);
    rank[i] = static_cast<int>(it - seen.begin());
  }
  if (std::all_of(rank.begin(), rank.end(), [](int r) { return r == 0; })) {
    return "";
  }
  std::vector<size_t> index(runs->size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(),
                   [&](size_t a, size_t b) { return rank[a] < rank[b]; });
  int moved = 0;
  std::set<std::string> later;  // "thor 90W"
  std::vector<v1::RunSpec> sorted;
  sorted.reserve(runs->size());
  for (size_t i : index) {
    if (rank[i] > 0) {
      ++moved;
      later.insert(absl::StrCat((*runs)[i].device_class(), " ",
                                (*runs)[i].power_mode().preset()));
    }
    sorted.push_back(std::move((*runs)[i]));
  }
  *runs = std::move(sorted);
  return absl::StrCat(
      moved, " runs of modes whose GPU power gating differs from the first "
      "mode of their class (", absl::StrJoin(later, ", "),
      ") are queued after the others, one group per gating mask: a board "
      "switches between them only through a reboot (see docs/jetson.md)");
}

}  // namespace powersweep
