// MemoryStore: what the sweep tables read: per-run aggregates, results,
// baseload runs.
#include "storage/memory_store.h"

#include <vector>

#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "storage/record_aggregates.h"

namespace powersweep {

absl::StatusOr<std::vector<RunAggregates>> MemoryStore::GetSweepAggregates(
    int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Sweep* sweep, FindSweep(sweep_id));
  std::vector<RunAggregates> out;
  for (int64_t id : sweep->run_ids) {
    Run& run = runs_.at(id);
    const Attempt& a = Current(run);
    RecordAggregator agg;
    for (const v1::MinibatchRecord& r : SortedMinibatches(a)) {
      if (r.warmup()) continue;  // warm-up is left out, as in SqliteStore
      agg.AddMinibatch(r.e2e_s(), r.stall_s(), r.compute_s(), r.samples(),
                       r.has_loss(), r.loss());
      agg.AddTokens(r.tokens(), r.has_ttft_s() ? r.ttft_s() : -1,
                    r.has_per_token_s() ? r.per_token_s() : -1);
    }
    for (const v1::TelemetrySample& t : SortedTelemetry(a)) {
      agg.AddSample(t.t_s(), t.cpu_util(), t.proc_rss_bytes());
      if (t.power_mw() > 0)
        agg.AddPowerReading(t.t_s(), t.power_mw(), t.power_provenance());
    }
    out.push_back({id, run.spec.attempt(), agg.Finish()});
  }
  return out;
}

absl::StatusOr<std::vector<v1::RunResult>> MemoryStore::ListRunResults(
    int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Sweep* sweep, FindSweep(sweep_id));
  std::vector<v1::RunResult> out;
  for (int64_t id : sweep->run_ids) {
    const Attempt& a = Current(runs_.at(id));
    if (a.result.has_value()) out.push_back(*a.result);
  }
  return out;
}

absl::StatusOr<std::vector<RunWithResult>> MemoryStore::FindBaseloads(
    const std::string& device_id, const v1::PowerMode* mode) {
  absl::MutexLock lock(&mu_);
  std::vector<RunWithResult> out;
  for (auto& [id, run] : runs_) {
    const Attempt& a = Current(run);
    if (run.spec.workload().task() != v1::TASK_BASELOAD ||
        run.state != v1::RUN_STATE_DONE || !a.result.has_value() ||
        (!device_id.empty() && run.device_id != device_id) ||
        (mode != nullptr && !google::protobuf::util::MessageDifferencer::Equals(
                                run.spec.power_mode(), *mode))) {
      continue;
    }
    out.push_back({StatusOf(run), *a.result});
  }
  return out;
}

}  // namespace powersweep
