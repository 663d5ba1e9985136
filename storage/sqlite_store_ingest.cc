// SqliteStore: data batches and run results, each stored under the attempt
// of the run it belongs to. Reading records back is in
// sqlite_store_records.cc.
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/proto_json.h"
#include "common/status_macros.h"
#include "storage/run_trace_rows.h"
#include "storage/schema_text.h"
#include "storage/sqlite_store.h"
#include "storage/telemetry_extras.h"

namespace powersweep {
namespace {

using TxnKind = SqliteDb::TxnKind;

}  // namespace

absl::StatusOr<int32_t> SqliteStore::CurrentAttempt(int64_t run_id) {
  PS_ASSIGN_OR_RETURN(Stmt stmt,
                      db_->Prepare("SELECT attempt FROM runs WHERE run_id = ?1"));
  PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, run_id).Step());
  if (!row) return absl::NotFoundError(absl::StrCat("run ", run_id, " not found"));
  return static_cast<int32_t>(stmt.Int(0));
}

absl::StatusOr<IngestOutcome> SqliteStore::IngestBatch(const v1::DataBatch& batch) {
  if (batch.seq() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch seq must be >= 1, got ", batch.seq(), " for run ", batch.run_id()));
  }
  if (batch.attempt() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch attempt must be >= 0, got ", batch.attempt(), " for run ", batch.run_id()));
  }
  // Group commit: batches that arrive while another thread commits wait
  // and are then committed together, in one transaction (one fsync), by
  // whichever of them leads; each keeps its own outcome (a savepoint per
  // batch), so one bad batch fails alone.
  PendingIngest me;
  me.batch = &batch;
  {
    absl::MutexLock lock(&group_mu_);
    group_queue_.push_back(&me);
    std::pair<SqliteStore*, PendingIngest*> arg(this, &me);
    group_mu_.Await(absl::Condition(
        +[](std::pair<SqliteStore*, PendingIngest*>* a) {
          a->first->group_mu_.AssertReaderHeld();
          return a->second->done || !a->first->group_leader_;
        },
        &arg));
    if (me.done) return me.result;
    group_leader_ = true;
  }
  std::vector<PendingIngest*> group;
  {
    absl::MutexLock lock(&group_mu_);
    group.swap(group_queue_);
  }
  CommitGroup(group);
  absl::MutexLock lock(&group_mu_);
  for (PendingIngest* p : group) p->done = true;
  group_leader_ = false;
  return me.result;
}

void SqliteStore::CommitGroup(const std::vector<PendingIngest*>& group) {
  absl::MutexLock lock(&mu_);
  absl::Status st = db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    for (PendingIngest* p : group) {
      PS_RETURN_IF_ERROR(db_->Exec("SAVEPOINT ingest_batch"));
      IngestOutcome outcome = IngestOutcome::kStored;
      absl::Status one = IngestOneLocked(*p->batch, &outcome);
      if (!one.ok()) {
        PS_RETURN_IF_ERROR(db_->Exec("ROLLBACK TO ingest_batch"));
        p->result = one;
      } else {
        p->result = outcome;
      }
      PS_RETURN_IF_ERROR(db_->Exec("RELEASE ingest_batch"));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) {
    for (PendingIngest* p : group) p->result = st;
  }
}

