#include "storage/migrations.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "storage/migrations_recent.h"

namespace powersweep {
namespace {

// Version 1: the initial schema. Enums are stored as readable text, times as
// unix milliseconds (INTEGER), durations as seconds (REAL). The *_json
// columns hold the full protos (proto field names) so nothing is lost.
// Every attempt of a run keeps its own batches, records and result: the
// data tables carry the run's `attempt` next to its run_id.
constexpr char kSchemaV1[] = R"sql(
CREATE TABLE devices (
  device_id TEXT PRIMARY KEY NOT NULL,
  device_class TEXT NOT NULL,
  platform TEXT NOT NULL,
  hostname TEXT,
  serial TEXT,
  kernel TEXT,
  cpu_cores INTEGER,
  memory_bytes INTEGER,
  identity_json TEXT NOT NULL,
  capabilities_json TEXT NOT NULL,
  first_seen_unix_ms INTEGER NOT NULL,
  last_seen_unix_ms INTEGER NOT NULL
);
CREATE TABLE sweeps (
  sweep_id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  spec_json TEXT NOT NULL
);
CREATE TABLE runs (
  run_id INTEGER PRIMARY KEY AUTOINCREMENT,
  sweep_id INTEGER NOT NULL REFERENCES sweeps(sweep_id),
  device_class TEXT NOT NULL,
  model TEXT NOT NULL,
  dataset TEXT NOT NULL,
  task TEXT NOT NULL CHECK (task IN ('unspecified', 'train', 'infer')),
  batch_size INTEGER NOT NULL CHECK (batch_size >= 0),
  loader_workers INTEGER NOT NULL CHECK (loader_workers >= 0),
  cpu_cores INTEGER NOT NULL CHECK (cpu_cores >= 0),
  cpu_freq_khz INTEGER NOT NULL CHECK (cpu_freq_khz >= 0),
  gpu_freq_hz INTEGER NOT NULL CHECK (gpu_freq_hz >= 0),
  mem_freq_hz INTEGER NOT NULL CHECK (mem_freq_hz >= 0),
  preset TEXT NOT NULL,
  runtime TEXT NOT NULL
    CHECK (runtime IN ('unspecified', 'native', 'container')),
  repetition INTEGER NOT NULL CHECK (repetition >= 0),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  state TEXT NOT NULL CHECK (state IN
    ('pending', 'leased', 'running', 'done', 'failed', 'cancelled')),
  device_id TEXT,
  reason TEXT,
  created_unix_ms INTEGER NOT NULL,
  leased_unix_ms INTEGER,
  started_unix_ms INTEGER,
  finished_unix_ms INTEGER,
  spec_json TEXT NOT NULL,
  applied_mode_json TEXT
);
CREATE INDEX runs_by_sweep ON runs(sweep_id);
CREATE INDEX runs_by_state ON runs(state);
CREATE TABLE run_state_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs(run_id),
  from_state TEXT NOT NULL,
  to_state TEXT NOT NULL,
  device_id TEXT,
  reason TEXT,
  at_unix_ms INTEGER NOT NULL
);
CREATE INDEX run_state_history_by_run ON run_state_history(run_id);
CREATE TABLE batches (
  run_id INTEGER NOT NULL REFERENCES runs(run_id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  seq INTEGER NOT NULL CHECK (seq >= 1),
  minibatches INTEGER NOT NULL,
  telemetry INTEGER NOT NULL,
  PRIMARY KEY (run_id, attempt, seq)
);
CREATE TABLE minibatches (
  run_id INTEGER NOT NULL REFERENCES runs(run_id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  seq INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  epoch INTEGER NOT NULL,
  t_start_s REAL NOT NULL,
  stall_s REAL NOT NULL,
  compute_s REAL NOT NULL,
  e2e_s REAL NOT NULL,
  samples INTEGER NOT NULL,
  loss REAL NOT NULL
);
CREATE INDEX minibatches_by_run ON minibatches(run_id, attempt);
CREATE TABLE telemetry (
  run_id INTEGER NOT NULL REFERENCES runs(run_id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  seq INTEGER NOT NULL,
  t_s REAL NOT NULL,
  cpu_util REAL NOT NULL,
  core_util TEXT NOT NULL,
  core_freq_khz TEXT NOT NULL,
  mem_used_bytes INTEGER NOT NULL,
  mem_total_bytes INTEGER NOT NULL,
  proc_cpu_s REAL NOT NULL,
  proc_rss_bytes INTEGER NOT NULL,
  gpu_util REAL NOT NULL,
  gpu_freq_hz INTEGER NOT NULL,
  power_mw REAL NOT NULL,
  power_provenance TEXT NOT NULL,
  rails_json TEXT
);
CREATE INDEX telemetry_by_run ON telemetry(run_id, attempt);
CREATE TABLE run_results (
  run_id INTEGER NOT NULL REFERENCES runs(run_id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  reason TEXT,
  exit_code INTEGER NOT NULL,
  term_signal INTEGER NOT NULL,
  duration_s REAL NOT NULL,
  energy_j REAL NOT NULL,
  energy_provenance TEXT NOT NULL,
  sampler_cpu_s REAL NOT NULL,
  framework TEXT,
  framework_version TEXT,
  binary_fingerprint TEXT,
  framework_fingerprint TEXT,
  threads INTEGER,
  compute_device TEXT,
  kernel TEXT,
  host TEXT,
  result_json TEXT NOT NULL,
  PRIMARY KEY (run_id, attempt)
);
)sql";

// Version 2: energy of a run split by phase, baseload and the agent's own
// CPU cost (RunResult fields 12-16), and the baseload task. Nullable
// columns: NULL means the agent did not report the value (results stored
// before this version, or incremental energy the agent cannot know).
// The task CHECK of `runs` gains 'baseload'. SQLite cannot ALTER a CHECK
// constraint; loosening one (every stored row still satisfies it) is done
// by SQLite's documented procedure for changes that do not touch stored
// data (https://www.sqlite.org/lang_altertable.html, "otheralter"): edit
// the table's SQL in sqlite_schema under writable_schema. The ALTER TABLE
// statements that follow in the same transaction bump the schema cookie,
// which makes every connection reload the schema.
constexpr char kSchemaV2[] = R"sql(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
  SET sql = replace(sql, '''train'', ''infer'')', '''train'', ''infer'', ''baseload'')')
  WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = OFF;
ALTER TABLE run_results ADD COLUMN energy_stall_j REAL;
ALTER TABLE run_results ADD COLUMN energy_compute_j REAL;
ALTER TABLE run_results ADD COLUMN baseload_power_mw REAL;
ALTER TABLE run_results ADD COLUMN incremental_energy_j REAL;
ALTER TABLE run_results ADD COLUMN agent_cpu_fraction REAL;
)sql";

// Version 3: the baseload run a workload run's incremental energy was
// computed against when it finished (RunResult.baseload_run_id); with it,
// baseload_power_mw and incremental_energy_j are stored for workload runs
// too (NULL when no baseload of the device and mode existed then).
constexpr char kSchemaV3[] = R"sql(
ALTER TABLE run_results ADD COLUMN baseload_run_id INTEGER;
)sql";

// Version 4: co-located tenants and kernel counters. minibatches.tenant
// (0-based; 0 for single-tenant runs); telemetry gains the memory clock
// and the kernel counters of KernelCounters (NULL when the sample had
// none). rails_json now holds the sample's rails, temperatures, memory
// clock and counters (everything the fixed columns do not).
constexpr char kSchemaV4[] = R"sql(
ALTER TABLE minibatches ADD COLUMN tenant INTEGER NOT NULL DEFAULT 0;
ALTER TABLE telemetry ADD COLUMN mem_freq_hz INTEGER;
ALTER TABLE telemetry ADD COLUMN pgfault INTEGER;
ALTER TABLE telemetry ADD COLUMN pgmajfault INTEGER;
ALTER TABLE telemetry ADD COLUMN nr_dirty INTEGER;
ALTER TABLE telemetry ADD COLUMN nr_writeback INTEGER;
ALTER TABLE telemetry ADD COLUMN pgpgout_kib INTEGER;
ALTER TABLE telemetry ADD COLUMN nr_written INTEGER;
ALTER TABLE telemetry ADD COLUMN tenant_pgfault INTEGER;
ALTER TABLE telemetry ADD COLUMN tenant_pgmajfault INTEGER;
)sql";

// Version 5: fitted time and energy models (controller/modeling).
// model_json is the whole v1::WorkloadModel (proto field names, without
// model_id); the other columns copy what a user selects and compares
// models by, so `sqlite3` and pandas need no JSON. energy_* are NULL when
// the model has no energy model (the runs had no energy readings).
constexpr char kSchemaV5[] = R"sql(
CREATE TABLE models (
  model_id INTEGER PRIMARY KEY AUTOINCREMENT,
  sweep_id INTEGER NOT NULL REFERENCES sweeps(sweep_id),
  device_class TEXT NOT NULL,
  model TEXT NOT NULL,
  dataset TEXT NOT NULL,
  task TEXT NOT NULL,
  batch_size INTEGER NOT NULL,
  loader_workers INTEGER NOT NULL,
  runtime TEXT NOT NULL,
  tenants INTEGER NOT NULL,
  runs INTEGER NOT NULL,
  time_form TEXT NOT NULL,
  time_cv_mape_pct REAL,
  energy_form TEXT,
  energy_cv_mape_pct REAL,
  energy_provenance TEXT,
  fitted_unix_ms INTEGER NOT NULL,
  model_json TEXT NOT NULL
);
CREATE INDEX models_by_workload ON models(device_class, model);
CREATE INDEX models_by_sweep ON models(sweep_id);
)sql";

