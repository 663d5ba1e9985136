#include "storage/run_rows.h"

#include "common/proto_json.h"
#include "common/status_macros.h"
#include "storage/schema_text.h"

namespace powersweep {

const char kRunColumns[] =
    "SELECT run_id, sweep_id, attempt, state, device_id, reason,"
    " created_unix_ms, started_unix_ms, finished_unix_ms, spec_json FROM runs ";

// Reads a row selected with kRunColumns.
absl::StatusOr<v1::RunStatus> ReadRun(const Stmt& stmt) {
  v1::RunStatus run;
  PS_RETURN_IF_ERROR(FromJson(stmt.Text(9), run.mutable_spec()));
  run.mutable_spec()->set_run_id(stmt.Int(0));
  run.mutable_spec()->set_sweep_id(stmt.Int(1));
  run.mutable_spec()->set_attempt(static_cast<int32_t>(stmt.Int(2)));
  PS_ASSIGN_OR_RETURN(v1::RunState state, ParseState(stmt.Text(3)));
  run.set_state(state);
  run.set_device_id(stmt.Text(4));
  run.set_reason(stmt.Text(5));
  run.set_created_unix_ms(stmt.Int(6));
  run.set_started_unix_ms(stmt.Int(7));
  run.set_finished_unix_ms(stmt.Int(8));
  return run;
}

// Collects every row of `stmt` (already bound) with ReadRun.
absl::StatusOr<std::vector<v1::RunStatus>> ReadRuns(Stmt& stmt) {
  std::vector<v1::RunStatus> out;
  while (true) {
    PS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return out;
    PS_ASSIGN_OR_RETURN(v1::RunStatus run, ReadRun(stmt));
    out.push_back(std::move(run));
  }
}

}  // namespace powersweep
