#include "controller/analysis/sweep_summaries.h"

#include <map>
#include <string>

#include "common/status_macros.h"
#include "controller/analysis/baseload.h"
#include "controller/analysis/run_summary.h"

namespace powersweep {

absl::StatusOr<std::vector<v1::RunStatus>> ListRunsWithSummaries(
    Store* store, int64_t sweep_id) {
  PS_ASSIGN_OR_RETURN(std::vector<v1::RunStatus> runs,
                      store->ListRuns(sweep_id));
  PS_ASSIGN_OR_RETURN(std::vector<RunAggregates> aggregates,
                      store->GetSweepAggregates(sweep_id));
  PS_ASSIGN_OR_RETURN(std::vector<v1::RunResult> results,
                      store->ListRunResults(sweep_id));

  std::map<int64_t, const RecordAggregates*> by_run;
  for (const RunAggregates& a : aggregates) by_run[a.run_id] = &a.aggregates;
  std::map<int64_t, const v1::RunResult*> result_of;
  for (const v1::RunResult& r : results) result_of[r.run_id()] = &r;

  for (v1::RunStatus& run : runs) {
    const int64_t id = run.spec().run_id();
    v1::RunSummary* s = run.mutable_summary();
    double power_span_s = 0;
    auto agg = by_run.find(id);
    if (agg != by_run.end()) {
      *s = agg->second->summary;
      power_span_s = agg->second->power_span_s;
    }
    auto res = result_of.find(id);
    const v1::RunResult* result = res == result_of.end() ? nullptr : res->second;
    if (result != nullptr) ApplyResult(*result, s);
    ApplyEnergySpan(result, power_span_s, s);
    ApplyRunBaseload(run, result, s);
  }
  return runs;
}

}  // namespace powersweep