// Version 6: the workload suite. run_results copies what a user
// compares runs by from RunResult.provenance.workload (the whole of it is in
// result_json): the network's parameters and forward MACs, the data set's
// format, and the storage medium behind it. minibatches.page_cache_resident
// is the fraction of the data set in the page cache when the epoch started,
// on each epoch's first minibatch (NULL on the others).
constexpr char kSchemaV6[] = R"sql(
ALTER TABLE run_results ADD COLUMN model_params INTEGER;
ALTER TABLE run_results ADD COLUMN model_forward_macs INTEGER;
ALTER TABLE run_results ADD COLUMN dataset_format TEXT;
ALTER TABLE run_results ADD COLUMN storage_device TEXT;
ALTER TABLE run_results ADD COLUMN storage_kind TEXT;
ALTER TABLE minibatches ADD COLUMN page_cache_resident REAL;
)sql";

// Version 7: scale. telemetry.extras_pb holds a sample's rails,
// temperatures, memory clock and kernel counters as the protobuf bytes of
// a TelemetrySample with only those fields (storage/telemetry_extras.h);
// new rows leave rails_json NULL, rows stored before keep their JSON there
// and readers accept both. run_aggregates holds, per run attempt, the part
// of the run summary computed from its records (storage/record_aggregates.h),
// written when the run reaches a final state and deleted when a batch adds
// records to that attempt; energy_provenance is NULL without two power
// readings. runs_by_device_task serves the baseload lookup of one device.
constexpr char kSchemaV7[] = R"sql(
ALTER TABLE telemetry ADD COLUMN extras_pb BLOB;
CREATE TABLE run_aggregates (
  run_id INTEGER NOT NULL REFERENCES runs(run_id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  minibatches INTEGER NOT NULL,
  mean_minibatch_s REAL NOT NULL,
  mean_stall_s REAL NOT NULL,
  mean_compute_s REAL NOT NULL,
  samples_per_s REAL NOT NULL,
  first_loss REAL NOT NULL,
  last_loss REAL NOT NULL,
  telemetry_samples INTEGER NOT NULL,
  mean_cpu_util REAL NOT NULL,
  peak_rss_bytes INTEGER NOT NULL,
  duration_s REAL NOT NULL,
  energy_j REAL NOT NULL,
  energy_provenance TEXT,
  power_span_s REAL NOT NULL,
  PRIMARY KEY (run_id, attempt)
);
CREATE INDEX runs_by_device_task ON runs(device_id, task, state);
)sql";

