// SqliteStore: calibration offsets of device instances (table
// device_offsets, schema version 10).
#include "common/status_macros.h"
#include "storage/device_offsets_check.h"
#include "storage/sqlite_store.h"

namespace powersweep {

using TxnKind = SqliteDb::TxnKind;

absl::Status SqliteStore::SaveDeviceOffsets(
    const std::vector<v1::DeviceOffset>& offsets) {
  PS_RETURN_IF_ERROR(CheckDeviceOffsets(offsets));
  absl::MutexLock lock(&mu_);
  return db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    for (const v1::DeviceOffset& o : offsets) {
      PS_ASSIGN_OR_RETURN(
          Stmt stmt,
          db_->Prepare("INSERT OR REPLACE INTO device_offsets(device_id,"
                       " metric, device_class, factor, sweep_id, cells, runs,"
                       " saved_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
                       " ?8)"));
      PS_RETURN_IF_ERROR(stmt.Bind(1, o.device_id())
                             .Bind(2, o.metric())
                             .Bind(3, o.device_class())
                             .Bind(4, o.factor())
                             .Bind(5, o.sweep_id())
                             .Bind(6, static_cast<int64_t>(o.cells()))
                             .Bind(7, static_cast<int64_t>(o.runs()))
                             .Bind(8, o.saved_unix_ms())
                             .Run());
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<v1::DeviceOffset>> SqliteStore::ListDeviceOffsets(
    const std::string& device_id) {
  std::vector<v1::DeviceOffset> out;
  absl::MutexLock lock(&mu_);
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare("SELECT device_id, metric, device_class, factor,"
                     " sweep_id, cells, runs, saved_unix_ms FROM"
                     " device_offsets WHERE ?1 = '' OR device_id = ?1"
                     " ORDER BY device_id, metric"));
    stmt.Bind(1, device_id);
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      v1::DeviceOffset& o = out.emplace_back();
      o.set_device_id(stmt.Text(0));
      o.set_metric(stmt.Text(1));
      o.set_device_class(stmt.Text(2));
      o.set_factor(stmt.Double(3));
      o.set_sweep_id(stmt.Int(4));
      o.set_cells(static_cast<int32_t>(stmt.Int(5)));
      o.set_runs(static_cast<int32_t>(stmt.Int(6)));
      o.set_saved_unix_ms(stmt.Int(7));
    }
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace powersweep
