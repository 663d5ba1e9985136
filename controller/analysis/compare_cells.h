// The cells of a comparison (compare.h): the compared dimension, the side
// each run falls on, and the key that groups runs equal in everything else.
//
// Runs are grouped into cells equal in everything but the compared
// dimension, the repetition and the attempt (run and sweep ids aside):
// device class, workload (model, dataset, task, batch size, loader workers,
// stop conditions, seed, threads), power mode, telemetry rate and timeout.
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_CELLS_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_CELLS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

// The dimension compared; another dimension needs a name, its two sides
// (SideOf) and its fields cleared in CellKey.
// kRuntime: two runtimes, by default native (baseline; RUNTIME_UNSPECIFIED
// counts as native, as the sweep defaults do) vs container; any two of
// native, container and vm with --sides. kPageCache: the data set's pages kept in
// the page cache between epochs (baseline) vs dropped. kDevice: the runs
// of one named device (baseline) vs those of another, by the device each
// run ran on (RunStatus.device_id), not by anything in its spec. kData:
// `synthetic` data (baseline: random tensors made in memory, no I/O,
// common/synthetic_dataset.h) vs real data (any other data set of the
// cell's model), the CLOSER'18 study's comparison.
enum class CompareBy { kRuntime, kPageCache, kDevice, kData, kTenants };

// A dimension with what it needs besides: for kDevice the two device ids.
// Converts from a CompareBy (no devices).
struct CompareDimension {
  CompareDimension(CompareBy by = CompareBy::kRuntime) : by(by) {}  // NOLINT
  CompareBy by;
  std::string baseline_device;  // kDevice only
  std::string other_device;
  v1::Runtime baseline_runtime = v1::RUNTIME_NATIVE;  // kRuntime only
  v1::Runtime other_runtime = v1::RUNTIME_CONTAINER;
};

// "runtime" -> kRuntime, "page_cache" (or "page-cache") -> kPageCache,
// "device" -> kDevice, "data" (or "dataset") -> kData, "tenants" ->
// kTenants (one run alone vs co-located copies: RunSpec.tenants > 1, the
// Appl. Sci. '23 comparison); InvalidArgument naming --by otherwise.
absl::StatusOr<CompareBy> ParseCompareBy(absl::string_view name);
// ParseCompareBy, and for "device" exactly two different non-empty device
// ids in `devices` (baseline first); other dimensions take none. For
// "runtime", `sides` is empty (native, container) or two different
// runtimes (native, container, vm; baseline first); other dimensions take
// none. InvalidArgument naming --by, --devices or --sides otherwise.
absl::StatusOr<CompareDimension> ParseCompareDimension(
    absl::string_view by, const std::vector<std::string>& devices,
    const std::vector<std::string>& sides = {});
// "runtime", "page_cache", "device", "data", "tenants".
std::string CompareByName(CompareBy by);
// "native" (the baseline runtime), "keep", the baseline device id,
// "synthetic", "1 tenant".
std::string BaselineLabel(const CompareDimension& dimension);
// "container" (the other runtime), "drop", the other device id, "real",
// "co-located".
std::string OtherLabel(const CompareDimension& dimension);

enum class Side { kBaseline, kOther };

// The run's side; nullopt when the run is on neither (e.g. a runtime not
// compared, or a baseload run compared by page cache). kDevice decides by
// the device the run ran on, so the spec alone gives nullopt: use the
// overload with the device id. kRuntime here compares native with
// container; the overload takes the dimension's runtimes.
std::optional<Side> SideOf(CompareBy by, const v1::RunSpec& spec);
std::optional<Side> SideOf(const CompareDimension& dimension,
                           const v1::RunSpec& spec,
                           const std::string& device_id);

// The run's spec with the repetition, attempt, run id and sweep id cleared
// (the device class and everything else kept): runs with equal keys repeat
// one another, on whichever device of the class they ran.
v1::RunSpec RepetitionKey(const v1::RunSpec& spec);

// RepetitionKey with the placement (RunSpec.devices) cleared too: runs
// with equal keys repeat one another on any device instance (a sweep with
// `placement: every_device` pins each run to one device).
v1::RunSpec InstanceKey(const v1::RunSpec& spec);

// RepetitionKey with the compared dimension cleared too (by device:
// InstanceKey): runs with equal keys are in one cell.
v1::RunSpec CellKey(CompareBy by, const v1::RunSpec& spec);

// "lenet5/fashion-mnist train bs=32 workers=0 | host | MAXN cores=4"
// (compared by data, the key has no data set: "lenet5 train ..."), then
// the runtime when the key has one other than native, and co-located
// tenants ("| container x4 tenants"; compared by runtime the key has no
// runtime: "| x4 tenants").
std::string CellLabel(const v1::RunSpec& key);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_CELLS_H_
