// MemoryStore: data batches, run results and the records they hold.
#include "storage/memory_store.h"

#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/status_macros.h"
#include "storage/schema_text.h"

namespace powersweep {
namespace {

// NaN where SqliteStore has a NOT NULL REAL column (NaN binds as NULL).
absl::Status CheckNumber(double value, const char* what, int64_t run_id) {
  if (std::isnan(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("run ", run_id, ": ", what, " is NaN"));
  }
  return absl::OkStatus();
}

absl::Status CheckBatch(const v1::DataBatch& batch) {
  const int64_t id = batch.run_id();
  for (const v1::MinibatchRecord& r : batch.minibatches()) {
    for (const auto& [v, what] :
         {std::pair<double, const char*>{r.t_start_s(), "minibatch t_start_s"},
          {r.stall_s(), "minibatch stall_s"},
          {r.compute_s(), "minibatch compute_s"},
          {r.e2e_s(), "minibatch e2e_s"},
          {r.loss(), "minibatch loss"}}) {
      if (absl::Status st = CheckNumber(v, what, id); !st.ok()) return st;
    }
  }
  for (const v1::TelemetrySample& s : batch.telemetry()) {
    for (const auto& [v, what] :
         {std::pair<double, const char*>{s.t_s(), "telemetry t_s"},
          {s.cpu_util(), "telemetry cpu_util"},
          {s.proc_cpu_s(), "telemetry proc_cpu_s"},
          {s.gpu_util(), "telemetry gpu_util"},
          {s.power_mw(), "telemetry power_mw"}}) {
      if (absl::Status st = CheckNumber(v, what, id); !st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckResult(const v1::RunResult& r) {
  for (const auto& [v, what] :
       {std::pair<double, const char*>{r.duration_s(), "result duration_s"},
        {r.energy_j(), "result energy_j"},
        {r.sampler_cpu_s(), "result sampler_cpu_s"}}) {
    if (absl::Status st = CheckNumber(v, what, r.run_id()); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// A record's number as a REAL column of SqliteStore gives it back: SQLite
// stores whole numbers as integers, so -0.0 comes back as 0.0.
double AsStored(double v) { return v == 0 ? 0.0 : v; }

}  // namespace

absl::StatusOr<IngestOutcome> MemoryStore::IngestBatch(
    const v1::DataBatch& batch) {
  if (batch.seq() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch seq must be >= 1, got ", batch.seq(), " for run ",
                     batch.run_id()));
  }
  if (batch.attempt() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch attempt must be >= 0, got ", batch.attempt(),
                     " for run ", batch.run_id()));
  }
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* found, FindRun(batch.run_id()));
  Run& run = *found;
  const int32_t current = run.spec.attempt();
  const int32_t attempt = batch.attempt() == 0 ? current : batch.attempt();
  if (attempt != current) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", batch.run_id(), " is on attempt ", current,
                     "; batch of attempt ", attempt, " not stored"));
  }
  Attempt& a = Current(run);
  if (a.seqs.count(batch.seq()) > 0) {
    const std::pair<int, int> had = a.seq_rows[batch.seq()];
    return had == std::make_pair(batch.minibatches_size(),
                                 batch.telemetry_size())
               ? IngestOutcome::kDuplicate
               : IngestOutcome::kConflict;
  }
  if (absl::Status st = CheckBatch(batch); !st.ok()) return st;
  a.seqs.insert(batch.seq());
  a.seq_rows[batch.seq()] = {batch.minibatches_size(), batch.telemetry_size()};
  for (const v1::MinibatchRecord& r : batch.minibatches()) {
    Minibatch& m = a.minibatches.emplace_back();
    m.seq = batch.seq();
    m.record = r;
    v1::MinibatchRecord& c = m.record;
    c.set_t_start_s(AsStored(r.t_start_s()));
    c.set_stall_s(AsStored(r.stall_s()));
    c.set_compute_s(AsStored(r.compute_s()));
    c.set_e2e_s(AsStored(r.e2e_s()));
    if (r.has_loss()) c.set_loss(AsStored(r.loss()));
    if (r.has_page_cache_resident()) {
      // A NaN is stored as no value (SQL NULL).
      if (std::isnan(r.page_cache_resident())) {
        c.clear_page_cache_resident();
      } else {
        c.set_page_cache_resident(AsStored(r.page_cache_resident()));
      }
    }
    // The generation latencies likewise (nullable columns in SQLite).
    if (r.has_ttft_s() && std::isnan(r.ttft_s())) c.clear_ttft_s();
    if (r.has_per_token_s() && std::isnan(r.per_token_s())) {
      c.clear_per_token_s();
    }
  }
  for (const v1::TelemetrySample& s : batch.telemetry()) {
    Sample& stored = a.telemetry.emplace_back();
    stored.seq = batch.seq();
    stored.sample = s;
    v1::TelemetrySample& c = stored.sample;
    c.set_t_s(AsStored(s.t_s()));
    c.set_cpu_util(AsStored(s.cpu_util()));
    c.set_proc_cpu_s(AsStored(s.proc_cpu_s()));
    c.set_gpu_util(AsStored(s.gpu_util()));
    c.set_power_mw(AsStored(s.power_mw()));
  }
  return IngestOutcome::kStored;
}

absl::StatusOr<int64_t> MemoryStore::CountBatches(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  return static_cast<int64_t>(Current(*run).seqs.size());
}

absl::StatusOr<std::vector<int64_t>> MemoryStore::ListBatchSeqs(
    int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  const std::set<int64_t>& seqs = Current(*run).seqs;
  return std::vector<int64_t>(seqs.begin(), seqs.end());
}

absl::Status MemoryStore::FinishRun(const v1::RunResult& result,
                                    v1::RunState final_state,
                                    const std::string& reason, absl::Time now) {
  if (final_state != v1::RUN_STATE_DONE &&
      final_state != v1::RUN_STATE_FAILED) {
    return absl::InvalidArgumentError(
        absl::StrCat("final state of run ", result.run_id(),
                     " must be done or failed, got ", StateText(final_state)));
  }
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* found, FindRun(result.run_id()));
  Run& run = *found;
  Attempt& a = Current(run);
  if (a.result.has_value()) return absl::OkStatus();  // a resend
  // Validate everything before changing anything.
  if (absl::Status st = CheckTransition(run, final_state, ""); !st.ok())
    return st;
  if (absl::Status st = CheckResult(result); !st.ok()) return st;
  PS_RETURN_IF_ERROR(ApplyTransition(run, final_state, "", reason, now));
  a.result = result;
  if (result.has_applied_mode()) run.applied_mode = result.applied_mode();
  return absl::OkStatus();
}

absl::StatusOr<v1::RunResult> MemoryStore::GetRunResult(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  const Attempt& a = Current(*run);
  if (!a.result.has_value()) {
    return absl::NotFoundError(absl::StrCat("run ", run_id,
                                            " has no result for attempt ",
                                            run->spec.attempt(), " yet"));
  }
  return *a.result;
}

absl::StatusOr<std::vector<v1::MinibatchRecord>> MemoryStore::GetMinibatches(
    int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  return SortedMinibatches(Current(*run));
}

absl::StatusOr<std::vector<v1::TelemetrySample>> MemoryStore::GetTelemetry(
    int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  return SortedTelemetry(Current(*run));
}

}  // namespace powersweep
