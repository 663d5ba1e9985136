// Schema migrations 16 and later (migrations.h has the contract; the
// earlier ones are in migrations.cc). Append only.
#include "storage/migrations_recent.h"

namespace powersweep {
namespace {

// Version 16: sequence models. minibatches.tokens is the tokens a
// minibatch processed (NULL for image models); ttft_s and per_token_s its
// generation latencies (NULL when it did not generate); run_aggregates
// carries their summary (tokens_per_s, mean_ttft_s, mean_per_token_s; NULL
// in rows stored before, read as 0).
constexpr char kSchemaV16[] = R"sql(
ALTER TABLE minibatches ADD COLUMN tokens INTEGER;
ALTER TABLE minibatches ADD COLUMN ttft_s REAL;
ALTER TABLE minibatches ADD COLUMN per_token_s REAL;
ALTER TABLE run_aggregates ADD COLUMN tokens_per_s REAL;
ALTER TABLE run_aggregates ADD COLUMN mean_ttft_s REAL;
ALTER TABLE run_aggregates ADD COLUMN mean_per_token_s REAL;
)sql";

// Version 17: kernel event traces (RunResult.traces; storage/
// run_trace_rows.h has the columns): one row per aggregated figure of a
// run attempt, and one per trace that was asked for and not collected
// (count NULL, missing_reason set). The whole RunTraces (with the tracer's
// cost and the write-back settings) stays in result_json.
constexpr char kSchemaV17[] = R"sql(
CREATE TABLE run_traces (
  run_id INTEGER NOT NULL REFERENCES runs(run_id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('workload', 'system')),
  count INTEGER,
  bytes INTEGER,
  interval_count INTEGER,
  interval_mean_s REAL,
  interval_sd_s REAL,
  interval_p50_s REAL,
  interval_max_s REAL,
  missing_reason TEXT
);
CREATE INDEX run_traces_by_run ON run_traces(run_id, attempt);
)sql";

// Version 18: the vm runtime. runs.runtime may be 'vm' (its CHECK is
// widened by the procedure of version 13: every stored row satisfies the
// wider constraint). How a vm run's VM ran (RunResult.vm) stays in
// result_json.
constexpr char kSchemaV18[] = R"sql(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
  SET sql = replace(sql, 'CHECK (runtime IN (''unspecified'', ''native'', ''container''))',
                    'CHECK (runtime IN (''unspecified'', ''native'', ''container'', ''vm''))')
  WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = RESET;
PRAGMA writable_schema = OFF;
CREATE TABLE schema_v18_cookie (x INTEGER);
DROP TABLE schema_v18_cookie;
)sql";

// Version 19: the container_in_vm runtime. runs.runtime may be
// 'container_in_vm' (widened as in version 18). How its VM ran, with the
// guest's engine and image phases (RunResult.vm), stays in result_json.
constexpr char kSchemaV19[] = R"sql(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
  SET sql = replace(sql, 'CHECK (runtime IN (''unspecified'', ''native'', ''container'', ''vm''))',
                    'CHECK (runtime IN (''unspecified'', ''native'', ''container'', ''vm'', ''container_in_vm''))')
  WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = RESET;
PRAGMA writable_schema = OFF;
CREATE TABLE schema_v19_cookie (x INTEGER);
DROP TABLE schema_v19_cookie;
)sql";

// Version 20: CUDA timing of a minibatch. h2d_s is its host-to-device copy
// (MinibatchRecord.h2d_s; NULL on the CPU and before this version), warmup
// 1 marks the run's warm-up minibatches (NULL otherwise), which the run's
// aggregates leave out.
constexpr char kSchemaV20[] = R"sql(
ALTER TABLE minibatches ADD COLUMN h2d_s REAL;
ALTER TABLE minibatches ADD COLUMN warmup INTEGER;
)sql";

}  // namespace

const std::vector<const char*>& MigrationsFromV16() {
  static const std::vector<const char*> kRecent = {
      kSchemaV16, kSchemaV17, kSchemaV18, kSchemaV19, kSchemaV20};
  return kRecent;
}

}  // namespace powersweep
