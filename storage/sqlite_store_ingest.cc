// SqliteStore: data batches, run results and reading records back.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/proto_json.h"
#include "storage/schema_text.h"
#include "storage/sqlite_store.h"
#include "storage/status_macros.h"

namespace powersweep {
namespace {

using TxnKind = SqliteDb::TxnKind;

// The rails of a sample as JSON: a TelemetrySample holding only its rails.
std::string RailsJson(const v1::TelemetrySample& sample) {
  if (sample.rails_size() == 0) return std::string();
  v1::TelemetrySample rails_only;
  *rails_only.mutable_rails() = sample.rails();
  return ToJsonLine(rails_only);
}

}  // namespace

absl::StatusOr<IngestOutcome> SqliteStore::IngestBatch(const v1::DataBatch& batch) {
  if (batch.seq() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch seq must be >= 1, got ", batch.seq(), " for run ", batch.run_id()));
  }
  absl::MutexLock lock(&mu_);
  IngestOutcome outcome = IngestOutcome::kStored;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kWrite, [&]() -> absl::Status {
    PS_RETURN_IF_ERROR(RequireRun(batch.run_id()));
    {
      PS_ASSIGN_OR_RETURN(Stmt stmt,
                          db_->Prepare("INSERT OR IGNORE INTO batches(run_id, seq,"
                                       " minibatches, telemetry) VALUES (?1, ?2, ?3, ?4)"));
      PS_RETURN_IF_ERROR(stmt.Bind(1, batch.run_id())
                             .Bind(2, batch.seq())
                             .Bind(3, batch.minibatches_size())
                             .Bind(4, batch.telemetry_size())
                             .Run());
    }
    if (db_->Changes() == 0) {
      outcome = IngestOutcome::kDuplicate;
      return absl::OkStatus();
    }
    PS_ASSIGN_OR_RETURN(
        Stmt mb, db_->Prepare("INSERT INTO minibatches(run_id, seq, idx, epoch,"
                              " t_start_s, stall_s, compute_s, e2e_s, samples, loss)"
                              " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
    for (const v1::MinibatchRecord& r : batch.minibatches()) {
      PS_RETURN_IF_ERROR(mb.Bind(1, batch.run_id())
                             .Bind(2, batch.seq())
                             .Bind(3, r.index())
                             .Bind(4, r.epoch())
                             .Bind(5, r.t_start_s())
                             .Bind(6, r.stall_s())
                             .Bind(7, r.compute_s())
                             .Bind(8, r.e2e_s())
                             .Bind(9, r.samples())
                             .Bind(10, r.loss())
                             .Run());
      mb.Reset();
    }
    PS_ASSIGN_OR_RETURN(
        Stmt tm, db_->Prepare("INSERT INTO telemetry(run_id, seq, t_s, cpu_util,"
                              " core_util, core_freq_khz, mem_used_bytes,"
                              " mem_total_bytes, proc_cpu_s, proc_rss_bytes, gpu_util,"
                              " gpu_freq_hz, power_mw, power_provenance, rails_json)"
                              " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
                              " ?12, ?13, ?14, ?15)"));
    for (const v1::TelemetrySample& s : batch.telemetry()) {
      std::vector<double> utils;
      std::vector<int64_t> freqs;
      for (const v1::CoreSample& core : s.cores()) {
        utils.push_back(core.util());
        freqs.push_back(core.freq_khz());
      }
      std::string rails = RailsJson(s);
      tm.Bind(1, batch.run_id())
          .Bind(2, batch.seq())
          .Bind(3, s.t_s())
          .Bind(4, s.cpu_util())
          .Bind(5, JoinDoubles(utils))
          .Bind(6, JoinInts(freqs))
          .Bind(7, s.mem_used_bytes())
          .Bind(8, s.mem_total_bytes())
          .Bind(9, s.proc_cpu_s())
          .Bind(10, s.proc_rss_bytes())
          .Bind(11, s.gpu_util())
          .Bind(12, s.gpu_freq_hz())
          .Bind(13, s.power_mw())
          .Bind(14, ProvenanceText(s.power_provenance()));
      if (rails.empty()) {
        tm.BindNull(15);
      } else {
        tm.Bind(15, rails);
      }
      PS_RETURN_IF_ERROR(tm.Run());
      tm.Reset();
    }
    return absl::OkStatus();
  }));
  return outcome;
}

absl::StatusOr<int64_t> SqliteStore::CountBatches(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  int64_t count = 0;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() -> absl::Status {
    PS_RETURN_IF_ERROR(RequireRun(run_id));
    PS_ASSIGN_OR_RETURN(Stmt stmt,
                        db_->Prepare("SELECT COUNT(*) FROM batches WHERE run_id = ?1"));
    PS_RETURN_IF_ERROR(stmt.Bind(1, run_id).Step().status());
    count = stmt.Int(0);
    return absl::OkStatus();
  }));
  return count;
}

absl::Status SqliteStore::InsertResult(const v1::RunResult& result) {
  PS_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->Prepare("INSERT INTO run_results(run_id, ok, reason, exit_code,"
                   " term_signal, duration_s, energy_j, energy_provenance,"
                   " sampler_cpu_s, framework, framework_version, binary_fingerprint,"
                   " framework_fingerprint, threads, compute_device, kernel, host,"
                   " result_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
                   " ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)"));
  const v1::BuildProvenance& p = result.provenance();
  return stmt.Bind(1, result.run_id())
      .Bind(2, result.ok() ? 1 : 0)
      .Bind(3, result.reason())
      .Bind(4, result.exit_code())
      .Bind(5, result.term_signal())
      .Bind(6, result.duration_s())
      .Bind(7, result.energy_j())
      .Bind(8, ProvenanceText(result.energy_provenance()))
      .Bind(9, result.sampler_cpu_s())
      .Bind(10, p.framework())
      .Bind(11, p.framework_version())
      .Bind(12, p.binary_fingerprint())
      .Bind(13, p.framework_fingerprint())
      .Bind(14, p.threads())
      .Bind(15, p.device())
      .Bind(16, p.kernel())
      .Bind(17, p.host())
      .Bind(18, ToJsonLine(result))
      .Run();
}

