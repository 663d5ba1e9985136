// SqliteStore::ExportCsv: one table of a sweep as CSV (RFC 4180 quoting),
// read through a separate read-only connection in one read transaction, so
// the export is one consistent snapshot and writers are never blocked by a
// slow sink. runs.csv shows each run's current attempt (and that attempt's
// result); minibatches.csv and telemetry.csv hold every attempt's rows with
// an `attempt` column. Cells go through AppendCsvCell (common/csv_cell.h):
// text that a spreadsheet would run as a formula is neutralized.
// traces.csv has every attempt's run_traces rows (storage/
// run_trace_rows.h).
// telemetry.csv's rails_json column shows the JSON of the sample's extras
// however they are stored (telemetry_extras.h).
#include <map>

#include "absl/strings/str_cat.h"
#include "common/csv_cell.h"
#include "common/status_macros.h"
#include "storage/sqlite_store.h"
#include "storage/telemetry_extras.h"

namespace powersweep {
namespace {

constexpr int kRowsPerChunk = 1000;

const std::map<std::string, std::string>& ExportQueries() {
  static const auto* const kQueries = new std::map<std::string, std::string>{
      {"runs",
       "SELECT r.run_id AS run_id, r.sweep_id AS sweep_id,"
       " r.device_class AS device_class, r.model AS model, r.dataset AS dataset,"
       " r.task AS task, r.batch_size AS batch_size,"
       " r.loader_workers AS loader_workers,"
       " COALESCE(json_extract(r.spec_json, '$.workload.prefetch_depth'), 0)"
       " AS prefetch_depth,"
       " CASE json_extract(r.spec_json, '$.workload.page_cache')"
       " WHEN 'PAGE_CACHE_DROP' THEN 'drop' ELSE 'keep' END AS page_cache,"
       " COALESCE(json_extract(r.spec_json, '$.workload.preload'), 0) AS preload,"
       " COALESCE(json_extract(r.spec_json, '$.workload.input_size'), 0)"
       " AS input_size,"
       " r.cpu_cores AS cpu_cores,"
       " r.cpu_freq_khz AS cpu_freq_khz, r.gpu_freq_hz AS gpu_freq_hz,"
       " r.mem_freq_hz AS mem_freq_hz, r.preset AS preset, r.runtime AS runtime,"
       " r.repetition AS repetition, r.attempt AS attempt, r.state AS state,"
       " r.device_id AS device_id, r.reason AS reason,"
       " r.created_unix_ms AS created_unix_ms, r.leased_unix_ms AS leased_unix_ms,"
       " r.started_unix_ms AS started_unix_ms,"
       " r.finished_unix_ms AS finished_unix_ms, res.ok AS ok,"
       " res.reason AS result_reason, res.exit_code AS exit_code,"
       " res.term_signal AS term_signal, res.duration_s AS duration_s,"
       " res.energy_j AS energy_j, res.energy_provenance AS energy_provenance,"
       " res.sampler_cpu_s AS sampler_cpu_s,"
       " res.energy_stall_j AS energy_stall_j,"
       " res.energy_compute_j AS energy_compute_j,"
       " res.baseload_power_mw AS baseload_power_mw,"
       " res.incremental_energy_j AS incremental_energy_j,"
       " res.agent_cpu_fraction AS agent_cpu_fraction, res.framework AS framework,"
       " res.framework_version AS framework_version,"
       " res.binary_fingerprint AS binary_fingerprint,"
       " res.framework_fingerprint AS framework_fingerprint,"
       " res.threads AS threads, res.compute_device AS compute_device,"
       " res.kernel AS kernel, res.host AS host,"
       " res.model_params AS model_params,"
       " res.model_forward_macs AS model_forward_macs,"
       " res.dataset_format AS dataset_format,"
       " res.storage_device AS storage_device,"
       " res.storage_kind AS storage_kind,"
       " json_extract(res.result_json, '$.provenance.workload.kernel.shape')"
       " AS kernel_shape,"
       " CAST(json_extract(res.result_json,"
       " '$.provenance.workload.kernel.flops') AS REAL) AS kernel_flops,"
       " CAST(json_extract(res.result_json,"
       " '$.provenance.workload.kernel.launches') AS REAL) AS kernel_launches,"
       " COALESCE(json_extract(r.spec_json, '$.power_mode.gpu_power_limit_w'),"
       " 0) AS gpu_power_limit_w,"
       " CAST(json_extract(res.result_json, '$.gpu_counter_energy_j') AS REAL)"
       " AS gpu_counter_energy_j,"
       " r.applied_mode_json AS applied_mode_json"
       " FROM runs r LEFT JOIN run_results res"
       " ON res.run_id = r.run_id AND res.attempt = r.attempt"
       " WHERE r.sweep_id = ?1 ORDER BY r.run_id"},
      {"minibatches",
       "SELECT m.run_id AS run_id, m.attempt AS attempt, m.seq AS seq, m.idx AS idx, m.epoch AS epoch,"
       " m.t_start_s AS t_start_s, m.stall_s AS stall_s, m.compute_s AS compute_s,"
       " m.e2e_s AS e2e_s, m.samples AS samples, m.loss AS loss, m.tenant AS tenant,"
       " m.page_cache_resident AS page_cache_resident, m.tokens AS tokens,"
       " m.ttft_s AS ttft_s, m.per_token_s AS per_token_s,"
       " m.h2d_s AS h2d_s, m.warmup AS warmup"
       " FROM runs r JOIN minibatches m ON m.run_id = r.run_id"
       " WHERE r.sweep_id = ?1 ORDER BY m.run_id, m.attempt, m.idx, m.rowid"},
      {"telemetry",
       "SELECT t.run_id AS run_id, t.attempt AS attempt, t.seq AS seq, t.t_s AS t_s,"
       " t.cpu_util AS cpu_util, t.core_util AS core_util,"
       " t.core_freq_khz AS core_freq_khz, t.mem_used_bytes AS mem_used_bytes,"
       " t.mem_total_bytes AS mem_total_bytes, t.proc_cpu_s AS proc_cpu_s,"
       " t.proc_rss_bytes AS proc_rss_bytes, t.gpu_util AS gpu_util,"
       " t.gpu_freq_hz AS gpu_freq_hz, t.power_mw AS power_mw,"
       " t.power_provenance AS power_provenance,"
       " COALESCE(t.rails_json, t.extras_pb) AS rails_json,"
       " t.mem_freq_hz AS mem_freq_hz, t.pgfault AS pgfault,"
       " t.pgmajfault AS pgmajfault, t.nr_dirty AS nr_dirty,"
       " t.nr_writeback AS nr_writeback, t.pgpgout_kib AS pgpgout_kib,"
       " t.nr_written AS nr_written, t.tenant_pgfault AS tenant_pgfault,"
       " t.tenant_pgmajfault AS tenant_pgmajfault"
       " FROM runs r JOIN telemetry t ON t.run_id = r.run_id"
       " WHERE r.sweep_id = ?1 ORDER BY t.run_id, t.attempt, t.t_s, t.rowid"},
      {"traces",
       "SELECT k.run_id AS run_id, k.attempt AS attempt, k.kind AS kind,"
       " k.name AS name, k.scope AS scope, k.count AS count,"
       " k.bytes AS bytes, k.interval_count AS interval_count,"
       " k.interval_mean_s AS interval_mean_s,"
       " k.interval_sd_s AS interval_sd_s,"
       " k.interval_p50_s AS interval_p50_s,"
       " k.interval_max_s AS interval_max_s,"
       " k.missing_reason AS missing_reason"
       " FROM runs r JOIN run_traces k ON k.run_id = r.run_id"
       " WHERE r.sweep_id = ?1 ORDER BY k.run_id, k.attempt, k.rowid"},
  };
  return *kQueries;
}

}  // namespace

absl::Status SqliteStore::ExportCsv(
    int64_t sweep_id, const std::string& table,
    const std::function<void(const std::string&)>& sink) {
  auto query = ExportQueries().find(table);
  if (query == ExportQueries().end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown export table '", table, "' (expected runs, minibatches, telemetry or traces)"));
  }
  PS_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db,
                      SqliteDb::Open(path_, /*read_only=*/true));
  db->CountErrorsIn(&error_counts_);
  PS_RETURN_IF_ERROR(db->Exec("PRAGMA busy_timeout=5000"));
  return db->Transaction(SqliteDb::TxnKind::kRead, [&]() -> absl::Status {
    {
      PS_ASSIGN_OR_RETURN(Stmt stmt, db->Prepare("SELECT 1 FROM sweeps WHERE sweep_id = ?1"));
      PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, sweep_id).Step());
      if (!row) return absl::NotFoundError(absl::StrCat("sweep ", sweep_id, " not found"));
    }
    PS_ASSIGN_OR_RETURN(Stmt stmt, db->Prepare(query->second));
    stmt.Bind(1, sweep_id);
    const int columns = stmt.ColumnCount();
    std::string chunk;
    for (int c = 0; c < columns; ++c) {
      if (c > 0) chunk.push_back(',');
      AppendCsvCell(stmt.ColumnName(c), &chunk);
    }
    chunk.push_back('\n');
    int rows_in_chunk = 0;
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      for (int c = 0; c < columns; ++c) {
        if (c > 0) chunk.push_back(',');
        if (stmt.IsBlob(c)) {  // telemetry extras_pb, shown as its JSON
          PS_ASSIGN_OR_RETURN(std::string json, TelemetryExtrasJson(stmt.Bytes(c)));
          AppendCsvCell(json, &chunk);
        } else if (!stmt.IsNull(c)) {
          AppendCsvCell(stmt.Text(c), &chunk);
        }
      }
      chunk.push_back('\n');
      if (++rows_in_chunk == kRowsPerChunk) {
        sink(chunk);
        chunk.clear();
        rows_in_chunk = 0;
      }
    }
    if (!chunk.empty()) sink(chunk);
    return absl::OkStatus();
  });
}

}  // namespace powersweep
