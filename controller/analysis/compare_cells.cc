#include "controller/analysis/compare_cells.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/power_mode_text.h"
#include "common/synthetic_dataset.h"

namespace powersweep {

absl::StatusOr<CompareBy> ParseCompareBy(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "runtime") return CompareBy::kRuntime;
  if (lower == "page_cache" || lower == "page-cache") {
    return CompareBy::kPageCache;
  }
  if (lower == "device") return CompareBy::kDevice;
  if (lower == "data" || lower == "dataset") return CompareBy::kData;
  if (lower == "tenants") return CompareBy::kTenants;
  return absl::InvalidArgumentError(
      absl::StrCat("--by: unknown dimension \"", name,
                   "\" (supported: runtime, page_cache, device, data, "
                   "tenants)"));
}

namespace {

absl::Status ParseRuntimeSides(const std::vector<std::string>& sides,
                               CompareDimension* d) {
  if (sides.empty()) return absl::OkStatus();
  std::optional<v1::Runtime> a;
  std::optional<v1::Runtime> b;
  if (sides.size() == 2) {
    a = ParseRuntime(sides[0]);
    b = ParseRuntime(sides[1]);
  }
  if (!a || !b || *a == *b) {
    return absl::InvalidArgumentError(
        "--sides: --by runtime compares two different runtimes A,B of "
        "native, container, vm, container_in_vm (A is the baseline)");
  }
  d->baseline_runtime = *a;
  d->other_runtime = *b;
  return absl::OkStatus();
}

v1::Runtime Effective(v1::Runtime r) {
  return r == v1::RUNTIME_UNSPECIFIED ? v1::RUNTIME_NATIVE : r;
}

}  // namespace

absl::StatusOr<CompareDimension> ParseCompareDimension(
    absl::string_view by, const std::vector<std::string>& devices,
    const std::vector<std::string>& sides) {
  absl::StatusOr<CompareBy> parsed = ParseCompareBy(by);
  if (!parsed.ok()) return parsed.status();
  CompareDimension d(*parsed);
  if (d.by == CompareBy::kRuntime) {
    absl::Status s = ParseRuntimeSides(sides, &d);
    if (!s.ok()) return s;
  } else if (!sides.empty()) {
    return absl::InvalidArgumentError(
        "--sides: only --by runtime takes the two sides compared");
  }
  if (d.by != CompareBy::kDevice) {
    if (!devices.empty()) {
      return absl::InvalidArgumentError(
          "--devices: only --by device compares named devices");
    }
    return d;
  }
  if (devices.size() != 2 || devices[0].empty() || devices[1].empty() ||
      devices[0] == devices[1]) {
    return absl::InvalidArgumentError(
        "--by device needs --devices A,B: two different device ids (A is "
        "the baseline)");
  }
  d.baseline_device = devices[0];
  d.other_device = devices[1];
  return d;
}

std::string CompareByName(CompareBy by) {
  switch (by) {
    case CompareBy::kRuntime:
      return "runtime";
    case CompareBy::kPageCache:
      return "page_cache";
    case CompareBy::kDevice:
      return "device";
    case CompareBy::kData:
      return "data";
    case CompareBy::kTenants:
      return "tenants";
  }
  return "?";
}

std::string BaselineLabel(const CompareDimension& dimension) {
  switch (dimension.by) {
    case CompareBy::kRuntime:
      return RuntimeText(dimension.baseline_runtime);
    case CompareBy::kPageCache:
      return "keep";
    case CompareBy::kDevice:
      return dimension.baseline_device;
    case CompareBy::kData:
      return "synthetic";
    case CompareBy::kTenants:
      return "1 tenant";
  }
  return "baseline";
}

