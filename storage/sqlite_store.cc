// SqliteStore: opening, devices and sweeps. Runs are in
// sqlite_store_runs.cc, ingest and results in sqlite_store_ingest.cc,
// reading records in sqlite_store_records.cc, the CSV export in
// csv_export.cc, run aggregates and baseload lookups in
// sqlite_store_aggregates.cc.
#include "storage/sqlite_store.h"

#include "absl/strings/str_cat.h"
#include "common/proto_json.h"
#include "common/status_macros.h"
#include "storage/migrations.h"
#include "storage/schema_text.h"

namespace powersweep {
namespace {

using TxnKind = SqliteDb::TxnKind;

absl::StatusOr<std::string> PragmaValue(SqliteDb& db, const std::string& sql) {
  PS_ASSIGN_OR_RETURN(Stmt stmt, db.Prepare(sql));
  PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row ? stmt.Text(0) : std::string();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(
    const std::string& path) {
  PS_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db,
                      SqliteDb::Open(path, /*read_only=*/false));
  // Wait up to 5 s for another connection's lock instead of failing.
  PS_RETURN_IF_ERROR(db->Exec("PRAGMA busy_timeout=5000"));
  // WAL lets readers (sqlite3, pandas) work while the controller writes.
  PS_ASSIGN_OR_RETURN(std::string mode,
                      PragmaValue(*db, "PRAGMA journal_mode=WAL"));
  if (mode != "wal") {
    return absl::FailedPreconditionError(absl::StrCat(
        "database ", path, ": cannot use WAL journal mode (got '", mode,
        "'); use a file on a local file system"));
  }
  // FULL, not NORMAL: in WAL mode NORMAL may lose the last commits on power
  // loss, and an acknowledged batch is dropped from the agent's spool, so a
  // commit must be durable before we acknowledge it.
  PS_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous=FULL"));
  PS_RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=ON"));
  PS_ASSIGN_OR_RETURN(int applied, ApplyMigrations(*db));
  (void)applied;
  std::unique_ptr<SqliteStore> store(new SqliteStore(std::move(db)));
  {
    absl::MutexLock lock(&store->mu_);
    PS_RETURN_IF_ERROR(store->BackfillAggregates());
    PS_RETURN_IF_ERROR(store->BackfillTelemetryColumns());
  }
  return store;
}

// ---------------------------------------------------------------- devices

absl::Status SqliteStore::UpsertDevice(const v1::DeviceIdentity& identity,
                                       const v1::DeviceCapabilities& caps,
                                       absl::Time now) {
  if (identity.device_id().empty()) {
    return absl::InvalidArgumentError("device identity has an empty device_id");
  }
  absl::MutexLock lock(&mu_);
  return db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare(
            "INSERT INTO devices(device_id, device_class, platform, hostname,"
            " serial, kernel, cpu_cores, memory_bytes, identity_json,"
            " capabilities_json, first_seen_unix_ms, last_seen_unix_ms)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)"
            " ON CONFLICT(device_id) DO UPDATE SET"
            " device_class = excluded.device_class,"
            " platform = excluded.platform, hostname = excluded.hostname,"
            " serial = excluded.serial, kernel = excluded.kernel,"
            " cpu_cores = excluded.cpu_cores,"
            " memory_bytes = excluded.memory_bytes,"
            " identity_json = excluded.identity_json,"
            " capabilities_json = excluded.capabilities_json,"
            " last_seen_unix_ms = excluded.last_seen_unix_ms,"
            " disconnected_unix_ms = NULL, forgotten = 0"));
    return stmt.Bind(1, identity.device_id())
        .Bind(2, identity.device_class())
        .Bind(3, identity.platform())
        .Bind(4, identity.hostname())
        .Bind(5, identity.serial())
        .Bind(6, identity.kernel())
        .Bind(7, caps.cpu_cores())
        .Bind(8, caps.memory_bytes())
        .Bind(9, ToJsonLine(identity))
        .Bind(10, ToJsonLine(caps))
        .Bind(11, absl::ToUnixMillis(now))
        .Run();
  });
}

