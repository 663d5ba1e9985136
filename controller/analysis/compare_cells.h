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

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

// The dimension compared; another dimension needs a name, its two sides
// (SideOf) and its fields cleared in CellKey.
// kRuntime: native (baseline; RUNTIME_UNSPECIFIED counts as native, as the
// sweep defaults do) vs container. kPageCache: the data set's pages kept in
// the page cache between epochs (baseline) vs dropped.
enum class CompareBy { kRuntime, kPageCache };

// "runtime" -> kRuntime, "page_cache" (or "page-cache") -> kPageCache;
// InvalidArgument naming --by otherwise.
absl::StatusOr<CompareBy> ParseCompareBy(absl::string_view name);
std::string CompareByName(CompareBy by);  // "runtime", "page_cache"
std::string BaselineLabel(CompareBy by);  // "native", "keep"
std::string OtherLabel(CompareBy by);     // "container", "drop"

enum class Side { kBaseline, kOther };

// The run's side; nullopt when the run is on neither (e.g. an unknown
// runtime value, or a baseload run compared by page cache).
std::optional<Side> SideOf(CompareBy by, const v1::RunSpec& spec);

// The run's spec with the repetition, attempt, run id and sweep id cleared
// (the device class and everything else kept): runs with equal keys repeat
// one another, on whichever device of the class they ran.
v1::RunSpec RepetitionKey(const v1::RunSpec& spec);

// RepetitionKey with the compared dimension cleared too: runs with equal
// keys are in one cell.
v1::RunSpec CellKey(CompareBy by, const v1::RunSpec& spec);

// "lenet5/fashion-mnist train bs=32 workers=0 | host | MAXN cores=4"
std::string CellLabel(const v1::RunSpec& key);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_CELLS_H_