// Version 8: dispatch looks up the pending runs of one device class
// without scanning the others (Store::ListPendingRunsFor); `meta` holds
// the database's random identity (Store::GetDatabaseId), which agents use
// to tell whether their spool belongs to this database.
constexpr char kSchemaV8[] = R"sql(
CREATE INDEX runs_pending_by_class ON runs(state, device_class, run_id);
CREATE TABLE meta (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
);
INSERT INTO meta(key, value) VALUES ('database_id', lower(hex(randomblob(16))));
)sql";

// Version 9: placement on device instances. A run with RunSpec.devices is
// `targeted` and may go only to the devices listed for it in run_devices.
constexpr char kSchemaV9[] = R"sql(
ALTER TABLE runs ADD COLUMN targeted INTEGER NOT NULL DEFAULT 0;
CREATE TABLE run_devices (
  run_id INTEGER NOT NULL REFERENCES runs(run_id),
  device_id TEXT NOT NULL,
  PRIMARY KEY (run_id, device_id)
) WITHOUT ROWID;
)sql";

// Version 10: calibration offsets of device instances.
constexpr char kSchemaV10[] = R"sql(
CREATE TABLE device_offsets (
  device_id TEXT NOT NULL,
  metric TEXT NOT NULL,
  device_class TEXT NOT NULL,
  factor REAL NOT NULL CHECK (factor > 0),
  sweep_id INTEGER,
  cells INTEGER NOT NULL,
  runs INTEGER NOT NULL,
  saved_unix_ms INTEGER NOT NULL,
  PRIMARY KEY (device_id, metric)
) WITHOUT ROWID;
)sql";

