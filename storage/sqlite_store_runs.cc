// SqliteStore: runs, their state transitions and history.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/proto_json.h"
#include "common/status_macros.h"
#include "storage/run_rows.h"
#include "storage/schema_text.h"
#include "storage/sqlite_store.h"

namespace powersweep {
namespace {

using TxnKind = SqliteDb::TxnKind;

// Binds `text` or NULL when it is empty.
void BindTextOrNull(Stmt& stmt, int index, const std::string& text) {
  if (text.empty()) {
    stmt.BindNull(index);
  } else {
    stmt.Bind(index, text);
  }
}

}  // namespace

absl::StatusOr<v1::RunStatus> SqliteStore::LoadRun(int64_t run_id) {
  PS_ASSIGN_OR_RETURN(Stmt stmt,
                      db_->Prepare(absl::StrCat(kRunColumns, "WHERE run_id = ?1")));
  PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, run_id).Step());
  if (!row) return absl::NotFoundError(absl::StrCat("run ", run_id, " not found"));
  return ReadRun(stmt);
}

absl::Status SqliteStore::RequireRun(int64_t run_id) {
  PS_ASSIGN_OR_RETURN(Stmt stmt, db_->Prepare("SELECT 1 FROM runs WHERE run_id = ?1"));
  PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, run_id).Step());
  if (!row) return absl::NotFoundError(absl::StrCat("run ", run_id, " not found"));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::RunStatus>> SqliteStore::ListRuns(int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::RunStatus> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    {
      PS_ASSIGN_OR_RETURN(Stmt stmt,
                          db_->Prepare("SELECT 1 FROM sweeps WHERE sweep_id = ?1"));
      PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, sweep_id).Step());
      if (!row) return absl::NotFoundError(absl::StrCat("sweep ", sweep_id, " not found"));
    }
    PS_ASSIGN_OR_RETURN(Stmt stmt, db_->Prepare(absl::StrCat(
                                       kRunColumns, "WHERE sweep_id = ?1 ORDER BY run_id")));
    stmt.Bind(1, sweep_id);
    PS_ASSIGN_OR_RETURN(out, ReadRuns(stmt));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<v1::RunStatus> SqliteStore::GetRun(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  v1::RunStatus run;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(run, LoadRun(run_id));
    return absl::OkStatus();
  }));
  return run;
}

