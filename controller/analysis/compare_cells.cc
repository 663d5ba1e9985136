#include "controller/analysis/compare_cells.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/power_mode_text.h"

namespace powersweep {

absl::StatusOr<CompareBy> ParseCompareBy(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "runtime") return CompareBy::kRuntime;
  if (lower == "page_cache" || lower == "page-cache") {
    return CompareBy::kPageCache;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--by: unknown dimension \"", name,
                   "\" (supported: runtime, page_cache)"));
}

std::string CompareByName(CompareBy by) {
  switch (by) {
    case CompareBy::kRuntime:
      return "runtime";
    case CompareBy::kPageCache:
      return "page_cache";
  }
  return "?";
}

std::string BaselineLabel(CompareBy by) {
  switch (by) {
    case CompareBy::kRuntime:
      return "native";
    case CompareBy::kPageCache:
      return "keep";
  }
  return "baseline";
}

std::string OtherLabel(CompareBy by) {
  switch (by) {
    case CompareBy::kRuntime:
      return "container";
    case CompareBy::kPageCache:
      return "drop";
  }
  return "other";
}

std::optional<Side> SideOf(CompareBy by, const v1::RunSpec& spec) {
  switch (by) {
    case CompareBy::kRuntime:
      switch (spec.runtime()) {
        case v1::RUNTIME_UNSPECIFIED:
        case v1::RUNTIME_NATIVE:
          return Side::kBaseline;
        case v1::RUNTIME_CONTAINER:
          return Side::kOther;
        default:
          return std::nullopt;
      }
    case CompareBy::kPageCache:
      // Baseload runs have no page-cache policy: on neither side.
      if (spec.workload().task() == v1::TASK_BASELOAD) return std::nullopt;
      return spec.workload().page_cache() == v1::PAGE_CACHE_DROP
                 ? Side::kOther
                 : Side::kBaseline;
  }
  return std::nullopt;
}

v1::RunSpec RepetitionKey(const v1::RunSpec& spec) {
  v1::RunSpec key = spec;
  key.clear_run_id();
  key.clear_sweep_id();
  key.clear_repetition();
  key.clear_attempt();
  return key;
}

v1::RunSpec CellKey(CompareBy by, const v1::RunSpec& spec) {
  v1::RunSpec key = RepetitionKey(spec);
  switch (by) {
    case CompareBy::kRuntime:
      key.clear_runtime();
      key.clear_container_image();  // only container runs name one
      break;
    case CompareBy::kPageCache:
      key.mutable_workload()->clear_page_cache();
      break;
  }
  return key;
}

std::string CellLabel(const v1::RunSpec& key) {
  const v1::WorkloadSpec& w = key.workload();
  std::string workload;
  if (w.task() == v1::TASK_BASELOAD) {
    workload = "baseload";
  } else {
    workload =
        absl::StrCat(w.model(), "/", w.dataset(), " ", TaskText(w.task()),
                     " bs=", w.batch_size(), " workers=", w.loader_workers());
  }
  return absl::StrCat(workload, " | ", key.device_class(), " | ",
                      PowerModeText(key.power_mode(), "default mode"));
}

}  // namespace powersweep