absl::Status SqliteStore::IngestOneLocked(const v1::DataBatch& batch,
                                          IngestOutcome* outcome) {
  PS_ASSIGN_OR_RETURN(const int32_t current, CurrentAttempt(batch.run_id()));
  // 0 comes from agents that predate the field: the current attempt.
  const int32_t attempt = batch.attempt() == 0 ? current : batch.attempt();
  if (attempt != current) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", batch.run_id(), " is on attempt ", current,
                     "; batch of attempt ", attempt, " not stored"));
  }
  {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("INSERT OR IGNORE INTO batches(run_id, attempt, seq,"
                                " minibatches, telemetry) VALUES (?1, ?2, ?3, ?4, ?5)"));
    PS_RETURN_IF_ERROR(stmt.Bind(1, batch.run_id())
                           .Bind(2, attempt)
                           .Bind(3, batch.seq())
                           .Bind(4, batch.minibatches_size())
                           .Bind(5, batch.telemetry_size())
                           .Run());
  }
  if (db_->Changes() == 0) {
    PS_ASSIGN_OR_RETURN(
        Stmt had, db_->Prepare("SELECT minibatches, telemetry FROM batches"
                               " WHERE run_id = ?1 AND attempt = ?2 AND seq = ?3"));
    had.Bind(1, batch.run_id()).Bind(2, attempt).Bind(3, batch.seq());
    PS_ASSIGN_OR_RETURN(bool row, had.Step());
    const bool same = !row || (had.Int(0) == batch.minibatches_size() &&
                               had.Int(1) == batch.telemetry_size());
    *outcome = same ? IngestOutcome::kDuplicate : IngestOutcome::kConflict;
    return absl::OkStatus();
  }
  if (batch.minibatches_size() > 0 || batch.telemetry_size() > 0) {
    // Stored aggregates of this attempt no longer cover its records.
    PS_ASSIGN_OR_RETURN(Stmt stale,
                        db_->Prepare("DELETE FROM run_aggregates"
                                     " WHERE run_id = ?1 AND attempt = ?2"));
    PS_RETURN_IF_ERROR(stale.Bind(1, batch.run_id()).Bind(2, attempt).Run());
  }
  PS_ASSIGN_OR_RETURN(
      Stmt mb, db_->Prepare("INSERT INTO minibatches(run_id, attempt, seq, idx, epoch,"
                            " t_start_s, stall_s, compute_s, e2e_s, samples, loss,"
                            " tenant, page_cache_resident, tokens, ttft_s,"
                            " per_token_s, h2d_s, warmup)"
                            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
                            " ?12, ?13, ?14, ?15, ?16, ?17, ?18)"));
  for (const v1::MinibatchRecord& r : batch.minibatches()) {
    if (r.has_page_cache_resident()) {
      mb.Bind(13, r.page_cache_resident());
    } else {
      mb.BindNull(13);
    }
    if (r.has_loss()) {
      // The column takes NULL (no loss), so a NaN would pass as one.
      if (std::isnan(r.loss())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "run ", batch.run_id(), ": minibatch loss is NaN"));
      }
      mb.Bind(11, r.loss());
    } else {
      mb.BindNull(11);  // no loss computed (a twin's inference)
    }
    if (r.tokens() != 0) {
      mb.Bind(14, r.tokens());
    } else {
      mb.BindNull(14);
    }
    if (r.has_ttft_s()) {
      mb.Bind(15, r.ttft_s());
    } else {
      mb.BindNull(15);
    }
    if (r.has_per_token_s()) {
      mb.Bind(16, r.per_token_s());
    } else {
      mb.BindNull(16);
    }
    // CUDA timing: NULL where it does not apply (the CPU, steady state).
    if (r.h2d_s() > 0) {
      mb.Bind(17, r.h2d_s());
    } else {
      mb.BindNull(17);
    }
    if (r.warmup()) {
      mb.Bind(18, int64_t{1});
    } else {
      mb.BindNull(18);
    }
    PS_RETURN_IF_ERROR(mb.Bind(1, batch.run_id())
                           .Bind(2, attempt)
                           .Bind(3, batch.seq())
                           .Bind(4, r.index())
                           .Bind(5, r.epoch())
                           .Bind(6, r.t_start_s())
                           .Bind(7, r.stall_s())
                           .Bind(8, r.compute_s())
                           .Bind(9, r.e2e_s())
                           .Bind(10, r.samples())
                           .Bind(12, r.tenant())
                           .Run());
    mb.Reset();
  }
  PS_ASSIGN_OR_RETURN(
      Stmt tm, db_->Prepare("INSERT INTO telemetry(run_id, attempt, seq, t_s,"
                            " cpu_util, core_util, core_freq_khz, mem_used_bytes,"
                            " mem_total_bytes, proc_cpu_s, proc_rss_bytes, gpu_util,"
                            " gpu_freq_hz, power_mw, power_provenance, extras_pb,"
                            " mem_freq_hz, pgfault, pgmajfault, nr_dirty,"
                            " nr_writeback, pgpgout_kib, nr_written, tenant_pgfault,"
                            " tenant_pgmajfault, rails_mw, temperatures_c)"
                            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
                            " ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,"
                            " ?23, ?24, ?25, ?26, ?27)"));
  std::vector<double> utils;
  std::vector<int64_t> freqs;
  std::string extras;
  for (const v1::TelemetrySample& s : batch.telemetry()) {
    utils.clear();
    freqs.clear();
    for (const v1::CoreSample& core : s.cores()) {
      utils.push_back(core.util());
      freqs.push_back(core.freq_khz());
    }
    EncodeTelemetryExtras(s, &extras);
    tm.Bind(1, batch.run_id())
        .Bind(2, attempt)
        .Bind(3, batch.seq())
        .Bind(4, s.t_s())
        .Bind(5, s.cpu_util())
        .Bind(6, JoinDoubles(utils))
        .Bind(7, JoinInts(freqs))
        .Bind(8, s.mem_used_bytes())
        .Bind(9, s.mem_total_bytes())
        .Bind(10, s.proc_cpu_s())
        .Bind(11, s.proc_rss_bytes())
        .Bind(12, s.gpu_util())
        .Bind(13, s.gpu_freq_hz())
        .Bind(14, s.power_mw())
        .Bind(15, ProvenanceText(s.power_provenance()));
    if (extras.empty()) {
      tm.BindNull(16);
    } else {
      tm.BindBlob(16, extras);
    }
    if (s.mem_freq_hz() > 0) {
      tm.Bind(17, s.mem_freq_hz());
    } else {
      tm.BindNull(17);
    }
    if (s.has_counters()) {
      const v1::KernelCounters& k = s.counters();
      tm.Bind(18, k.pgfault())
          .Bind(19, k.pgmajfault())
          .Bind(20, k.nr_dirty())
          .Bind(21, k.nr_writeback())
          .Bind(22, k.pgpgout())
          .Bind(23, k.nr_written())
          .Bind(24, k.tenant_pgfault())
          .Bind(25, k.tenant_pgmajfault());
    } else {
      for (int col = 18; col <= 25; ++col) tm.BindNull(col);
    }
    // The plain-SQL copies of the rails and temperatures (schema 14).
    for (const auto& [col, text] :
         {std::make_pair(26, RailsColumn(s)),
          std::make_pair(27, TemperaturesColumn(s))}) {
      if (text.empty()) {
        tm.BindNull(col);
      } else {
        tm.Bind(col, text);
      }
    }
    PS_RETURN_IF_ERROR(tm.Run());
    tm.Reset();
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> SqliteStore::CountBatches(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  int64_t count = 0;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(const int32_t attempt, CurrentAttempt(run_id));
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare("SELECT COUNT(*) FROM batches WHERE run_id = ?1 AND attempt = ?2"));
    PS_RETURN_IF_ERROR(stmt.Bind(1, run_id).Bind(2, attempt).Step().status());
    count = stmt.Int(0);
    return absl::OkStatus();
  }));
  return count;
}

