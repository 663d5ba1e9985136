// Versioned schema migrations for SqliteStore.
//
// Contract:
// - Migration N (1-based) is the N-th entry of Migrations(); entries are
//   only ever appended, never edited, once released.
// - ApplyMigrations() creates `schema_migrations(version, applied_unix_ms)`
//   if missing, then applies every migration newer than the file's version,
//   each in its own BEGIN IMMEDIATE transaction together with its
//   schema_migrations row (so two processes opening the same file cannot
//   both apply one). An up-to-date file is left untouched.
// - A file whose version is newer than this binary knows is refused with
//   FailedPrecondition naming the file and both versions.
// - applied_unix_ms is taken from SQLite's own clock (the Store has no Clock
//   when it opens; this is bookkeeping, not measurement).
// - Not thread-safe: call before the SqliteDb is shared.
#ifndef POWERSWEEP_STORAGE_MIGRATIONS_H_
#define POWERSWEEP_STORAGE_MIGRATIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "storage/sqlite_db.h"

namespace powersweep {

// The ordered migration steps (SQL scripts) this binary knows.
const std::vector<std::string>& Migrations();

// Highest version recorded in the file (0 for a new file).
absl::StatusOr<int64_t> SchemaVersion(SqliteDb& db);

// Brings the file up to Migrations().size(). Returns how many were applied.
absl::StatusOr<int> ApplyMigrations(SqliteDb& db);

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_MIGRATIONS_H_
