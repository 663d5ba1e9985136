// SqliteStore: what a sweep's tables need at scale (schema 7): the record
// aggregates of each run attempt (table run_aggregates), the results of a
// sweep in one read, and the baseload runs of one device.
#include "absl/strings/str_cat.h"
#include "common/proto_json.h"
#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "storage/run_rows.h"
#include "storage/schema_text.h"
#include "storage/sqlite_store.h"

namespace powersweep {
namespace {

using TxnKind = SqliteDb::TxnKind;

absl::Status RequireSweep(SqliteDb& db, int64_t sweep_id) {
  PS_ASSIGN_OR_RETURN(Stmt stmt, db.Prepare("SELECT 1 FROM sweeps WHERE sweep_id = ?1"));
  PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, sweep_id).Step());
  if (!row) return absl::NotFoundError(absl::StrCat("sweep ", sweep_id, " not found"));
  return absl::OkStatus();
}

// Reads columns 2.. of a run_aggregates row (after run_id, attempt).
RecordAggregates ReadAggregates(const Stmt& stmt) {
  RecordAggregates a;
  v1::RunSummary& s = a.summary;
  s.set_minibatches(stmt.Int(2));
  s.set_mean_minibatch_s(stmt.Double(3));
  s.set_mean_stall_s(stmt.Double(4));
  s.set_mean_compute_s(stmt.Double(5));
  s.set_samples_per_s(stmt.Double(6));
  if (!stmt.IsNull(7)) s.set_first_loss(stmt.Double(7));
  if (!stmt.IsNull(8)) s.set_last_loss(stmt.Double(8));
  s.set_telemetry_samples(stmt.Int(9));
  s.set_mean_cpu_util(stmt.Double(10));
  s.set_peak_rss_bytes(stmt.Int(11));
  s.set_duration_s(stmt.Double(12));
  s.set_energy_j(stmt.Double(13));
  if (!stmt.IsNull(14)) s.set_energy_provenance(ParseProvenance(stmt.Text(14)));
  a.power_span_s = stmt.Double(15);
  if (!stmt.IsNull(16)) s.set_tokens_per_s(stmt.Double(16));
  if (!stmt.IsNull(17)) s.set_mean_ttft_s(stmt.Double(17));
  if (!stmt.IsNull(18)) s.set_mean_per_token_s(stmt.Double(18));
  return a;
}

}  // namespace

absl::StatusOr<RecordAggregates> SqliteStore::ComputeAggregates(int64_t run_id,
                                                                int32_t attempt) {
  RecordAggregator agg;
  {
    // The order GetMinibatches returns (the loss windows depend on it).
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("SELECT e2e_s, stall_s, compute_s, samples, loss,"
                                " tokens, ttft_s, per_token_s"
                                " FROM minibatches WHERE run_id = ?1 AND attempt = ?2"
                                " AND warmup IS NULL"  // warm-up left out
                                " ORDER BY tenant, idx, rowid"));
    stmt.Bind(1, run_id).Bind(2, attempt);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      agg.AddMinibatch(stmt.Double(0), stmt.Double(1), stmt.Double(2),
                       static_cast<double>(static_cast<int32_t>(stmt.Int(3))),
                       !stmt.IsNull(4), stmt.Double(4));
      agg.AddTokens(stmt.IsNull(5) ? 0 : stmt.Int(5),
                    stmt.IsNull(6) ? -1 : stmt.Double(6),
                    stmt.IsNull(7) ? -1 : stmt.Double(7));
    }
  }
  // Time order, as GetTelemetry returns (the energy integral needs it).
  PS_ASSIGN_OR_RETURN(
      Stmt stmt, db_->Prepare("SELECT t_s, cpu_util, proc_rss_bytes, power_mw,"
                              " power_provenance FROM telemetry"
                              " WHERE run_id = ?1 AND attempt = ?2 ORDER BY t_s, rowid"));
  stmt.Bind(1, run_id).Bind(2, attempt);
  while (true) {
    PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    const double t = stmt.Double(0);
    agg.AddSample(t, stmt.Double(1), stmt.Int(2));
    const double mw = stmt.Double(3);
    if (mw > 0) agg.AddPowerReading(t, mw, ParseProvenance(stmt.Text(4)));
  }
  return agg.Finish();
}

absl::Status SqliteStore::StoreAggregates(int64_t run_id, int32_t attempt) {
  PS_ASSIGN_OR_RETURN(RecordAggregates a, ComputeAggregates(run_id, attempt));
  const v1::RunSummary& s = a.summary;
  PS_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->Prepare("INSERT OR REPLACE INTO run_aggregates(run_id, attempt, minibatches,"
                   " mean_minibatch_s, mean_stall_s, mean_compute_s, samples_per_s,"
                   " first_loss, last_loss, telemetry_samples, mean_cpu_util,"
                   " peak_rss_bytes, duration_s, energy_j, energy_provenance,"
                   " power_span_s, tokens_per_s, mean_ttft_s, mean_per_token_s)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
                   " ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)"));
  // No loss (a twin's inference) is NULL, not 0.
  if (s.has_first_loss()) {
    stmt.Bind(8, s.first_loss());
  } else {
    stmt.BindNull(8);
  }
  if (s.has_last_loss()) {
    stmt.Bind(9, s.last_loss());
  } else {
    stmt.BindNull(9);
  }
  if (s.energy_provenance() == v1::PROVENANCE_UNSPECIFIED) {
    stmt.BindNull(15);
  } else {
    stmt.Bind(15, ProvenanceText(s.energy_provenance()));
  }
  return stmt.Bind(1, run_id)
      .Bind(2, attempt)
      .Bind(3, s.minibatches())
      .Bind(4, s.mean_minibatch_s())
      .Bind(5, s.mean_stall_s())
      .Bind(6, s.mean_compute_s())
      .Bind(7, s.samples_per_s())
      .Bind(10, s.telemetry_samples())
      .Bind(11, s.mean_cpu_util())
      .Bind(12, s.peak_rss_bytes())
      .Bind(13, s.duration_s())
      .Bind(14, s.energy_j())
      .Bind(16, a.power_span_s)
      .Bind(17, s.tokens_per_s())
      .Bind(18, s.mean_ttft_s())
      .Bind(19, s.mean_per_token_s())
      .Run();
}

