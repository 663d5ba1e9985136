// Reading rows of the `runs` table into RunStatus (shared by the
// SqliteStore files that list runs). Stateless and thread-safe.
#ifndef POWERSWEEP_STORAGE_RUN_ROWS_H_
#define POWERSWEEP_STORAGE_RUN_ROWS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "powersweep/v1/run.pb.h"
#include "storage/sqlite_db.h"

namespace powersweep {

// "SELECT <the columns ReadRun reads> FROM runs " (append WHERE/ORDER BY).
extern const char kRunColumns[];

// The run of the current row of a statement selected with kRunColumns.
absl::StatusOr<v1::RunStatus> ReadRun(const Stmt& stmt);

// Every row of `stmt` (already bound) with ReadRun.
absl::StatusOr<std::vector<v1::RunStatus>> ReadRuns(Stmt& stmt);

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_RUN_ROWS_H_