absl::Status SqliteStore::FinishRun(const v1::RunResult& result,
                                    v1::RunState final_state,
                                    const std::string& reason, absl::Time now) {
  if (final_state != v1::RUN_STATE_DONE && final_state != v1::RUN_STATE_FAILED) {
    return absl::InvalidArgumentError(
        absl::StrCat("final state of run ", result.run_id(), " must be done or failed, got ",
                     StateText(final_state)));
  }
  absl::MutexLock lock(&mu_);
  return db_->Transaction(TxnKind::kWrite, [&]() -> absl::Status {
    PS_ASSIGN_OR_RETURN(v1::RunStatus run, LoadRun(result.run_id()));
    {
      PS_ASSIGN_OR_RETURN(Stmt stmt,
                          db_->Prepare("SELECT 1 FROM run_results WHERE run_id = ?1"));
      PS_ASSIGN_OR_RETURN(bool exists, stmt.Bind(1, result.run_id()).Step());
      if (exists) return absl::OkStatus();  // a resend: already stored
    }
    // Validate the transition before writing anything.
    PS_RETURN_IF_ERROR(ApplyTransition(run, final_state, std::string(), reason, now));
    PS_RETURN_IF_ERROR(InsertResult(result));
    if (result.has_applied_mode()) {
      PS_ASSIGN_OR_RETURN(
          Stmt stmt,
          db_->Prepare("UPDATE runs SET applied_mode_json = ?2 WHERE run_id = ?1"));
      PS_RETURN_IF_ERROR(
          stmt.Bind(1, result.run_id()).Bind(2, ToJsonLine(result.applied_mode())).Run());
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<v1::RunResult> SqliteStore::GetRunResult(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  v1::RunResult result;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() -> absl::Status {
    PS_RETURN_IF_ERROR(RequireRun(run_id));
    PS_ASSIGN_OR_RETURN(Stmt stmt,
                        db_->Prepare("SELECT result_json FROM run_results WHERE run_id = ?1"));
    PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, run_id).Step());
    if (!row) return absl::NotFoundError(absl::StrCat("run ", run_id, " has no result yet"));
    return FromJson(stmt.Text(0), &result);
  }));
  return result;
}

absl::StatusOr<std::vector<v1::MinibatchRecord>> SqliteStore::GetMinibatches(
    int64_t run_id) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::MinibatchRecord> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() -> absl::Status {
    PS_RETURN_IF_ERROR(RequireRun(run_id));
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("SELECT epoch, idx, t_start_s, stall_s, compute_s, e2e_s,"
                                " samples, loss FROM minibatches WHERE run_id = ?1"
                                " ORDER BY idx, rowid"));
    stmt.Bind(1, run_id);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      v1::MinibatchRecord& r = out.emplace_back();
      r.set_epoch(static_cast<int32_t>(stmt.Int(0)));
      r.set_index(stmt.Int(1));
      r.set_t_start_s(stmt.Double(2));
      r.set_stall_s(stmt.Double(3));
      r.set_compute_s(stmt.Double(4));
      r.set_e2e_s(stmt.Double(5));
      r.set_samples(static_cast<int32_t>(stmt.Int(6)));
      r.set_loss(stmt.Double(7));
    }
  }));
  return out;
}

absl::StatusOr<std::vector<v1::TelemetrySample>> SqliteStore::GetTelemetry(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::TelemetrySample> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() -> absl::Status {
    PS_RETURN_IF_ERROR(RequireRun(run_id));
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare("SELECT t_s, cpu_util, core_util, core_freq_khz, mem_used_bytes,"
                     " mem_total_bytes, proc_cpu_s, proc_rss_bytes, gpu_util,"
                     " gpu_freq_hz, power_mw, power_provenance, rails_json"
                     " FROM telemetry WHERE run_id = ?1 ORDER BY t_s, rowid"));
    stmt.Bind(1, run_id);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      v1::TelemetrySample& s = out.emplace_back();
      if (!stmt.IsNull(12)) PS_RETURN_IF_ERROR(FromJson(stmt.Text(12), &s));
      s.set_t_s(stmt.Double(0));
      s.set_cpu_util(stmt.Double(1));
      PS_ASSIGN_OR_RETURN(std::vector<double> utils, SplitDoubles(stmt.Text(2)));
      PS_ASSIGN_OR_RETURN(std::vector<int64_t> freqs, SplitInts(stmt.Text(3)));
      for (size_t i = 0; i < std::max(utils.size(), freqs.size()); ++i) {
        v1::CoreSample* core = s.add_cores();
        if (i < utils.size()) core->set_util(utils[i]);
        if (i < freqs.size()) core->set_freq_khz(freqs[i]);
      }
      s.set_mem_used_bytes(stmt.Int(4));
      s.set_mem_total_bytes(stmt.Int(5));
      s.set_proc_cpu_s(stmt.Double(6));
      s.set_proc_rss_bytes(stmt.Int(7));
      s.set_gpu_util(stmt.Double(8));
      s.set_gpu_freq_hz(stmt.Int(9));
      s.set_power_mw(stmt.Double(10));
      s.set_power_provenance(ParseProvenance(stmt.Text(11)));
    }
  }));
  return out;
}

}  // namespace powersweep
