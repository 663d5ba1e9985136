// SqliteDb: a thin RAII wrapper over one sqlite3 connection with a cache of
// prepared statements keyed by SQL text.
//
// Contract:
// - SqliteDb owns the connection and every cached sqlite3_stmt; all are
//   finalized/closed in the destructor.
// - Prepare() hands out a Stmt borrowed from the cache; the Stmt resets the
//   statement and clears its bindings when it goes out of scope, so the next
//   user starts clean. A Stmt must not outlive its SqliteDb.
// - Transaction() runs `body` between BEGIN [IMMEDIATE] and COMMIT, and
//   rolls back when `body` (or COMMIT) fails.
// - Errors become absl::Status: constraint violations InvalidArgument,
//   busy/locked Unavailable, anything else Internal; the message names the
//   database file and sqlite's reason.
// - Error() also counts each error by kind in the SqliteErrorCounts given
//   to CountErrorsIn (if any), for the controller's /metrics page.
// - Not thread-safe: the owner serializes all use (SqliteStore holds a mutex).
//   SqliteErrorCounts is atomic and may be read from any thread.
#ifndef POWERSWEEP_STORAGE_SQLITE_DB_H_
#define POWERSWEEP_STORAGE_SQLITE_DB_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace powersweep {

class SqliteDb;

// Errors sqlite returned, by kind: busy (the database was locked or busy
// past the busy timeout, full, or could not be opened), constraint (a
// constraint or type check refused a write: usually bad input) and other
// (I/O errors, corruption, misuse).
struct SqliteErrorCounts {
  std::atomic<int64_t> busy{0};
  std::atomic<int64_t> constraint{0};
  std::atomic<int64_t> other{0};
};

// A prepared statement borrowed from SqliteDb's cache. Columns and bind
// indexes follow sqlite: binds are 1-based, columns 0-based.
class Stmt {
 public:
  Stmt(SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Stmt(Stmt&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
    other.stmt_ = nullptr;
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& operator=(Stmt&&) = delete;
  ~Stmt();

  Stmt& Bind(int index, int64_t value);
  Stmt& Bind(int index, int value) { return Bind(index, int64_t{value}); }
  Stmt& Bind(int index, double value);
  Stmt& Bind(int index, absl::string_view value);
  Stmt& Bind(int index, const std::string& value) {
    return Bind(index, absl::string_view(value));
  }
  Stmt& Bind(int index, const char* value) {
    return Bind(index, absl::string_view(value));
  }
  Stmt& BindNull(int index);
  // Binds `value` as a BLOB (copied).
  Stmt& BindBlob(int index, absl::string_view value);

  // Advances to the next row: true when a row is available, false when done.
  absl::StatusOr<bool> Step();
  // Steps until done (for statements that return no rows).
  absl::Status Run();
  // Resets the statement and clears its bindings for another execution.
  void Reset();

  int ColumnCount() const;
  std::string ColumnName(int col) const;
  bool IsNull(int col) const;
  int64_t Int(int col) const;
  double Double(int col) const;
  std::string Text(int col) const;
  bool IsBlob(int col) const;
  // The column's bytes, valid until the next Step/Reset (no copy).
  absl::string_view Bytes(int col) const;

 private:
  SqliteDb* db_;
  sqlite3_stmt* stmt_;
};

class SqliteDb {
 public:
  // Opens `path` (flags as for sqlite3_open_v2). The file's parent folder
  // must exist.
  static absl::StatusOr<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                        bool read_only);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Executes one or more statements without results (DDL, PRAGMA, BEGIN).
  absl::Status Exec(const std::string& sql);
  // Returns the cached prepared statement for `sql`, preparing it once.
  absl::StatusOr<Stmt> Prepare(const std::string& sql);
  // Runs `body` in one transaction; IMMEDIATE takes the write lock up front.
  enum class TxnKind { kRead, kWrite };
  absl::Status Transaction(TxnKind kind, const std::function<absl::Status()>& body);

  // Rows changed by the last INSERT/UPDATE/DELETE.
  int64_t Changes() const;
  int64_t LastInsertRowId() const;
  const std::string& path() const { return path_; }

  // Status for sqlite result code `rc` on this connection, naming `what`.
  absl::Status Error(int rc, absl::string_view what) const;
  // Error() counts into `counts` from now on (null: stops counting);
  // `counts` must outlive this connection.
  void CountErrorsIn(SqliteErrorCounts* counts) { errors_ = counts; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
  SqliteErrorCounts* errors_ = nullptr;
};

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_SQLITE_DB_H_
