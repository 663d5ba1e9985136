#include "common/power/mode_space.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {
namespace {

void SortUnique(std::vector<int64_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

// Number of choices a table offers in the space (an empty table: 1, "as is").
int64_t Choices(const std::vector<int64_t>& table) {
  return table.empty() ? 1 : static_cast<int64_t>(table.size());
}

// Position of `value` in `table`; for an empty table only 0 (unset) is a
// point of the space. -1 when not found.
int64_t PositionOf(const std::vector<int64_t>& table, int64_t value) {
  if (table.empty()) return value == 0 ? 0 : -1;
  auto it = std::lower_bound(table.begin(), table.end(), value);
  if (it == table.end() || *it != value) return -1;
  return it - table.begin();
}

int64_t ValueAt(const std::vector<int64_t>& table, int64_t pos) {
  return table.empty() ? 0 : table[pos];
}

void CheckFrequency(const std::string& field, int64_t value,
                    const std::vector<int64_t>& table,
                    const std::string& cls, std::vector<std::string>* out) {
  if (value <= 0) return;
  if (table.empty()) {
    out->push_back(absl::StrCat(field, ": not settable on class ", cls,
                                " in this version"));
  } else if (!std::binary_search(table.begin(), table.end(), value)) {
    const std::vector<int64_t> near = NearestValues(table, value);
    out->push_back(absl::StrCat(field, ": ", value, " is not a frequency of ",
                                cls, " (nearest: ", absl::StrJoin(near, ", "),
                                ")"));
  }
}

}  // namespace

std::vector<int64_t> NearestValues(const std::vector<int64_t>& table,
                                   int64_t value) {
  if (std::binary_search(table.begin(), table.end(), value)) return {value};
  auto above = std::upper_bound(table.begin(), table.end(), value);
  std::vector<int64_t> near;
  if (above != table.begin()) near.push_back(*(above - 1));
  if (above != table.end()) near.push_back(*above);
  return near;
}

int64_t ClosestValue(const std::vector<int64_t>& table, int64_t value) {
  const std::vector<int64_t> near = NearestValues(table, value);
  if (near.empty()) return 0;
  if (near.size() == 1) return near[0];
  return (value - near[0] <= near[1] - value) ? near[0] : near[1];
}

ModeSpace::ModeSpace(DeviceClassSpec spec, int device_cores)
    : spec_(std::move(spec)) {
  SortUnique(&spec_.cpu_freqs_khz);
  SortUnique(&spec_.gpu_freqs_hz);
  SortUnique(&spec_.mem_freqs_hz);
  cores_ = spec_.cpu_cores > 0 ? spec_.cpu_cores : std::max(device_cores, 0);
}

int64_t ModeSpace::Size() const {
  return static_cast<int64_t>(cores_) * Choices(spec_.cpu_freqs_khz) *
         Choices(spec_.gpu_freqs_hz) * Choices(spec_.mem_freqs_hz);
}

absl::StatusOr<CustomMode> ModeSpace::At(int64_t index) const {
  if (index < 0 || index >= Size()) {
    return absl::OutOfRangeError(absl::StrCat(
        "mode index ", index, " is outside the ", Size(), " modes of ",
        spec_.name));
  }
  const int64_t n_mem = Choices(spec_.mem_freqs_hz);
  const int64_t n_gpu = Choices(spec_.gpu_freqs_hz);
  const int64_t n_cpu = Choices(spec_.cpu_freqs_khz);
  CustomMode m;
  m.mem_freq_hz = ValueAt(spec_.mem_freqs_hz, index % n_mem);
  index /= n_mem;
  m.gpu_freq_hz = ValueAt(spec_.gpu_freqs_hz, index % n_gpu);
  index /= n_gpu;
  m.cpu_freq_khz = ValueAt(spec_.cpu_freqs_khz, index % n_cpu);
  index /= n_cpu;
  m.cpu_cores = static_cast<int>(index) + 1;
  return m;
}

absl::StatusOr<int64_t> ModeSpace::IndexOf(const CustomMode& mode) const {
  if (cores_ == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the mode space of ", spec_.name,
        " is empty until a device reports its cores"));
  }
  std::vector<std::string> problems = Problems(mode);
  if (mode.cpu_cores == 0) {
    problems.push_back("cpu_cores: must be set to index a mode");
  }
  const std::pair<const char*, const std::vector<int64_t>*> knobs[] = {
      {"cpu_freq_khz", &spec_.cpu_freqs_khz},
      {"gpu_freq_hz", &spec_.gpu_freqs_hz},
      {"mem_freq_hz", &spec_.mem_freqs_hz}};
  const int64_t values[] = {mode.cpu_freq_khz, mode.gpu_freq_hz,
                            mode.mem_freq_hz};
  int64_t pos[3];
  for (int k = 0; k < 3; ++k) {
    pos[k] = PositionOf(*knobs[k].second, values[k]);
    if (values[k] == 0 && !knobs[k].second->empty()) {
      problems.push_back(
          absl::StrCat(knobs[k].first, ": must be set to index a mode"));
    }
  }
  if (!problems.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a mode of ", spec_.name, ": ", absl::StrJoin(problems, "; ")));
  }
  int64_t index = mode.cpu_cores - 1;
  index = index * Choices(spec_.cpu_freqs_khz) + pos[0];
  index = index * Choices(spec_.gpu_freqs_hz) + pos[1];
  index = index * Choices(spec_.mem_freqs_hz) + pos[2];
  return index;
}

void ModeSpace::ForEach(
    const std::function<bool(const CustomMode&)>& fn) const {
  const int64_t n = Size();
  for (int64_t i = 0; i < n; ++i) {
    if (!fn(*At(i))) return;
  }
}

std::vector<std::string> ModeSpace::Problems(const CustomMode& mode) const {
  std::vector<std::string> out;
  const std::pair<const char*, int64_t> knobs[] = {
      {"cpu_cores", mode.cpu_cores},
      {"cpu_freq_khz", mode.cpu_freq_khz},
      {"gpu_freq_hz", mode.gpu_freq_hz},
      {"mem_freq_hz", mode.mem_freq_hz}};
  for (const auto& [name, value] : knobs) {
    if (value < 0) {
      out.push_back(absl::StrCat(
          name, ": must not be negative (0 leaves it as the device has it), "
                "got ",
          value));
    }
  }
  if (mode.cpu_cores > 0 && cores_ > 0 && mode.cpu_cores > cores_) {
    out.push_back(absl::StrCat("cpu_cores: ", mode.cpu_cores,
                               " is more than the ", cores_, " cores of ",
                               spec_.name));
  }
  CheckFrequency("cpu_freq_khz", mode.cpu_freq_khz, spec_.cpu_freqs_khz,
                 spec_.name, &out);
  CheckFrequency("gpu_freq_hz", mode.gpu_freq_hz, spec_.gpu_freqs_hz,
                 spec_.name, &out);
  CheckFrequency("mem_freq_hz", mode.mem_freq_hz, spec_.mem_freqs_hz,
                 spec_.name, &out);
  return out;
}

absl::Status ModeSpace::Check(const CustomMode& mode) const {
  std::vector<std::string> problems = Problems(mode);
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(problems, "; "));
}

}  // namespace powersweep
