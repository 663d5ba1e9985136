// SqliteStore: fitted time and energy models (table `models`, schema
// version 5). The whole WorkloadModel is model_json; the other columns are
// copies for SQL users and for nothing else (reads use model_json and
// model_id only).
#include "absl/strings/str_cat.h"
#include "common/proto_json.h"
#include "common/status_macros.h"
#include "storage/schema_text.h"
#include "storage/sqlite_store.h"

namespace powersweep {
namespace {

using TxnKind = SqliteDb::TxnKind;

void BindDoubleOrNull(Stmt& stmt, int index, bool present, double value) {
  if (present) {
    stmt.Bind(index, value);
  } else {
    stmt.BindNull(index);
  }
}

absl::StatusOr<v1::WorkloadModel> ReadModel(const Stmt& stmt) {
  v1::WorkloadModel model;
  absl::Status st = FromJson(stmt.Text(1), &model);
  if (!st.ok()) {
    return absl::DataLossError(absl::StrCat("models row ", stmt.Int(0),
                                            ": model_json: ", st.message()));
  }
  model.set_model_id(stmt.Int(0));
  return model;
}

}  // namespace

absl::StatusOr<int64_t> SqliteStore::SaveModel(const v1::WorkloadModel& model) {
  if (model.device_class().empty() || model.model().empty()) {
    return absl::InvalidArgumentError(
        "SaveModel: device_class and model must be set");
  }
  v1::WorkloadModel stored = model;
  stored.clear_model_id();
  const std::string json = ToJsonLine(stored);
  absl::MutexLock lock(&mu_);
  int64_t id = 0;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kWrite, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt sweep, db_->Prepare("SELECT 1 FROM sweeps WHERE sweep_id = ?1"));
    PS_ASSIGN_OR_RETURN(bool found, sweep.Bind(1, model.sweep_id()).Step());
    if (!found) {
      return absl::NotFoundError(
          absl::StrCat("SaveModel: sweep ", model.sweep_id(), " not found"));
    }
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare(
            "INSERT INTO models(sweep_id, device_class, model, dataset, task,"
            " batch_size, loader_workers, runtime, tenants, runs, time_form,"
            " time_cv_mape_pct, energy_form, energy_cv_mape_pct,"
            " energy_provenance, fitted_unix_ms, model_json) VALUES (?1, ?2,"
            " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
            " ?17)"));
    const bool has_energy = model.has_energy_model();
    stmt.Bind(1, model.sweep_id())
        .Bind(2, model.device_class())
        .Bind(3, model.model())
        .Bind(4, model.dataset())
        .Bind(5, TaskText(model.task()))
        .Bind(6, int64_t{model.batch_size()})
        .Bind(7, int64_t{model.loader_workers()})
        .Bind(8, RuntimeText(model.runtime()))
        .Bind(9, int64_t{model.tenants()})
        .Bind(10, static_cast<int64_t>(model.run_ids_size()))
        .Bind(11, model.time_model().form());
    BindDoubleOrNull(stmt, 12, model.has_time_model(),
                     model.time_model().cv_mape_pct());
    if (has_energy) {
      stmt.Bind(13, model.energy_model().form());
      stmt.Bind(15, ProvenanceText(model.energy_provenance()));
    } else {
      stmt.BindNull(13);
      stmt.BindNull(15);
    }
    BindDoubleOrNull(stmt, 14, has_energy, model.energy_model().cv_mape_pct());
    stmt.Bind(16, model.fitted_unix_ms()).Bind(17, json);
    PS_RETURN_IF_ERROR(stmt.Run());
    id = db_->LastInsertRowId();
    return absl::OkStatus();
  }));
  return id;
}

absl::StatusOr<std::vector<v1::WorkloadModel>> SqliteStore::ListModels() {
  absl::MutexLock lock(&mu_);
  std::vector<v1::WorkloadModel> out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare(
            "SELECT model_id, model_json FROM models ORDER BY model_id"));
    while (true) {
      PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) return absl::OkStatus();
      PS_ASSIGN_OR_RETURN(v1::WorkloadModel m, ReadModel(stmt));
      out.push_back(std::move(m));
    }
  }));
  return out;
}

absl::StatusOr<v1::WorkloadModel> SqliteStore::GetModel(int64_t model_id) {
  absl::MutexLock lock(&mu_);
  v1::WorkloadModel out;
  PS_RETURN_IF_ERROR(db_->Transaction(TxnKind::kRead, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    PS_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->Prepare(
            "SELECT model_id, model_json FROM models WHERE model_id = ?1"));
    PS_ASSIGN_OR_RETURN(bool row, stmt.Bind(1, model_id).Step());
    if (!row) {
      return absl::NotFoundError(absl::StrCat(
          "model ", model_id, " not found (`powersweep models` lists them)"));
    }
    PS_ASSIGN_OR_RETURN(out, ReadModel(stmt));
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace powersweep
