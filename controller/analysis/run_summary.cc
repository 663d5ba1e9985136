#include "controller/analysis/run_summary.h"

#include <algorithm>
#include <optional>

#include "absl/status/status.h"

namespace powersweep {
namespace {

constexpr size_t kLossWindow = 5;  // minibatches averaged for first/last loss

double MeanLoss(const std::vector<v1::MinibatchRecord>& mb, size_t begin,
                size_t end) {
  if (begin >= end) return 0;
  double sum = 0;
  for (size_t i = begin; i < end; ++i) sum += mb[i].loss();
  return sum / static_cast<double>(end - begin);
}

void SummarizeMinibatches(const std::vector<v1::MinibatchRecord>& mb,
                          v1::RunSummary* s) {
  s->set_minibatches(static_cast<int64_t>(mb.size()));
  if (mb.empty()) return;
  double e2e = 0, stall = 0, compute = 0, samples = 0;
  for (const v1::MinibatchRecord& r : mb) {
    e2e += r.e2e_s();
    stall += r.stall_s();
    compute += r.compute_s();
    samples += r.samples();
  }
  const double n = static_cast<double>(mb.size());
  s->set_mean_minibatch_s(e2e / n);
  s->set_mean_stall_s(stall / n);
  s->set_mean_compute_s(compute / n);
  s->set_samples_per_s(e2e > 0 ? samples / e2e : 0);
  const size_t window = std::min(kLossWindow, mb.size());
  s->set_first_loss(MeanLoss(mb, 0, window));
  s->set_last_loss(MeanLoss(mb, mb.size() - window, mb.size()));
}

// Trapezoid integral of total power over the samples that carry a power
// reading (power_mw > 0), in time order; a sample without a reading is
// bridged by the line between its neighbours. Provenance: the least direct
// one among the samples used (measured < emulated < modeled < simulated).
void IntegrateEnergy(const std::vector<v1::TelemetrySample>& telemetry,
                     v1::RunSummary* s) {
  std::vector<const v1::TelemetrySample*> powered;
  for (const v1::TelemetrySample& t : telemetry) {
    if (t.power_mw() > 0) powered.push_back(&t);
  }
  std::stable_sort(
      powered.begin(), powered.end(),
      [](const auto* a, const auto* b) { return a->t_s() < b->t_s(); });
  if (powered.size() < 2) return;
  double joules = 0;
  int provenance = v1::PROVENANCE_UNSPECIFIED;
  for (size_t i = 0; i < powered.size(); ++i) {
    provenance = std::max<int>(provenance, powered[i]->power_provenance());
    if (i == 0) continue;
    const double dt = powered[i]->t_s() - powered[i - 1]->t_s();
    joules += 0.5 * (powered[i]->power_mw() + powered[i - 1]->power_mw()) /
              1000.0 * dt;
  }
  s->set_energy_j(joules);
  s->set_energy_provenance(static_cast<v1::Provenance>(provenance));
}

void SummarizeTelemetry(const std::vector<v1::TelemetrySample>& telemetry,
                        v1::RunSummary* s) {
  s->set_telemetry_samples(static_cast<int64_t>(telemetry.size()));
  if (telemetry.empty()) return;
  double util = 0, last_t = 0;
  int64_t peak_rss = 0;
  for (const v1::TelemetrySample& t : telemetry) {
    util += t.cpu_util();
    peak_rss = std::max(peak_rss, t.proc_rss_bytes());
    last_t = std::max(last_t, t.t_s());
  }
  s->set_mean_cpu_util(util / static_cast<double>(telemetry.size()));
  s->set_peak_rss_bytes(peak_rss);
  s->set_duration_s(last_t);
  IntegrateEnergy(telemetry, s);
}

}  // namespace

v1::RunSummary SummarizeRun(const std::vector<v1::MinibatchRecord>& minibatches,
                            const std::vector<v1::TelemetrySample>& telemetry,
                            const v1::RunResult* result) {
  v1::RunSummary s;
  SummarizeMinibatches(minibatches, &s);
  SummarizeTelemetry(telemetry, &s);
  if (result != nullptr) {
    // The agent's own figures win: it saw every sample, including any not
    // yet (or never) delivered to the controller.
    if (result->duration_s() > 0) s.set_duration_s(result->duration_s());
    if (result->energy_j() > 0 ||
        result->energy_provenance() != v1::PROVENANCE_UNSPECIFIED) {
      s.set_energy_j(result->energy_j());
      s.set_energy_provenance(result->energy_provenance());
      s.set_energy_stall_j(result->energy_stall_j());
      s.set_energy_compute_j(result->energy_compute_j());
    }
    s.set_agent_cpu_fraction(result->agent_cpu_fraction());
  }
  return s;
}

namespace {

// Seconds between the first and the last sample with a power reading.
double PowerSpanS(const std::vector<v1::TelemetrySample>& telemetry) {
  double first = 0, last = 0;
  bool any = false;
  for (const v1::TelemetrySample& t : telemetry) {
    if (!(t.power_mw() > 0)) continue;
    first = any ? std::min(first, t.t_s()) : t.t_s();
    last = any ? std::max(last, t.t_s()) : t.t_s();
    any = true;
  }
  return last - first;
}

}  // namespace

absl::StatusOr<v1::RunSummary> SummarizeStoredRun(
    Store* store, int64_t run_id, const std::vector<BaseloadRun>& baseloads) {
  absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
  if (!run.ok()) return run.status();
  absl::StatusOr<std::vector<v1::TelemetrySample>> tel =
      store->GetTelemetry(run_id);
  if (!tel.ok()) return tel.status();
  absl::StatusOr<v1::RunResult> result = store->GetRunResult(run_id);
  if (!result.ok() && !absl::IsNotFound(result.status())) {
    return result.status();
  }
  absl::StatusOr<std::vector<v1::MinibatchRecord>> mb =
      store->GetMinibatches(run_id);
  if (!mb.ok()) return mb.status();
  v1::RunSummary s = SummarizeRun(*mb, *tel, result.ok() ? &*result : nullptr);
  if (run->spec().workload().task() == v1::TASK_BASELOAD) {
    if (result.ok()) {
      std::optional<BaseloadRun> self = AsBaseload(*run, *result);
      if (self.has_value()) {
        s.set_baseload_power_mw(self->power_mw);
        s.set_baseload_run_id(self->run_id);
      }
    }
    return s;
  }
  if (result.ok() && result->baseload_run_id() > 0) {
    // Stored when the run finished (controller/core/ingest.cc).
    s.set_baseload_power_mw(result->baseload_power_mw());
    s.set_baseload_run_id(result->baseload_run_id());
    s.set_incremental_energy_j(result->incremental_energy_j());
    return s;
  }
  std::optional<BaseloadRun> base = PickBaseload(*run, baseloads);
  if (base.has_value()) {
    const double span = result.ok() && result->energy_span_s() > 0
                            ? result->energy_span_s()
                            : PowerSpanS(*tel);
    ApplyBaseload(*base, span, &s);
  }
  return s;
}

absl::StatusOr<v1::RunSummary> SummarizeStoredRun(Store* store,
                                                  int64_t run_id) {
  absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
  if (!run.ok()) return run.status();
  absl::StatusOr<std::vector<v1::MinibatchRecord>> mb =
      store->GetMinibatches(run_id);
  if (!mb.ok()) return mb.status();
  absl::StatusOr<std::vector<v1::TelemetrySample>> tel =
      store->GetTelemetry(run_id);
  if (!tel.ok()) return tel.status();
  absl::StatusOr<v1::RunResult> result = store->GetRunResult(run_id);
  if (!result.ok() && !absl::IsNotFound(result.status())) {
    return result.status();
  }
  return SummarizeRun(*mb, *tel, result.ok() ? &*result : nullptr);
}

}  // namespace powersweep