absl::StatusOr<std::vector<v1::RunSpec>> SqliteStore::ListPendingRuns(int limit) {
  if (limit < 0) {
    return absl::InvalidArgumentError(absl::StrCat("limit must be >= 0, got ", limit));
  }
  absl::MutexLock lock(&mu_);
  std::vector<v1::RunSpec> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(Stmt stmt, db_->Prepare(absl::StrCat(
                                       kRunColumns,
                                       "WHERE state = 'pending' ORDER BY run_id LIMIT ?1")));
    stmt.Bind(1, limit);
    PS_ASSIGN_OR_RETURN(std::vector<v1::RunStatus> runs, ReadRuns(stmt));
    for (v1::RunStatus& run : runs) out.push_back(std::move(*run.mutable_spec()));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::RunSpec>> SqliteStore::ListPendingRunsFor(
    const PendingFilter& f, int limit) {
  if (limit < 0) {
    return absl::InvalidArgumentError(absl::StrCat("limit must be >= 0, got ", limit));
  }
  std::vector<v1::RunSpec> out;
  if (f.runtimes.empty() || limit == 0) return out;
  // ?1 class, ?2 cores, ?3 limit, then the lists' elements.
  int next = 4;
  auto placeholders = [&next](size_t n) {
    std::string text;
    for (size_t i = 0; i < n; ++i) {
      absl::StrAppend(&text, i == 0 ? "" : ",", "?", next++);
    }
    return text;
  };
  const std::string runtimes = placeholders(f.runtimes.size());
  const std::string models = placeholders(f.models.size());
  const std::string datasets = placeholders(f.datasets.size());
  const std::string kernels = placeholders(f.kernels.size());
  const std::string exclude = placeholders(f.exclude.size());
  const std::string device_ids = placeholders(f.device_ids.size());
  std::string sql = absl::StrCat(
      kRunColumns,
      "WHERE state = 'pending' AND device_class = ?1 AND cpu_cores <= ?2"
      " AND runtime IN (", runtimes, ")");
  if (!f.exclude.empty()) absl::StrAppend(&sql, " AND run_id NOT IN (", exclude, ")");
  // Placement: an untargeted run, or one targeted at one of the devices.
  absl::StrAppend(&sql, " AND (targeted = 0");
  if (!f.device_ids.empty()) {
    absl::StrAppend(&sql,
                    " OR EXISTS (SELECT 1 FROM run_devices d WHERE"
                    " d.run_id = runs.run_id AND d.device_id IN (",
                    device_ids, "))");
  }
  absl::StrAppend(&sql, ")");
  absl::StrAppend(&sql, " AND (task = 'baseload'");
  if (!f.models.empty() && !f.datasets.empty()) {
    absl::StrAppend(&sql, " OR (model IN (", models, ") AND dataset IN (",
                    datasets, "))");
  }
  if (!f.kernels.empty()) {
    absl::StrAppend(&sql, " OR model IN (", kernels, ")");
  }
  absl::StrAppend(&sql, ") ORDER BY run_id LIMIT ?3");
  absl::MutexLock lock(&mu_);
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(Stmt stmt, db_->Prepare(sql));
    stmt.Bind(1, f.device_class);
    stmt.Bind(2, static_cast<int64_t>(f.max_cpu_cores));
    stmt.Bind(3, static_cast<int64_t>(limit));
    int i = 4;
    for (v1::Runtime r : f.runtimes) stmt.Bind(i++, RuntimeText(r));
    for (const std::string& m : f.models) stmt.Bind(i++, m);
    for (const std::string& d : f.datasets) stmt.Bind(i++, d);
    for (const std::string& k : f.kernels) stmt.Bind(i++, k);
    for (int64_t id : f.exclude) stmt.Bind(i++, id);
    for (const std::string& d : f.device_ids) stmt.Bind(i++, d);
    PS_ASSIGN_OR_RETURN(std::vector<v1::RunStatus> runs, ReadRuns(stmt));
    for (v1::RunStatus& run : runs) out.push_back(std::move(*run.mutable_spec()));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::RunStatus>> SqliteStore::ListActiveRuns(
    const std::string& device_id) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::RunStatus> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare(absl::StrCat(
                       kRunColumns,
                       "WHERE state IN ('leased', 'running')"
                       " AND (?1 = '' OR device_id = ?1) ORDER BY run_id")));
    stmt.Bind(1, device_id);
    PS_ASSIGN_OR_RETURN(out, ReadRuns(stmt));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status SqliteStore::ApplyTransition(const v1::RunStatus& run, v1::RunState to,
                                          const std::string& device_id,
                                          const std::string& reason, absl::Time now) {
  const int64_t run_id = run.spec().run_id();
  const v1::RunState from = run.state();
  if (!TransitionAllowed(from, to)) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", run_id, " is ", StateText(from), " and cannot move to ",
                     StateText(to)));
  }
  const int64_t now_ms = absl::ToUnixMillis(now);
  switch (to) {
    case v1::RUN_STATE_LEASED: {
      if (device_id.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("leasing run ", run_id, " needs a device_id"));
      }
      PS_ASSIGN_OR_RETURN(Stmt stmt, db_->Prepare(
                                         "UPDATE runs SET state = 'leased', device_id = ?2,"
                                         " leased_unix_ms = ?3 WHERE run_id = ?1"));
      PS_RETURN_IF_ERROR(stmt.Bind(1, run_id).Bind(2, device_id).Bind(3, now_ms).Run());
      break;
    }
    case v1::RUN_STATE_RUNNING: {
      PS_ASSIGN_OR_RETURN(Stmt stmt, db_->Prepare(
                                         "UPDATE runs SET state = 'running',"
                                         " started_unix_ms = ?2,"
                                         " device_id = COALESCE(?3, device_id)"
                                         " WHERE run_id = ?1"));
      stmt.Bind(1, run_id).Bind(2, now_ms);
      BindTextOrNull(stmt, 3, device_id);
      PS_RETURN_IF_ERROR(stmt.Run());
      break;
    }
    case v1::RUN_STATE_PENDING: {
      // A retry (from FAILED) or rerun (from FAILED or CANCELLED) takes the
      // next attempt. Nothing is deleted: the ended attempt's batches,
      // records and result stay under their own attempt number, and the
      // new attempt numbers batches from 1.
      PS_ASSIGN_OR_RETURN(
          Stmt stmt,
          db_->Prepare("UPDATE runs SET state = 'pending',"
                       " attempt = attempt + ?2, device_id = NULL,"
                       " reason = CASE WHEN ?2 = 1 THEN NULL ELSE reason END,"
                       " leased_unix_ms = NULL, started_unix_ms = NULL,"
                       " finished_unix_ms = NULL,"
                       " applied_mode_json = CASE WHEN ?2 = 1 THEN NULL"
                       " ELSE applied_mode_json END WHERE run_id = ?1"));
      PS_RETURN_IF_ERROR(
          stmt.Bind(1, run_id)
              .Bind(2, from == v1::RUN_STATE_FAILED ||
                               from == v1::RUN_STATE_CANCELLED
                           ? 1
                           : 0)
              .Run());
      break;
    }
    default: {  // DONE, FAILED, CANCELLED
      PS_ASSIGN_OR_RETURN(Stmt stmt,
                          db_->Prepare("UPDATE runs SET state = ?2, finished_unix_ms = ?3,"
                                       " reason = ?4 WHERE run_id = ?1"));
      stmt.Bind(1, run_id).Bind(2, StateText(to)).Bind(3, now_ms);
      BindTextOrNull(stmt, 4, reason);
      PS_RETURN_IF_ERROR(stmt.Run());
      // The attempt's records are complete: store what summaries need.
      PS_RETURN_IF_ERROR(StoreAggregates(run_id, run.spec().attempt()));
      break;
    }
  }
  PS_ASSIGN_OR_RETURN(
      Stmt history,
      db_->Prepare("INSERT INTO run_state_history(run_id, from_state, to_state,"
                   " device_id, reason, at_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  history.Bind(1, run_id).Bind(2, StateText(from)).Bind(3, StateText(to)).Bind(6, now_ms);
  BindTextOrNull(history, 4, device_id.empty() ? run.device_id() : device_id);
  BindTextOrNull(history, 5, reason);
  return history.Run();
}

absl::Status SqliteStore::TransitionRun(int64_t run_id, v1::RunState to,
                                        const std::string& device_id,
                                        const std::string& reason, absl::Time now) {
  absl::MutexLock lock(&mu_);
  return db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(v1::RunStatus run, LoadRun(run_id));
    return ApplyTransition(run, to, device_id, reason, now);
  });
}