absl::Status SqliteStore::BackfillAggregates() {
  std::vector<std::pair<int64_t, int32_t>> missing;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare("SELECT r.run_id, r.attempt FROM runs r LEFT JOIN run_aggregates a"
                     " ON a.run_id = r.run_id AND a.attempt = r.attempt"
                     " WHERE r.state IN ('done', 'failed', 'cancelled')"
                     " AND a.run_id IS NULL"));
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      missing.emplace_back(stmt.Int(0), static_cast<int32_t>(stmt.Int(1)));
    }
  }));
  if (missing.empty()) return absl::OkStatus();
  return db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    for (const auto& [run_id, attempt] : missing) {
      PS_RETURN_IF_ERROR(StoreAggregates(run_id, attempt));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<RunAggregates>> SqliteStore::GetSweepAggregates(
    int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  std::vector<RunAggregates> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_RETURN_IF_ERROR(RequireSweep(*db_, sweep_id));
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare("SELECT r.run_id, r.attempt, a.minibatches, a.mean_minibatch_s,"
                     " a.mean_stall_s, a.mean_compute_s, a.samples_per_s, a.first_loss,"
                     " a.last_loss, a.telemetry_samples, a.mean_cpu_util,"
                     " a.peak_rss_bytes, a.duration_s, a.energy_j, a.energy_provenance,"
                     " a.power_span_s, a.tokens_per_s, a.mean_ttft_s,"
                     " a.mean_per_token_s FROM runs r LEFT JOIN run_aggregates a"
                     " ON a.run_id = r.run_id AND a.attempt = r.attempt"
                     " WHERE r.sweep_id = ?1 ORDER BY r.run_id"));
    stmt.Bind(1, sweep_id);
    std::vector<size_t> to_compute;
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      RunAggregates& r = out.emplace_back();
      r.run_id = stmt.Int(0);
      r.attempt = static_cast<int32_t>(stmt.Int(1));
      if (stmt.IsNull(2)) {
        to_compute.push_back(out.size() - 1);
      } else {
        r.aggregates = ReadAggregates(stmt);
      }
    }
    // Runs not finished yet (or given records after they finished).
    for (size_t i : to_compute) {
      PS_ASSIGN_OR_RETURN(out[i].aggregates,
                          ComputeAggregates(out[i].run_id, out[i].attempt));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::RunResult>> SqliteStore::ListRunResults(int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::RunResult> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_RETURN_IF_ERROR(RequireSweep(*db_, sweep_id));
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("SELECT res.result_json FROM runs r JOIN run_results res"
                                " ON res.run_id = r.run_id AND res.attempt = r.attempt"
                                " WHERE r.sweep_id = ?1 ORDER BY r.run_id"));
    stmt.Bind(1, sweep_id);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      PS_RETURN_IF_ERROR(FromJson(stmt.Text(0), &out.emplace_back()));
    }
  }));
  return out;
}

absl::StatusOr<std::vector<RunWithResult>> SqliteStore::FindBaseloads(
    const std::string& device_id, const v1::PowerMode* mode) {
  absl::MutexLock lock(&mu_);
  std::vector<RunWithResult> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    // runs_by_device_task serves the device's lookup.
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare(absl::StrCat(
            "SELECT r.run_id, r.sweep_id, r.attempt, r.state, r.device_id, r.reason,"
            " r.created_unix_ms, r.started_unix_ms, r.finished_unix_ms, r.spec_json,"
            " res.result_json FROM runs r JOIN run_results res"
            " ON res.run_id = r.run_id AND res.attempt = r.attempt"
            " WHERE r.task = 'baseload' AND r.state = 'done'",
            device_id.empty() ? "" : " AND r.device_id = ?1", " ORDER BY r.run_id")));
    if (!device_id.empty()) stmt.Bind(1, device_id);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      PS_ASSIGN_OR_RETURN(v1::RunStatus run, ReadRun(stmt));
      if (mode != nullptr && !google::protobuf::util::MessageDifferencer::Equals(
                                 run.spec().power_mode(), *mode)) {
        continue;
      }
      RunWithResult& r = out.emplace_back();
      r.run = std::move(run);
      PS_RETURN_IF_ERROR(FromJson(stmt.Text(10), &r.result));
    }
  }));
  return out;
}

}  // namespace powersweep
