#include "storage/sqlite_db.h"

#include <sqlite3.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace powersweep {

// ------------------------------------------------------------------- Stmt

Stmt::~Stmt() { Reset(); }

void Stmt::Reset() {
  if (stmt_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
}

Stmt& Stmt::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Stmt& Stmt::Bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

Stmt& Stmt::Bind(int index, absl::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::BindBlob(int index, absl::string_view value) {
  sqlite3_bind_blob(stmt_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

absl::StatusOr<bool> Stmt::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, sqlite3_sql(stmt_));
}

absl::Status Stmt::Run() {
  while (true) {
    PS_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return absl::OkStatus();
  }
}

int Stmt::ColumnCount() const { return sqlite3_column_count(stmt_); }

std::string Stmt::ColumnName(int col) const {
  const char* name = sqlite3_column_name(stmt_, col);
  return name == nullptr ? std::string() : std::string(name);
}

bool Stmt::IsNull(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

int64_t Stmt::Int(int col) const { return sqlite3_column_int64(stmt_, col); }

double Stmt::Double(int col) const { return sqlite3_column_double(stmt_, col); }

bool Stmt::IsBlob(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_BLOB;
}

absl::string_view Stmt::Bytes(int col) const {
  const void* data = sqlite3_column_blob(stmt_, col);
  if (data == nullptr) return absl::string_view();
  return absl::string_view(static_cast<const char*>(data),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::string Stmt::Text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  if (text == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(text),
                     sqlite3_column_bytes(stmt_, col));
}

// --------------------------------------------------------------- SqliteDb

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path,
                                                         bool read_only) {
  if (path.empty()) {
    return absl::InvalidArgumentError("database path is empty");
  }
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    return absl::NotFoundError(
        absl::StrCat("cannot open database ", path, ": folder ",
                     parent.string(), " does not exist"));
  }
  int flags = read_only ? SQLITE_OPEN_READONLY
                        : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  flags |= SQLITE_OPEN_NOMUTEX;  // the owner serializes access
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string reason = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::UnavailableError(
        absl::StrCat("cannot open database ", path, ": ", reason));
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db, path));
}

SqliteDb::~SqliteDb() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

absl::Status SqliteDb::Error(int rc, absl::string_view what) const {
  std::string msg = absl::StrCat("database ", path_, ": ", sqlite3_errmsg(db_),
                                 " (in: ", what.substr(0, 120), ")");
  const auto count = [this](std::atomic<int64_t> SqliteErrorCounts::*kind) {
    if (errors_ != nullptr)
      (errors_->*kind).fetch_add(1, std::memory_order_relaxed);
  };
  switch (rc & 0xff) {
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
      count(&SqliteErrorCounts::constraint);
      return absl::InvalidArgumentError(msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
      count(&SqliteErrorCounts::busy);
      return absl::UnavailableError(msg);
    default:
      count(&SqliteErrorCounts::other);
      return absl::InternalError(msg);
  }
}

absl::Status SqliteDb::Exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);
  if (rc != SQLITE_OK) return Error(rc, sql);
  return absl::OkStatus();
}

absl::StatusOr<Stmt> SqliteDb::Prepare(const std::string& sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) return Stmt(this, it->second);
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, sql);
  }
  cache_.emplace(sql, stmt);
  return Stmt(this, stmt);
}

absl::Status SqliteDb::Transaction(TxnKind kind,
                                   const std::function<absl::Status()>& body) {
  PS_RETURN_IF_ERROR(
      Exec(kind == TxnKind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED"));
  absl::Status st = body();
  if (st.ok()) st = Exec("COMMIT");
  if (!st.ok() && sqlite3_get_autocommit(db_) == 0) {
    // Still inside the transaction (body failed, or COMMIT failed): undo.
    (void)Exec("ROLLBACK");
  }
  return st;
}

int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }

int64_t SqliteDb::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }

}  // namespace powersweep