absl::Status SqliteStore::SetRunTimeout(int64_t run_id, double timeout_s) {
  if (!(timeout_s > 0) || !std::isfinite(timeout_s)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "timeout_s: must be a positive number of seconds, got ", timeout_s));
  }
  absl::MutexLock lock(&mu_);
  return db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(v1::RunStatus run, LoadRun(run_id));
    if (run.state() != v1::RUN_STATE_PENDING) {
      return absl::FailedPreconditionError(
          absl::StrCat("run ", run_id, " is ", StateText(run.state()),
                       ", not pending: its timeout is not changed"));
    }
    v1::RunSpec spec = run.spec();
    spec.set_timeout_s(timeout_s);
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("UPDATE runs SET spec_json = ?2 WHERE run_id = ?1"));
    return stmt.Bind(1, run_id).Bind(2, ToJsonLine(spec)).Run();
  });
}

absl::StatusOr<std::vector<RunStateChange>> SqliteStore::GetRunHistory(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  std::vector<RunStateChange> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_RETURN_IF_ERROR(RequireRun(run_id));
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare("SELECT from_state, to_state, device_id, reason, at_unix_ms"
                     " FROM run_state_history WHERE run_id = ?1 ORDER BY id"));
    stmt.Bind(1, run_id);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      RunStateChange change;
      change.run_id = run_id;
      PS_ASSIGN_OR_RETURN(change.from, ParseState(stmt.Text(0)));
      PS_ASSIGN_OR_RETURN(change.to, ParseState(stmt.Text(1)));
      change.device_id = stmt.Text(2);
      change.reason = stmt.Text(3);
      change.at = absl::FromUnixMillis(stmt.Int(4));
      out.push_back(std::move(change));
    }
  }));
  return out;
}

absl::Status SqliteStore::SaveAppliedMode(int64_t run_id,
                                          const v1::AppliedPowerMode& mode) {
  absl::MutexLock lock(&mu_);
  return db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(v1::RunStatus run, LoadRun(run_id));
    if (IsFinal(run.state())) {
      // Its row is final: the mode it ran in came with its result.
      return absl::FailedPreconditionError(
          absl::StrCat("run ", run_id, " has ended (", StateText(run.state()),
                       "): its applied mode is not changed"));
    }
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("UPDATE runs SET applied_mode_json = ?2 WHERE run_id = ?1"));
    return stmt.Bind(1, run_id).Bind(2, ToJsonLine(mode)).Run();
  });
}

}  // namespace powersweep