absl::StatusOr<std::vector<v1::DeviceStatus>> SqliteStore::ListDevices() {
  absl::MutexLock lock(&mu_);
  std::vector<v1::DeviceStatus> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("SELECT identity_json, capabilities_json,"
                                " last_seen_unix_ms, drained, forgotten,"
                                " healthy, health_reason,"
                                " health_checked_unix_ms, disconnected_unix_ms"
                                " FROM devices ORDER BY device_id"));
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      v1::DeviceStatus device;
      PS_RETURN_IF_ERROR(FromJson(stmt.Text(0), device.mutable_identity()));
      PS_RETURN_IF_ERROR(FromJson(stmt.Text(1), device.mutable_capabilities()));
      device.set_last_seen_unix_ms(stmt.Int(2));
      device.set_drained(stmt.Int(3) != 0);
      device.set_forgotten(stmt.Int(4) != 0);
      if (!stmt.IsNull(8)) device.set_disconnected_unix_ms(stmt.Int(8));
      if (!stmt.IsNull(5)) {
        device.mutable_health()->set_healthy(stmt.Int(5) != 0);
        device.mutable_health()->set_reason(stmt.Text(6));
        device.mutable_health()->set_checked_unix_ms(stmt.Int(7));
      }
      out.push_back(std::move(device));
    }
  }));
  return out;
}

// ----------------------------------------------------------------- sweeps

absl::StatusOr<int64_t> SqliteStore::CreateSweep(
    const v1::SweepSpec& spec, const std::vector<v1::RunSpec>& runs,
    absl::Time now) {
  const int64_t now_ms = absl::ToUnixMillis(now);
  absl::MutexLock lock(&mu_);
  int64_t sweep_id = 0;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    {
      PS_ASSIGN_OR_RETURN(
          Stmt stmt, db_->Prepare("INSERT INTO sweeps(name, created_unix_ms,"
                                  " spec_json) VALUES (?1, ?2, ?3)"));
      PS_RETURN_IF_ERROR(
          stmt.Bind(1, spec.name()).Bind(2, now_ms).Bind(3, ToJsonLine(spec)).Run());
      sweep_id = db_->LastInsertRowId();
    }
    for (const v1::RunSpec& input : runs) {
      v1::RunSpec run = input;
      run.clear_run_id();
      run.clear_sweep_id();
      run.clear_attempt();
      PS_ASSIGN_OR_RETURN(
          Stmt stmt,
          db_->Prepare(
              "INSERT INTO runs(sweep_id, device_class, model, dataset, task,"
              " batch_size, loader_workers, cpu_cores, cpu_freq_khz,"
              " gpu_freq_hz, mem_freq_hz, preset, runtime, repetition,"
              " attempt, state, created_unix_ms, spec_json) VALUES (?1, ?2,"
              " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, 1,"
              " 'pending', ?15, ?16)"));
      const v1::WorkloadSpec& w = run.workload();
      const v1::PowerMode& m = run.power_mode();
      PS_RETURN_IF_ERROR(stmt.Bind(1, sweep_id)
                             .Bind(2, run.device_class())
                             .Bind(3, w.model())
                             .Bind(4, w.dataset())
                             .Bind(5, TaskText(w.task()))
                             .Bind(6, w.batch_size())
                             .Bind(7, w.loader_workers())
                             .Bind(8, m.cpu_cores())
                             .Bind(9, m.cpu_freq_khz())
                             .Bind(10, m.gpu_freq_hz())
                             .Bind(11, m.mem_freq_hz())
                             .Bind(12, m.preset())
                             .Bind(13, RuntimeText(run.runtime()))
                             .Bind(14, run.repetition())
                             .Bind(15, now_ms)
                             .Bind(16, ToJsonLine(run))
                             .Run());
      const int64_t run_id = db_->LastInsertRowId();
      if (!run.devices().empty()) {
        PS_ASSIGN_OR_RETURN(
            Stmt mark,
            db_->Prepare("UPDATE runs SET targeted = 1 WHERE run_id = ?1"));
        PS_RETURN_IF_ERROR(mark.Bind(1, run_id).Run());
        for (const std::string& device : run.devices()) {
          PS_ASSIGN_OR_RETURN(
              Stmt target,
              db_->Prepare("INSERT OR IGNORE INTO run_devices(run_id,"
                           " device_id) VALUES (?1, ?2)"));
          PS_RETURN_IF_ERROR(target.Bind(1, run_id).Bind(2, device).Run());
        }
      }
      PS_ASSIGN_OR_RETURN(
          Stmt history,
          db_->Prepare("INSERT INTO run_state_history(run_id, from_state,"
                       " to_state, at_unix_ms) VALUES (?1, ?2, ?3, ?4)"));
      PS_RETURN_IF_ERROR(history.Bind(1, run_id)
                             .Bind(2, StateText(v1::RUN_STATE_UNSPECIFIED))
                             .Bind(3, StateText(v1::RUN_STATE_PENDING))
                             .Bind(4, now_ms)
                             .Run());
    }
    return absl::OkStatus();
  }));
  return sweep_id;
}

