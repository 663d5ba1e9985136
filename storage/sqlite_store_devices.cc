// SqliteStore: the state of devices that operators and agents set (table
// devices, schema version 11): drained, forgotten, the latest health check.
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "storage/sqlite_store.h"

namespace powersweep {
namespace {

absl::Status UnknownDevice(const std::string& device_id) {
  return absl::NotFoundError(
      absl::StrCat("unknown device '", device_id, "'"));
}

}  // namespace

using TxnKind = SqliteDb::TxnKind;

absl::Status SqliteStore::UpdateDevice(const std::string& device_id,
                                       const std::string& set_sql,
                                       const std::function<void(Stmt&)>& bind) {
  absl::MutexLock lock(&mu_);
  return db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare(absl::StrCat("UPDATE devices SET ", set_sql,
                                             " WHERE device_id = ?1")));
    stmt.Bind(1, device_id);
    bind(stmt);
    PS_RETURN_IF_ERROR(stmt.Run());
    if (db_->Changes() == 0) return UnknownDevice(device_id);
    return absl::OkStatus();
  });
}

absl::Status SqliteStore::SetDeviceDrained(const std::string& device_id,
                                           bool drained) {
  return UpdateDevice(device_id, "drained = ?2", [drained](Stmt& stmt) {
    stmt.Bind(2, drained ? 1 : 0);
  });
}

absl::Status SqliteStore::SetDeviceForgotten(const std::string& device_id,
                                             bool forgotten) {
  return UpdateDevice(device_id, "forgotten = ?2", [forgotten](Stmt& stmt) {
    stmt.Bind(2, forgotten ? 1 : 0);
  });
}

namespace {

// A device no run names (unused): the condition on devices.device_id.
constexpr char kUnused[] =
    "NOT EXISTS (SELECT 1 FROM runs r WHERE r.device_id = d.device_id)"
    " AND NOT EXISTS (SELECT 1 FROM run_state_history h"
    "                 WHERE h.device_id = d.device_id)"
    " AND NOT EXISTS (SELECT 1 FROM run_devices t"
    "                 WHERE t.device_id = d.device_id)"
    " AND NOT EXISTS (SELECT 1 FROM device_offsets o"
    "                 WHERE o.device_id = d.device_id)";

}  // namespace

absl::StatusOr<std::vector<std::string>> SqliteStore::ListUnusedDevices() {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare(absl::StrCat("SELECT device_id FROM devices d"
                                             " WHERE ", kUnused,
                                             " ORDER BY device_id")));
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      out.push_back(stmt.Text(0));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<bool> SqliteStore::DeleteUnusedDevice(
    const std::string& device_id) {
  absl::MutexLock lock(&mu_);
  bool deleted = false;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt, db_->Prepare(absl::StrCat("DELETE FROM devices AS d"
                                             " WHERE d.device_id = ?1 AND ",
                                             kUnused)));
    PS_RETURN_IF_ERROR(stmt.Bind(1, device_id).Run());
    deleted = db_->Changes() > 0;
    return absl::OkStatus();
  }));
  return deleted;
}

absl::Status SqliteStore::SaveDeviceDisconnected(const std::string& device_id,
                                                 absl::Time last_seen,
                                                 absl::Time at) {
  return UpdateDevice(
      device_id,
      "last_seen_unix_ms = max(last_seen_unix_ms, ?2),"
      " disconnected_unix_ms = ?3",
      [&](Stmt& stmt) {
        stmt.Bind(2, absl::ToUnixMillis(last_seen))
            .Bind(3, absl::ToUnixMillis(at));
      });
}

absl::Status SqliteStore::SaveDeviceHealth(const std::string& device_id,
                                           const v1::DeviceHealth& health) {
  return UpdateDevice(
      device_id,
      "healthy = ?2, health_reason = ?3, health_checked_unix_ms = ?4",
      [&health](Stmt& stmt) {
        stmt.Bind(2, health.healthy() ? 1 : 0)
            .Bind(3, health.reason())
            .Bind(4, health.checked_unix_ms());
      });
}

}  // namespace powersweep
