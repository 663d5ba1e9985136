// SqliteStore: reading a run's records back (the run's current attempt), and
// the one-time fill of the plain-SQL telemetry columns of schema 14.
#include <algorithm>
#include <tuple>
#include <vector>

#include "common/proto_json.h"
#include "common/status_macros.h"
#include "storage/schema_text.h"
#include "storage/sqlite_store.h"
#include "storage/telemetry_extras.h"

namespace powersweep {
namespace {

using TxnKind = SqliteDb::TxnKind;

}  // namespace

absl::StatusOr<std::vector<v1::MinibatchRecord>> SqliteStore::GetMinibatches(
    int64_t run_id) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::MinibatchRecord> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(const int32_t attempt, CurrentAttempt(run_id));
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare("SELECT epoch, idx, t_start_s, stall_s, compute_s, e2e_s,"
                                " samples, loss, tenant, page_cache_resident,"
                                " tokens, ttft_s, per_token_s, h2d_s, warmup"
                                " FROM minibatches"
                                " WHERE run_id = ?1 AND attempt = ?2"
                                " ORDER BY tenant, idx, rowid"));
    stmt.Bind(1, run_id).Bind(2, attempt);
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
      if (!stmt.IsNull(7)) r.set_loss(stmt.Double(7));
      r.set_tenant(static_cast<int32_t>(stmt.Int(8)));
      if (!stmt.IsNull(9)) r.set_page_cache_resident(stmt.Double(9));
      if (!stmt.IsNull(10)) r.set_tokens(stmt.Int(10));
      if (!stmt.IsNull(11)) r.set_ttft_s(stmt.Double(11));
      if (!stmt.IsNull(12)) r.set_per_token_s(stmt.Double(12));
      if (!stmt.IsNull(13)) r.set_h2d_s(stmt.Double(13));
      if (!stmt.IsNull(14) && stmt.Int(14) != 0) r.set_warmup(true);
    }
  }));
  return out;
}

absl::StatusOr<std::vector<v1::TelemetrySample>> SqliteStore::GetTelemetry(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::TelemetrySample> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(const int32_t attempt, CurrentAttempt(run_id));
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare("SELECT t_s, cpu_util, core_util, core_freq_khz, mem_used_bytes,"
                     " mem_total_bytes, proc_cpu_s, proc_rss_bytes, gpu_util,"
                     " gpu_freq_hz, power_mw, power_provenance, extras_pb, rails_json"
                     " FROM telemetry"
                     " WHERE run_id = ?1 AND attempt = ?2 ORDER BY t_s, rowid"));
    stmt.Bind(1, run_id).Bind(2, attempt);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      v1::TelemetrySample& s = out.emplace_back();
      // extras_pb since schema 7, rails_json (JSON) in older rows.
      if (!stmt.IsNull(12)) {
        PS_RETURN_IF_ERROR(DecodeTelemetryExtras(stmt.Bytes(12), false, &s));
      } else if (!stmt.IsNull(13)) {
        PS_RETURN_IF_ERROR(DecodeTelemetryExtras(stmt.Bytes(13), true, &s));
      }
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

absl::Status SqliteStore::BackfillTelemetryColumns() {
  constexpr int kChunk = 5000;
  bool filled = false;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(Stmt stmt,
                        db_->Prepare("SELECT 1 FROM meta WHERE key = "
                                     "'telemetry_columns' AND value = 'filled'"));
    PS_ASSIGN_OR_RETURN(filled, stmt.Step());
    return absl::OkStatus();
  }));
  if (filled) return absl::OkStatus();
  int64_t after = 0;
  while (true) {
    int rows = 0;
    PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
      std::vector<std::tuple<int64_t, std::string, std::string>> updates;
      {
        PS_ASSIGN_OR_RETURN(
            Stmt stmt,
            db_->Prepare("SELECT rowid, extras_pb FROM telemetry"
                         " WHERE rowid > ?1 AND extras_pb IS NOT NULL"
                         " ORDER BY rowid LIMIT ?2"));
        stmt.Bind(1, after).Bind(2, kChunk);
        while (true) {
          PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
          if (!row) break;
          ++rows;
          after = stmt.Int(0);
          v1::TelemetrySample extras;
          PS_RETURN_IF_ERROR(DecodeTelemetryExtras(stmt.Bytes(1), false, &extras));
          updates.emplace_back(after, RailsColumn(extras),
                               TemperaturesColumn(extras));
        }
      }
      PS_ASSIGN_OR_RETURN(
          Stmt update,
          db_->Prepare("UPDATE telemetry SET rails_mw = ?2, temperatures_c = ?3"
                       " WHERE rowid = ?1"));
      for (const auto& [rowid, rails, temps] : updates) {
        update.Bind(1, rowid);
        if (rails.empty()) update.BindNull(2); else update.Bind(2, rails);
        if (temps.empty()) update.BindNull(3); else update.Bind(3, temps);
        PS_RETURN_IF_ERROR(update.Run());
        update.Reset();
      }
      if (rows < kChunk) {
        PS_ASSIGN_OR_RETURN(
            Stmt done,
            db_->Prepare("INSERT OR REPLACE INTO meta(key, value)"
                         " VALUES ('telemetry_columns', 'filled')"));
        PS_RETURN_IF_ERROR(done.Run());
      }
      return absl::OkStatus();
    }));
    if (rows < kChunk) return absl::OkStatus();
  }
}

}  // namespace powersweep