absl::StatusOr<v1::SweepSpec> SqliteStore::GetSweepSpec(int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  v1::SweepSpec spec;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("SELECT spec_json FROM sweeps WHERE sweep_id = ?1"));
    PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, sweep_id).Step());
    if (!row) return absl::NotFoundError(absl::StrCat("sweep ", sweep_id, " not found"));
    return FromJson(stmt.Text(0), &spec);
  }));
  return spec;
}

absl::StatusOr<v1::SweepStatus> SqliteStore::LoadSweepStatus(int64_t sweep_id) {
  v1::SweepStatus status;
  status.set_sweep_id(sweep_id);
  {
    PS_ASSIGN_OR_RETURN(Stmt stmt, db_->Prepare("SELECT name, created_unix_ms"
                                                " FROM sweeps WHERE sweep_id = ?1"));
    PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, sweep_id).Step());
    if (!row) return absl::NotFoundError(absl::StrCat("sweep ", sweep_id, " not found"));
    status.set_name(stmt.Text(0));
    status.set_created_unix_ms(stmt.Int(1));
  }
  {
    PS_ASSIGN_OR_RETURN(Stmt stmt, db_->Prepare("SELECT state, COUNT(*) FROM runs"
                                                " WHERE sweep_id = ?1 GROUP BY state"));
    stmt.Bind(1, sweep_id);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      PS_ASSIGN_OR_RETURN(v1::RunState state, ParseState(stmt.Text(0)));
      const int32_t n = static_cast<int32_t>(stmt.Int(1));
      status.set_total(status.total() + n);
      switch (state) {
        case v1::RUN_STATE_PENDING: status.set_pending(n); break;
        case v1::RUN_STATE_LEASED:
        case v1::RUN_STATE_RUNNING: status.set_active(status.active() + n); break;
        case v1::RUN_STATE_DONE: status.set_done(n); break;
        case v1::RUN_STATE_FAILED: status.set_failed(n); break;
        case v1::RUN_STATE_CANCELLED: status.set_cancelled(n); break;
        default: break;
      }
    }
  }
  status.set_finished(status.pending() == 0 && status.active() == 0);
  {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare("SELECT AVG((finished_unix_ms - started_unix_ms) / 1000.0)"
                     " FROM runs WHERE sweep_id = ?1 AND state = 'done'"
                     " AND started_unix_ms IS NOT NULL"
                     " AND finished_unix_ms IS NOT NULL"));
    PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, sweep_id).Step());
    if (row && !stmt.IsNull(0)) status.set_mean_done_run_s(stmt.Double(0));
  }
  return status;
}

absl::StatusOr<v1::SweepStatus> SqliteStore::GetSweepStatus(int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  v1::SweepStatus status;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(status, LoadSweepStatus(sweep_id));
    return absl::OkStatus();
  }));
  return status;
}

absl::StatusOr<std::vector<v1::SweepStatus>> SqliteStore::ListSweeps() {
  absl::MutexLock lock(&mu_);
  std::vector<v1::SweepStatus> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    std::vector<int64_t> ids;
    {
      PS_ASSIGN_OR_RETURN(Stmt stmt,
                          db_->Prepare("SELECT sweep_id FROM sweeps ORDER BY sweep_id"));
      while (true) {
        PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
        if (!row) break;
        ids.push_back(stmt.Int(0));
      }
    }
    for (int64_t id : ids) {
      PS_ASSIGN_OR_RETURN(v1::SweepStatus status, LoadSweepStatus(id));
      out.push_back(std::move(status));
    }
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace powersweep
