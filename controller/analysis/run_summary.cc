#include "controller/analysis/run_summary.h"

#include <algorithm>
#include <optional>

#include "absl/status/status.h"
#include "common/status_macros.h"
#include "controller/analysis/stored_run.h"
#include "storage/record_aggregates.h"

namespace powersweep {
namespace {

// The records' aggregates: minibatches in the given order (but warm-up),
// every sample,
// and the power readings in time order (stable: ties keep their order).
RecordAggregates Aggregate(const std::vector<v1::MinibatchRecord>& minibatches,
                           const std::vector<v1::TelemetrySample>& telemetry) {
  RecordAggregator agg;
  for (const v1::MinibatchRecord& r : minibatches) {
    if (r.warmup()) continue;  // warm-up minibatches are left out
    agg.AddMinibatch(r.e2e_s(), r.stall_s(), r.compute_s(), r.samples(),
                     r.has_loss(), r.loss());
    agg.AddTokens(r.tokens(), r.has_ttft_s() ? r.ttft_s() : -1,
                  r.has_per_token_s() ? r.per_token_s() : -1);
  }
  std::vector<const v1::TelemetrySample*> powered;
  for (const v1::TelemetrySample& t : telemetry) {
    agg.AddSample(t.t_s(), t.cpu_util(), t.proc_rss_bytes());
    if (t.power_mw() > 0) powered.push_back(&t);
  }
  std::stable_sort(
      powered.begin(), powered.end(),
      [](const auto* a, const auto* b) { return a->t_s() < b->t_s(); });
  for (const v1::TelemetrySample* t : powered) {
    agg.AddPowerReading(t->t_s(), t->power_mw(), t->power_provenance());
  }
  return agg.Finish();
}

}  // namespace

void ApplyResult(const v1::RunResult& result, v1::RunSummary* s) {
  // The agent's own figures win: it saw every sample, including any not
  // yet (or never) delivered to the controller.
  if (result.duration_s() > 0) s->set_duration_s(result.duration_s());
  if (result.energy_j() > 0 ||
      result.energy_provenance() != v1::PROVENANCE_UNSPECIFIED) {
    s->set_energy_j(result.energy_j());
    s->set_energy_provenance(result.energy_provenance());
    s->set_energy_stall_j(result.energy_stall_j());
    s->set_energy_compute_j(result.energy_compute_j());
  }
  s->set_agent_cpu_fraction(result.agent_cpu_fraction());
  if (result.has_other_cpu_cores()) {
    s->set_other_cpu_cores(result.other_cpu_cores());
  }
  const v1::BuildProvenance& p = result.provenance();
  if (p.workload().has_kernel() && s->mean_compute_s() > 0) {
    const v1::KernelInfo& k = p.workload().kernel();
    s->set_kernel_gflop_per_s(k.flops() / s->mean_compute_s() / 1e9);
    s->set_kernel_launches_per_s(k.launches() / s->mean_compute_s());
  }
}

void ApplyEnergySpan(const v1::RunResult* result, double power_span_s,
                     v1::RunSummary* s) {
  s->clear_energy_span_s();
  s->clear_mean_power_mw();
  if (!(s->energy_j() > 0)) return;
  const bool from_result =
      result != nullptr && (result->energy_j() > 0 ||
                            result->energy_provenance() !=
                                v1::PROVENANCE_UNSPECIFIED);
  double span = from_result && result->energy_span_s() > 0
                    ? result->energy_span_s()
                    : power_span_s;
  // A result with energy but no span (an agent older than energy_span_s,
  // no power samples stored): the run's duration is the best span known.
  if (!(span > 0)) span = s->duration_s();
  if (!(span > 0)) return;
  s->set_energy_span_s(span);
  s->set_mean_power_mw(s->energy_j() * 1000.0 / span);
}

v1::RunSummary SummarizeRun(const std::vector<v1::MinibatchRecord>& minibatches,
                            const std::vector<v1::TelemetrySample>& telemetry,
                            const v1::RunResult* result) {
  RecordAggregates agg = Aggregate(minibatches, telemetry);
  v1::RunSummary s = std::move(agg.summary);
  if (result != nullptr) ApplyResult(*result, &s);
  ApplyEnergySpan(result, agg.power_span_s, &s);
  return s;
}

void ApplyRunBaseload(const v1::RunStatus& run, const v1::RunResult* result,
                      v1::RunSummary* s) {
  if (run.spec().workload().task() == v1::TASK_BASELOAD) {
    if (result != nullptr) {
      std::optional<BaseloadRun> self = AsBaseload(run, *result);
      if (self.has_value()) {
        s->set_baseload_power_mw(self->power_mw);
        s->set_baseload_run_id(self->run_id);
      }
    }
    return;
  }
  if (result != nullptr && result->baseload_run_id() > 0) {
    // Stored when the run finished (controller/core/ingest.cc).
    s->set_baseload_power_mw(result->baseload_power_mw());
    s->set_baseload_run_id(result->baseload_run_id());
    s->set_incremental_energy_j(result->incremental_energy_j());
  }
}

absl::StatusOr<v1::RunSummary> SummarizeStoredRun(Store* store,
                                                  int64_t run_id) {
  PS_ASSIGN_OR_RETURN(StoredRun stored, LoadStoredRun(store, run_id));
  const v1::RunResult* res = stored.result_or_null();
  RecordAggregates agg = Aggregate(stored.minibatches, stored.telemetry);
  v1::RunSummary s = std::move(agg.summary);
  if (res != nullptr) ApplyResult(*res, &s);
  ApplyEnergySpan(res, agg.power_span_s, &s);
  ApplyRunBaseload(stored.run, res, &s);
  return s;
}

}  // namespace powersweep
