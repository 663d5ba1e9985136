// One run as the store holds it: its status, its result (if the agent sent
// one), its minibatch records and telemetry samples. What the run summaries
// (run_summary.h), run metrics (run_metrics.h) and the modeling
// observations read per run. Thread-safe (the store is).
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_STORED_RUN_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_STORED_RUN_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "powersweep/v1/records.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/telemetry.pb.h"
#include "storage/store.h"

namespace powersweep {

struct StoredRun {
  v1::RunStatus run;
  std::optional<v1::RunResult> result;  // none while the run has no result
  std::vector<v1::MinibatchRecord> minibatches;
  std::vector<v1::TelemetrySample> telemetry;

  // The result or null.
  const v1::RunResult* result_or_null() const {
    return result.has_value() ? &*result : nullptr;
  }
};

// NotFound for an unknown run; other store errors as the store returns
// them. A run without a result is no error.
absl::StatusOr<StoredRun> LoadStoredRun(Store* store, int64_t run_id);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_STORED_RUN_H_