std::string OtherLabel(const CompareDimension& dimension) {
  switch (dimension.by) {
    case CompareBy::kRuntime:
      return RuntimeText(dimension.other_runtime);
    case CompareBy::kPageCache:
      return "drop";
    case CompareBy::kDevice:
      return dimension.other_device;
    case CompareBy::kData:
      return "real";
    case CompareBy::kTenants:
      return "co-located";
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
    case CompareBy::kDevice:
      return std::nullopt;  // not in the spec
    case CompareBy::kData:
      // Baseload runs read no data: on neither side.
      if (spec.workload().task() == v1::TASK_BASELOAD) return std::nullopt;
      return IsSyntheticDataset(spec.workload().dataset()) ? Side::kBaseline
                                                           : Side::kOther;
    case CompareBy::kTenants:
      // One run alone (tenants 0 or 1) vs several copies started together.
      if (spec.workload().task() == v1::TASK_BASELOAD) return std::nullopt;
      return spec.tenants() > 1 ? Side::kOther : Side::kBaseline;
  }
  return std::nullopt;
}

std::optional<Side> SideOf(const CompareDimension& dimension,
                           const v1::RunSpec& spec,
                           const std::string& device_id) {
  if (dimension.by == CompareBy::kRuntime) {
    const v1::Runtime r = Effective(spec.runtime());
    if (r == dimension.baseline_runtime) return Side::kBaseline;
    if (r == dimension.other_runtime) return Side::kOther;
    return std::nullopt;
  }
  if (dimension.by != CompareBy::kDevice) return SideOf(dimension.by, spec);
  if (device_id.empty()) return std::nullopt;
  if (device_id == dimension.baseline_device) return Side::kBaseline;
  if (device_id == dimension.other_device) return Side::kOther;
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

v1::RunSpec InstanceKey(const v1::RunSpec& spec) {
  v1::RunSpec key = RepetitionKey(spec);
  key.clear_devices();
  return key;
}

v1::RunSpec CellKey(CompareBy by, const v1::RunSpec& spec) {
  v1::RunSpec key = RepetitionKey(spec);
  switch (by) {
    case CompareBy::kRuntime:
      key.clear_runtime();
      key.clear_container_image();  // only container runs name one
      // A VM's shape stays: each vCPU count and memory size is a cell of
      // its own, paired with the same cell of a runtime without a VM
      // (PairVmShapes in compare.cc).
      if (!RunsInVm(spec.runtime())) key.clear_vm();
      break;
    case CompareBy::kPageCache:
      key.mutable_workload()->clear_page_cache();
      break;
    case CompareBy::kDevice:
      key.clear_devices();  // the placement; the side is RunStatus.device_id
      break;
    case CompareBy::kData:
      key.mutable_workload()->clear_dataset();
      break;
    case CompareBy::kTenants:
      key.clear_tenants();
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
        absl::StrCat(w.model(), w.dataset().empty() ? "" : "/", w.dataset(),
                     " ", TaskText(w.task()),
                     " bs=", w.batch_size(), " workers=", w.loader_workers());
  }
  std::string label = absl::StrCat(workload, " | ", key.device_class(), " | ",
                                   PowerModeText(key.power_mode(), "default mode"));
  // What the dimension leaves in the key: a runtime other than native (not
  // with --by runtime) and co-located tenants (not with --by tenants).
  std::string placement;
  if (key.runtime() != v1::RUNTIME_UNSPECIFIED &&
      key.runtime() != v1::RUNTIME_NATIVE) {
    placement = RuntimeText(key.runtime());
  }
  if (key.has_vm()) {
    // vcpus 0: the run's cores.
    absl::StrAppend(&placement, placement.empty() ? "" : " ", "vm ",
                    key.vm().vcpus() > 0
                        ? absl::StrCat(key.vm().vcpus(), " vCPU ")
                        : std::string(),
                    key.vm().memory_mib(), " MiB");
  }
  if (key.tenants() > 1) {
    absl::StrAppend(&placement, placement.empty() ? "" : " ", "x",
                    key.tenants(), " tenants");
  }
  if (!placement.empty()) absl::StrAppend(&label, " | ", placement);
  return label;
}

}  // namespace powersweep