absl::StatusOr<std::string> SqliteStore::GetDatabaseId() {
  absl::MutexLock lock(&mu_);
  std::string id;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("SELECT value FROM meta WHERE key = 'database_id'"));
    PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return absl::InternalError("meta: no database_id row");
    id = stmt.Text(0);
    return absl::OkStatus();
  }));
  return id;
}

absl::StatusOr<std::vector<int64_t>> SqliteStore::ListBatchSeqs(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  std::vector<int64_t> seqs;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(const int32_t attempt, CurrentAttempt(run_id));
    PS_ASSIGN_OR_RETURN(Stmt stmt,
                        db_->Prepare("SELECT seq FROM batches WHERE run_id = ?1"
                                     " AND attempt = ?2 ORDER BY seq"));
    stmt.Bind(1, run_id).Bind(2, attempt);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      seqs.push_back(stmt.Int(0));
    }
  }));
  return seqs;
}

absl::Status SqliteStore::InsertTraces(const v1::RunResult& result,
                                       int32_t attempt) {
  if (!result.has_traces()) return absl::OkStatus();
  PS_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->Prepare("INSERT INTO run_traces(run_id, attempt, kind, name, scope,"
                   " count, bytes, interval_count, interval_mean_s,"
                   " interval_sd_s, interval_p50_s, interval_max_s,"
                   " missing_reason)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
                   " ?12, ?13)"));
  for (const RunTraceRow& row : RunTraceRows(result.traces())) {
    stmt.Reset();
    stmt.Bind(1, result.run_id())
        .Bind(2, attempt)
        .Bind(3, row.kind)
        .Bind(4, row.name)
        .Bind(5, row.scope);
    auto int_or_null = [&](int i, const std::optional<int64_t>& v) {
      if (v) {
        stmt.Bind(i, *v);
      } else {
        stmt.BindNull(i);
      }
    };
    auto real_or_null = [&](int i, const std::optional<double>& v) {
      if (v) {
        stmt.Bind(i, *v);
      } else {
        stmt.BindNull(i);
      }
    };
    int_or_null(6, row.count);
    int_or_null(7, row.bytes);
    int_or_null(8, row.interval_count);
    real_or_null(9, row.interval_mean_s);
    real_or_null(10, row.interval_sd_s);
    real_or_null(11, row.interval_p50_s);
    real_or_null(12, row.interval_max_s);
    if (row.missing_reason) {
      stmt.Bind(13, *row.missing_reason);
    } else {
      stmt.BindNull(13);
    }
    PS_RETURN_IF_ERROR(stmt.Run());
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::InsertResult(const v1::RunResult& result, int32_t attempt) {
  PS_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->Prepare("INSERT INTO run_results(run_id, attempt, ok, reason, exit_code,"
                   " term_signal, duration_s, energy_j, energy_provenance,"
                   " sampler_cpu_s, framework, framework_version, binary_fingerprint,"
                   " framework_fingerprint, threads, compute_device, kernel, host,"
                   " result_json, energy_stall_j, energy_compute_j,"
                   " baseload_power_mw, incremental_energy_j, agent_cpu_fraction,"
                   " baseload_run_id, model_params, model_forward_macs,"
                   " dataset_format, storage_device, storage_kind,"
                   " workload_offset_s)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
                   " ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,"
                   " ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31)"));
  const v1::BuildProvenance& p = result.provenance();
  // Workload facts: NULL for runs without a workload (baseload, twins of
  // older agents) so they are not mistaken for a zero-parameter network.
  // A kernel run has no parameters; its forward_macs is FLOPs / 2.
  if (p.has_workload() &&
      (p.workload().params() > 0 || p.workload().has_kernel())) {
    const v1::WorkloadInfo& w = p.workload();
    stmt.Bind(26, w.params())
        .Bind(27, w.forward_macs())
        .Bind(28, w.dataset_format())
        .Bind(29, w.storage().device())
        .Bind(30, w.storage().kind());
  } else {
    for (int i = 26; i <= 30; ++i) stmt.BindNull(i);
  }
  // Incremental energy needs the device's baseload: known for a baseload
  // run itself, and for a workload run the controller found a baseload for
  // when it finished (baseload_run_id); NULL otherwise (the run summary
  // then uses a baseload measured later, if any).
  if (result.incremental_energy_j() == 0 && result.baseload_power_mw() == 0) {
    stmt.BindNull(23);
  } else {
    stmt.Bind(23, result.incremental_energy_j());
  }
  if (result.baseload_run_id() > 0) {
    stmt.Bind(25, result.baseload_run_id());
  } else {
    stmt.BindNull(25);
  }
  // The workload clock's offset, only where the split used one.
  if (result.energy_stall_j() > 0 || result.energy_compute_j() > 0) {
    stmt.Bind(31, result.workload_offset_s());
  } else {
    stmt.BindNull(31);
  }
  return stmt.Bind(1, result.run_id())
      .Bind(2, attempt)
      .Bind(3, result.ok() ? 1 : 0)
      .Bind(4, result.reason())
      .Bind(5, result.exit_code())
      .Bind(6, result.term_signal())
      .Bind(7, result.duration_s())
      .Bind(8, result.energy_j())
      .Bind(9, ProvenanceText(result.energy_provenance()))
      .Bind(10, result.sampler_cpu_s())
      .Bind(11, p.framework())
      .Bind(12, p.framework_version())
      .Bind(13, p.binary_fingerprint())
      .Bind(14, p.framework_fingerprint())
      .Bind(15, p.threads())
      .Bind(16, p.device())
      .Bind(17, p.kernel())
      .Bind(18, p.host())
      .Bind(19, ToJsonLine(result))
      .Bind(20, result.energy_stall_j())
      .Bind(21, result.energy_compute_j())
      .Bind(22, result.baseload_power_mw())
      .Bind(24, result.agent_cpu_fraction())
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
  return db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(v1::RunStatus run, LoadRun(result.run_id()));
    const int32_t attempt = run.spec().attempt();
    {
      PS_ASSIGN_OR_RETURN(
          Stmt stmt,
          db_->Prepare("SELECT 1 FROM run_results WHERE run_id = ?1 AND attempt = ?2"));
      PS_ASSIGN_OR_RETURN(bool exists, stmt.Bind(1, result.run_id()).Bind(2, attempt).Step());
      if (exists) return absl::OkStatus();  // a resend: already stored
    }
    // Validate the transition before writing anything.
    PS_RETURN_IF_ERROR(ApplyTransition(run, final_state, std::string(), reason, now));
    PS_RETURN_IF_ERROR(InsertResult(result, attempt));
    PS_RETURN_IF_ERROR(InsertTraces(result, attempt));
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
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(const int32_t attempt, CurrentAttempt(run_id));
    PS_ASSIGN_OR_RETURN(Stmt stmt, db_->Prepare("SELECT result_json FROM run_results"
                                                " WHERE run_id = ?1 AND attempt = ?2"));
    PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, run_id).Bind(2, attempt).Step());
    if (!row) {
      return absl::NotFoundError(absl::StrCat("run ", run_id, " has no result for attempt ",
                                              attempt, " yet"));
    }
    return FromJson(stmt.Text(0), &result);
  }));
  return result;
}

}  // namespace powersweep
