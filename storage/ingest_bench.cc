// storage_ingest_bench: ingest throughput of SqliteStore on temporary files,
// in one process run (not a test: timings vary by disk and load):
//   end-to-end - `--batches` DataBatches (`--minibatches` minibatch records
//             and `--telemetry` Jetson-like telemetry samples each: cores,
//             rails, temperatures, kernel counters), each decoded from its
//             wire bytes (as the gRPC service receives it) and stored by
//             SqliteStore::IngestBatch, one transaction per batch;
//   raw     - the same rows inserted with plain prepared INSERTs of
//             precomputed column values into the same schema, one
//             transaction per batch (the floor: what SQLite itself costs);
//   per-row - `--per-row-rows` rows, each in its own DataBatch and so its own
//             transaction (what sending every record alone would cost).
// Prints rows/s for each, end-to-end as a percentage of raw, and batched
// over per-row.
//
//   storage_ingest_bench [--batches 1000] [--minibatches 20] [--telemetry 40]
//                        [--per-row-rows 2000] [--dir /tmp]
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "common/clock.h"
#include "common/enum_text.h"
#include "common/proto_json.h"
#include "storage/schema_text.h"
#include "storage/ingest_bench_rows.h"
#include "storage/sqlite_store.h"

namespace powersweep {
namespace {

struct BenchConfig {
  int64_t batches = 1000;
  int64_t minibatches = 20;
  int64_t telemetry = 40;
  int64_t per_row_rows = 2000;
  std::string dir = "/tmp";
};

bool ParseArgs(int argc, char** argv, BenchConfig* config) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    int64_t* target = nullptr;
    if (flag == "--batches") target = &config->batches;
    if (flag == "--minibatches") target = &config->minibatches;
    if (flag == "--telemetry") target = &config->telemetry;
    if (flag == "--per-row-rows") target = &config->per_row_rows;
    if (flag == "--dir") {
      config->dir = argv[i + 1];
    } else if (target == nullptr || !absl::SimpleAtoi(argv[i + 1], target)) {
      return false;
    }
  }
  return argc % 2 == 1 && config->batches > 0 && config->per_row_rows > 0 &&
         config->minibatches >= 0 && config->telemetry >= 0 &&
         config->minibatches + config->telemetry > 0;
}

// Times decoding + IngestBatch of every batch; seconds, or < 0 on error.
double EndToEnd(SqliteStore* store, const std::vector<std::string>& wire) {
  RealClock clock;
  const int64_t start = clock.MonotonicNanos();
  for (const std::string& bytes : wire) {
    v1::DataBatch batch;
    if (!batch.ParseFromString(bytes)) return -1;
    auto outcome = store->IngestBatch(batch);
    if (!BenchCheck(outcome.status())) return -1;
  }
  return (clock.MonotonicNanos() - start) / 1e9;
}

// Times `rows` rows of the same mix, one DataBatch (transaction) each.
double PerRow(SqliteStore* store, int64_t run_id, const BenchConfig& config) {
  RealClock clock;
  const int64_t start = clock.MonotonicNanos();
  const int64_t cycle = config.minibatches + config.telemetry;
  for (int64_t i = 0; i < config.per_row_rows; ++i) {
    v1::DataBatch batch;
    batch.set_run_id(run_id);
    batch.set_seq(i + 1);
    if (i % cycle < config.telemetry) {
      *batch.add_telemetry() = BenchTelemetry(i);
    } else {
      *batch.add_minibatches() = BenchMinibatch(i);
    }
    if (!BenchCheck(store->IngestBatch(batch).status())) return -1;
  }
  return (clock.MonotonicNanos() - start) / 1e9;
}

int Main(int argc, char** argv) {
  BenchConfig config;
  if (!ParseArgs(argc, argv, &config)) {
    std::fprintf(stderr,
                 "usage: storage_ingest_bench [--batches N] [--minibatches N]"
                 " [--telemetry N] [--per-row-rows N] [--dir DIR]\n");
    return 2;
  }
  std::string tmpl = config.dir + "/storage_bench_XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "cannot create a folder in %s: %s\n", config.dir.c_str(),
                 std::strerror(errno));
    return 1;
  }
  const std::string path = tmpl + "/bench.db";
  const std::string raw_path = tmpl + "/raw.db";
  int64_t raw_run = 0;
  {  // the raw file gets the same schema and a run to point at
    auto raw_store = SqliteStore::Open(raw_path);
    if (!BenchCheck(raw_store.status())) return 1;
    std::vector<int64_t> ids = BenchRuns(raw_store->get(), 1);
    if (ids.empty()) return 1;
    raw_run = ids[0];
  }
  auto store = SqliteStore::Open(path);
  if (!BenchCheck(store.status())) return 1;
  std::vector<int64_t> ids = BenchRuns(store->get(), 2);
  if (ids.size() != 2) return 1;

  const std::vector<std::string> wire = BenchWireBatches(
      config.batches, config.minibatches, config.telemetry, ids[0]);
  const std::vector<std::string> raw_wire = BenchWireBatches(
      config.batches, config.minibatches, config.telemetry, raw_run);
  const double rows = static_cast<double>(config.batches) *
                      static_cast<double>(config.minibatches + config.telemetry);
  const double raw_s = BenchRawInserts(raw_path, raw_run, raw_wire);
  const double e2e_s = EndToEnd(store->get(), wire);
  const double per_row_s = PerRow(store->get(), ids[1], config);
  if (raw_s < 0 || e2e_s < 0 || per_row_s < 0) return 1;

  std::printf("rows:        %lld batches x (%lld minibatches + %lld telemetry)\n",
              static_cast<long long>(config.batches),
              static_cast<long long>(config.minibatches),
              static_cast<long long>(config.telemetry));
  std::printf("raw:         %.0f rows in %.2f s: %.0f rows/s (plain INSERTs)\n", rows,
              raw_s, rows / raw_s);
  std::printf("end-to-end:  %.0f rows in %.2f s: %.0f rows/s (decode + IngestBatch)\n",
              rows, e2e_s, rows / e2e_s);
  std::printf("per-row:     %lld rows, one transaction each, in %.2f s: %.0f rows/s\n",
              static_cast<long long>(config.per_row_rows), per_row_s,
              config.per_row_rows / per_row_s);
  std::printf("end-to-end/raw: %.1f%% of raw throughput\n", 100.0 * raw_s / e2e_s);
  std::printf("batched/per-row: %.1fx faster per row (synchronous=FULL, WAL)\n",
              (rows / e2e_s) / (config.per_row_rows / per_row_s));
  store->reset();
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  return 0;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) { return powersweep::Main(argc, argv); }