// Version 11: lab operations on devices. `drained` (no new runs) and
// `forgotten` (hidden from listings and sweep validation; runs and data
// stay) are set by operators; the health columns hold the agent's latest
// health check (NULL: never reported).
constexpr char kSchemaV11[] = R"sql(
ALTER TABLE devices ADD COLUMN drained INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN forgotten INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN healthy INTEGER;
ALTER TABLE devices ADD COLUMN health_reason TEXT;
ALTER TABLE devices ADD COLUMN health_checked_unix_ms INTEGER;
)sql";

// Version 12: the offset of the workload clock on the run clock
// (RunResult.workload_offset_s), so the stall/compute energy split can be
// recomputed from minibatches and telemetry; NULL for runs stored before
// and for simulated runs.
constexpr char kSchemaV12[] = R"sql(
ALTER TABLE run_results ADD COLUMN workload_offset_s REAL;
)sql";

// Version 13: a minibatch's loss may be absent (MinibatchRecord.loss is
// optional: a twin's inference computes none), so minibatches.loss and
// run_aggregates.first_loss/last_loss become nullable, the procedure of
// version 2 (a loosened constraint, every stored row still satisfies it);
// writable_schema = RESET makes this connection re-read the schema (the
// NULLs below would otherwise still fail the old constraint) and the table
// created and dropped after it bumps the schema cookie for others. Twins'
// inference runs stored before kept 0 as their loss: it becomes NULL, and
// their aggregates are dropped so the store recomputes them when it opens
// (SqliteStore::BackfillAggregates).
constexpr char kSchemaV13[] = R"sql(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
  SET sql = replace(sql, 'loss REAL NOT NULL', 'loss REAL')
  WHERE type = 'table' AND name IN ('minibatches', 'run_aggregates');
PRAGMA writable_schema = RESET;
PRAGMA writable_schema = OFF;
CREATE TABLE schema_v13_cookie (x INTEGER);
DROP TABLE schema_v13_cookie;
UPDATE minibatches SET loss = NULL
  WHERE loss = 0 AND run_id IN (
    SELECT r.run_id FROM runs r JOIN run_results res ON res.run_id = r.run_id
    WHERE r.task = 'infer' AND res.framework = 'twin-model');
DELETE FROM run_aggregates WHERE run_id IN (
  SELECT r.run_id FROM runs r JOIN run_results res ON res.run_id = r.run_id
  WHERE r.task = 'infer' AND res.framework = 'twin-model');
)sql";

// Version 14: rails and temperatures for plain SQL (sqlite3, pandas).
// telemetry.rails_mw and telemetry.temperatures_c hold a one-line JSON
// object name -> value ({"VDD_IN":4321.5}; NULL when the sample had none,
// storage/telemetry_extras.h) beside extras_pb, which keeps everything;
// the views telemetry_rails and telemetry_temperatures give one row per
// sample and rail (zone). Rows stored before version 7 get the columns
// from their rails_json here; rows of versions 7 to 13 from their
// extras_pb when the store opens (SqliteStore::BackfillTelemetryColumns,
// once: meta key 'telemetry_columns' = 'filled').
constexpr char kSchemaV14[] = R"sql(
ALTER TABLE telemetry ADD COLUMN rails_mw TEXT;
ALTER TABLE telemetry ADD COLUMN temperatures_c TEXT;
UPDATE telemetry SET
  rails_mw = (SELECT NULLIF(json_group_object(json_extract(value, '$.name'),
                                              json_extract(value, '$.power_mw')),
                             '{}')
              FROM json_each(telemetry.rails_json, '$.rails')),
  temperatures_c = (SELECT NULLIF(json_group_object(
                                      json_extract(value, '$.name'),
                                      json_extract(value, '$.celsius')),
                                  '{}')
                    FROM json_each(telemetry.rails_json, '$.temperatures'))
  WHERE rails_json IS NOT NULL AND json_valid(rails_json);
