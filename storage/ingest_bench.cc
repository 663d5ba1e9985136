// storage_ingest_bench: ingest throughput of SqliteStore on a temporary
// file, in one process run:
//   batched - `--batches` DataBatches of 50 minibatch records and 10
//             telemetry samples, one transaction per batch (as agents send);
//   per-row - `--per-row-rows` rows, each in its own DataBatch and so its own
//             transaction (what sending every record alone would cost).
// Prints rows/s for both and their ratio. Not a test: timings vary by disk.
//
//   storage_ingest_bench [--batches 2000] [--per-row-rows 3000] [--dir /tmp]
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "absl/strings/numbers.h"
#include "common/clock.h"
#include "storage/sqlite_store.h"

namespace powersweep {
namespace {

struct BenchConfig {
  int64_t batches = 2000;
  int64_t per_row_rows = 3000;
  std::string dir = "/tmp";
};

v1::MinibatchRecord Minibatch(int64_t index) {
  v1::MinibatchRecord r;
  r.set_epoch(static_cast<int32_t>(index / 1000));
  r.set_index(index);
  r.set_t_start_s(0.01 * static_cast<double>(index));
  r.set_stall_s(0.001);
  r.set_compute_s(0.008);
  r.set_e2e_s(0.0095);
  r.set_samples(64);
  r.set_loss(2.3 / (1.0 + 0.001 * static_cast<double>(index)));
  return r;
}

v1::TelemetrySample Telemetry(int64_t index) {
  v1::TelemetrySample s;
  s.set_t_s(0.1 * static_cast<double>(index));
  for (int c = 0; c < 4; ++c) {
    v1::CoreSample* core = s.add_cores();
    core->set_util(0.25 * c);
    core->set_freq_khz(1'500'000 + 100'000 * c);
  }
  s.set_cpu_util(0.4);
  s.set_mem_used_bytes(1'000'000'000);
  s.set_mem_total_bytes(8'000'000'000);
  s.set_proc_cpu_s(0.05 * static_cast<double>(index));
  s.set_proc_rss_bytes(300'000'000);
  s.set_power_mw(5200);
  s.set_power_provenance(v1::PROVENANCE_MODELED);
  v1::RailSample* rail = s.add_rails();
  rail->set_name("VDD_IN");
  rail->set_power_mw(5200);
  rail->set_provenance(v1::PROVENANCE_MODELED);
  return s;
}

bool ParseArgs(int argc, char** argv, BenchConfig* config) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--batches") {
      if (!absl::SimpleAtoi(argv[i + 1], &config->batches)) return false;
    } else if (flag == "--per-row-rows") {
      if (!absl::SimpleAtoi(argv[i + 1], &config->per_row_rows)) return false;
    } else if (flag == "--dir") {
      config->dir = argv[i + 1];
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && config->batches > 0 && config->per_row_rows > 0;
}

int Main(int argc, char** argv) {
  BenchConfig config;
  if (!ParseArgs(argc, argv, &config)) {
    std::fprintf(stderr,
                 "usage: storage_ingest_bench [--batches N] [--per-row-rows N]"
                 " [--dir DIR]\n");
    return 2;
  }
  std::string tmpl = config.dir + "/storage_bench_XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "cannot create a folder in %s: %s\n", config.dir.c_str(),
                 std::strerror(errno));
    return 1;
  }
  const std::string path = tmpl + "/bench.db";
  RealClock clock;
  auto store = SqliteStore::Open(path);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  v1::SweepSpec spec;
  spec.set_name("bench");
  v1::RunSpec run;
  run.set_device_class("host");
  run.mutable_workload()->set_model("lenet5");
  auto sweep = (*store)->CreateSweep(spec, {run, run}, clock.Now());
  if (!sweep.ok()) {
    std::fprintf(stderr, "%s\n", sweep.status().ToString().c_str());
    return 1;
  }
  auto runs = (*store)->ListRuns(*sweep);
  const int64_t batched_run = (*runs)[0].spec().run_id();
  const int64_t per_row_run = (*runs)[1].spec().run_id();

  // Batched: 50 minibatches + 10 telemetry samples per transaction.
  int64_t start = clock.MonotonicNanos();
  int64_t rows = 0;
  for (int64_t seq = 1; seq <= config.batches; ++seq) {
    v1::DataBatch batch;
    batch.set_run_id(batched_run);
    batch.set_seq(seq);
    for (int i = 0; i < 50; ++i) *batch.add_minibatches() = Minibatch(rows + i);
    for (int i = 0; i < 10; ++i) *batch.add_telemetry() = Telemetry(seq * 10 + i);
    auto outcome = (*store)->IngestBatch(batch);
    if (!outcome.ok()) {
      std::fprintf(stderr, "%s\n", outcome.status().ToString().c_str());
      return 1;
    }
    rows += 60;
  }
  const double batched_s = (clock.MonotonicNanos() - start) / 1e9;
  const double batched_rate = rows / batched_s;

  // Per row: the same mix (5 minibatches : 1 telemetry), one row per batch.
  start = clock.MonotonicNanos();
  for (int64_t i = 0; i < config.per_row_rows; ++i) {
    v1::DataBatch batch;
    batch.set_run_id(per_row_run);
    batch.set_seq(i + 1);
    if (i % 6 == 5) {
      *batch.add_telemetry() = Telemetry(i);
    } else {
      *batch.add_minibatches() = Minibatch(i);
    }
    auto outcome = (*store)->IngestBatch(batch);
    if (!outcome.ok()) {
      std::fprintf(stderr, "%s\n", outcome.status().ToString().c_str());
      return 1;
    }
  }
  const double per_row_s = (clock.MonotonicNanos() - start) / 1e9;
  const double per_row_rate = config.per_row_rows / per_row_s;

  std::printf("batched:  %lld batches x 60 rows = %lld rows in %.2f s: %.0f rows/s\n",
              static_cast<long long>(config.batches), static_cast<long long>(rows),
              batched_s, batched_rate);
  std::printf("per-row:  %lld rows, one transaction each, in %.2f s: %.0f rows/s\n",
              static_cast<long long>(config.per_row_rows), per_row_s, per_row_rate);
  std::printf("ratio:    batched is %.1fx faster per row (synchronous=FULL, WAL)\n",
              batched_rate / per_row_rate);
  store->reset();
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  return 0;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) { return powersweep::Main(argc, argv); }
