// Rows for the ingest benchmarks (storage_ingest_bench, ingest_grpc_bench):
// Jetson-like minibatch records and telemetry samples, the DataBatches an
// agent would send (wire bytes), and the floor they are compared with:
// the same rows inserted with plain prepared INSERTs. Not for tests.
#ifndef POWERSWEEP_STORAGE_INGEST_BENCH_ROWS_H_
#define POWERSWEEP_STORAGE_INGEST_BENCH_ROWS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "storage/sqlite_store.h"

namespace powersweep {

v1::MinibatchRecord BenchMinibatch(int64_t index);
// A Jetson-like sample: 8 cores, 6 rails, 3 temperatures, kernel counters.
v1::TelemetrySample BenchTelemetry(int64_t index);
// Prints a failed status to stderr; true when ok.
bool BenchCheck(const absl::Status& st);
// A store with one sweep of `n` host runs (native LeNet-5 training on
// fashion-mnist, so a host agent can be assigned them); returns their ids.
std::vector<int64_t> BenchRuns(SqliteStore* store, int n);
// `batches` DataBatches of run `run_id` as wire bytes, each with
// `minibatches` records and `telemetry` samples.
std::vector<std::string> BenchWireBatches(int64_t batches, int64_t minibatches,
                                          int64_t telemetry, int64_t run_id);
// Times plain INSERTs of the rows of `wire` (values precomputed) into the
// schema of the database at `path`, one transaction per batch; seconds, or
// < 0 on error.
double BenchRawInserts(const std::string& path, int64_t run_id,
                       const std::vector<std::string>& wire);

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_INGEST_BENCH_ROWS_H_