CREATE VIEW telemetry_rails AS
  SELECT t.run_id AS run_id, t.attempt AS attempt, t.t_s AS t_s,
         r.key AS rail, r.value AS power_mw
  FROM telemetry t, json_each(t.rails_mw) r
  WHERE t.rails_mw IS NOT NULL;
CREATE VIEW telemetry_temperatures AS
  SELECT t.run_id AS run_id, t.attempt AS attempt, t.t_s AS t_s,
         z.key AS zone, z.value AS celsius
  FROM telemetry t, json_each(t.temperatures_c) z
  WHERE t.temperatures_c IS NOT NULL;
)sql";

// Version 15: when a device's agent disconnected (Store::
// SaveDeviceDisconnected; NULL while connected or before this version).
constexpr char kSchemaV15[] = R"sql(
ALTER TABLE devices ADD COLUMN disconnected_unix_ms INTEGER;
)sql";

constexpr char kCreateMigrationsTable[] =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY NOT NULL,"
    " applied_unix_ms INTEGER NOT NULL)";

absl::Status TooNew(const SqliteDb& db, int64_t version) {
  return absl::FailedPreconditionError(absl::StrCat(
      "database ", db.path(), " has schema version ", version,
      ", newer than the newest this binary knows (",
      Migrations().size(), "); use a newer powersweep"));
}

}  // namespace

const std::vector<std::string>& Migrations() {
  static const std::vector<std::string>* const kMigrations = [] {
    auto* all = new std::vector<std::string>{
        kSchemaV1,  kSchemaV2,  kSchemaV3,  kSchemaV4,  kSchemaV5,
        kSchemaV6,  kSchemaV7,  kSchemaV8,  kSchemaV9,  kSchemaV10,
        kSchemaV11, kSchemaV12, kSchemaV13, kSchemaV14, kSchemaV15};
    for (const char* sql : MigrationsFromV16()) all->push_back(sql);
    return all;
  }();
  return *kMigrations;
}

absl::StatusOr<int64_t> SchemaVersion(SqliteDb& db) {
  PS_ASSIGN_OR_RETURN(
      Stmt stmt,
      db.Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"));
  PS_RETURN_IF_ERROR(stmt.Step().status());
  return stmt.Int(0);
}

absl::StatusOr<int> ApplyMigrations(SqliteDb& db) {
  absl::Status st = db.Exec(kCreateMigrationsTable);
  if (!st.ok()) return st;
  const int64_t known = static_cast<int64_t>(Migrations().size());
  PS_ASSIGN_OR_RETURN(int64_t start, SchemaVersion(db));
  if (start > known) return TooNew(db, start);
  int applied = 0;
  for (int64_t version = start + 1; version <= known; ++version) {
    st = db.Transaction(SqliteDb::TxnKind::kWrite, [&]() -> absl::Status {
      // Re-read under the write lock: another process may have migrated.
      PS_ASSIGN_OR_RETURN(int64_t current, SchemaVersion(db));
      if (current > known) return TooNew(db, current);
      if (current >= version) return absl::OkStatus();
      absl::Status s = db.Exec(Migrations()[version - 1]);
      if (!s.ok()) return s;
      PS_ASSIGN_OR_RETURN(Stmt record,
                          db.Prepare("INSERT INTO schema_migrations(version, "
                                     "applied_unix_ms) VALUES (?1,"
                                     " CAST((julianday('now') - 2440587.5) * "
                                     "86400000.0 AS INTEGER))"));
      s = record.Bind(1, version).Run();
      if (s.ok()) ++applied;
      return s;
    });
    if (!st.ok()) return st;
  }
  return applied;
}

}  // namespace powersweep
