#include "controller/analysis/stored_run.h"

#include <utility>

#include "absl/status/status.h"
#include "common/status_macros.h"

namespace powersweep {

absl::StatusOr<StoredRun> LoadStoredRun(Store* store, int64_t run_id) {
  StoredRun out;
  PS_ASSIGN_OR_RETURN(out.run, store->GetRun(run_id));
  absl::StatusOr<v1::RunResult> result = store->GetRunResult(run_id);
  if (result.ok()) {
    out.result = *std::move(result);
  } else if (!absl::IsNotFound(result.status())) {
    return result.status();
  }
  PS_ASSIGN_OR_RETURN(out.minibatches, store->GetMinibatches(run_id));
  PS_ASSIGN_OR_RETURN(out.telemetry, store->GetTelemetry(run_id));
  return out;
}

}  // namespace powersweep
