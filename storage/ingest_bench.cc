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

// A Jetson-like sample: 8 cores, 6 rails, 3 temperatures, kernel counters.
v1::TelemetrySample Telemetry(int64_t index) {
  v1::TelemetrySample s;
  s.set_t_s(0.01 * static_cast<double>(index));
  for (int c = 0; c < 8; ++c) {
    v1::CoreSample* core = s.add_cores();
    core->set_util(0.125 * c + 0.001 * static_cast<double>(index % 7));
    core->set_freq_khz(1'420'800 + 100'000 * (c % 3));
  }
  s.set_cpu_util(0.43);
  s.set_mem_used_bytes(6'123'456'789);
  s.set_mem_total_bytes(32'000'000'000);
  s.set_proc_cpu_s(0.05 * static_cast<double>(index));
  s.set_proc_rss_bytes(1'300'000'000 + index);
  s.set_gpu_util(0.71);
  s.set_gpu_freq_hz(1'300'500'000);
  s.set_power_mw(14'200 + static_cast<double>(index % 100));
  s.set_power_provenance(v1::PROVENANCE_MEASURED);
  s.set_mem_freq_hz(3'199'000'000);
  const char* rails[] = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0",
                         "VDDQ_VDD2_1V8AO", "VDD_IN", "VDD_DDR"};
  for (int i = 0; i < 6; ++i) {
    v1::RailSample* rail = s.add_rails();
    rail->set_name(rails[i]);
    rail->set_power_mw(1000.0 * (i + 1) + static_cast<double>(index % 13));
    rail->set_provenance(v1::PROVENANCE_MEASURED);
  }
  const char* temps[] = {"CPU-therm", "GPU-therm", "SOC0-therm"};
  for (int i = 0; i < 3; ++i) {
    v1::Temperature* t = s.add_temperatures();
    t->set_name(temps[i]);
    t->set_celsius(40.5 + i + 0.25 * static_cast<double>(index % 4));
  }
  v1::KernelCounters* k = s.mutable_counters();
  k->set_pgfault(123'456'789 + 40 * index);
  k->set_pgmajfault(1350 + index / 100);
  k->set_nr_dirty(14'822);
  k->set_nr_writeback(3);
  k->set_pgpgout(41'831'984 + index);
  k->set_nr_written(10'375'933 + index);
  return s;
}

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

bool Check(const absl::Status& st) {
  if (!st.ok()) std::fprintf(stderr, "%s\n", st.ToString().c_str());
  return st.ok();
}

// A store with one sweep of `n` runs; returns their ids.
std::vector<int64_t> MakeRuns(SqliteStore* store, int n) {
  v1::SweepSpec spec;
  spec.set_name("bench");
  v1::RunSpec run;
  run.set_device_class("host");
  run.mutable_workload()->set_model("lenet5");
  RealClock clock;
  auto sweep = store->CreateSweep(spec, std::vector<v1::RunSpec>(n, run), clock.Now());
  std::vector<int64_t> ids;
  if (!Check(sweep.status())) return ids;
  auto runs = store->ListRuns(*sweep);
  if (!Check(runs.status())) return ids;
  for (const v1::RunStatus& r : *runs) ids.push_back(r.spec().run_id());
  return ids;
}

// The batches as the agent sends them (wire bytes).
std::vector<std::string> WireBatches(const BenchConfig& config, int64_t run_id) {
  std::vector<std::string> out;
  int64_t mb = 0, tel = 0;
  for (int64_t seq = 1; seq <= config.batches; ++seq) {
    v1::DataBatch batch;
    batch.set_run_id(run_id);
    batch.set_seq(seq);
    for (int64_t i = 0; i < config.minibatches; ++i) *batch.add_minibatches() = Minibatch(mb++);
    for (int64_t i = 0; i < config.telemetry; ++i) *batch.add_telemetry() = Telemetry(tel++);
    out.push_back(batch.SerializeAsString());
  }
  return out;
}

// Times decoding + IngestBatch of every batch; seconds, or < 0 on error.
double EndToEnd(SqliteStore* store, const std::vector<std::string>& wire) {
  RealClock clock;
  const int64_t start = clock.MonotonicNanos();
  for (const std::string& bytes : wire) {
    v1::DataBatch batch;
    if (!batch.ParseFromString(bytes)) return -1;
    auto outcome = store->IngestBatch(batch);
    if (!Check(outcome.status())) return -1;
  }
  return (clock.MonotonicNanos() - start) / 1e9;
}

// Column values of one telemetry row, computed before timing.
struct RawTelemetryRow {
  v1::TelemetrySample s;
  std::string core_util, core_freq, extras_json;
};

// Times plain INSERTs of the same rows (values precomputed) into `path`'s
// schema, one transaction per batch; seconds, or < 0 on error.
double RawInserts(const std::string& path, int64_t run_id,
                  const std::vector<std::string>& wire) {
  auto db = SqliteDb::Open(path, /*read_only=*/false);
  if (!Check(db.status())) return -1;
  if (!Check((*db)->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"))) return -1;
  std::vector<v1::DataBatch> batches(wire.size());
  std::vector<std::vector<RawTelemetryRow>> rows(wire.size());
  for (size_t b = 0; b < wire.size(); ++b) {
    batches[b].ParseFromString(wire[b]);
    for (const v1::TelemetrySample& s : batches[b].telemetry()) {
      RawTelemetryRow& row = rows[b].emplace_back();
      row.s = s;
      std::vector<double> utils;
      std::vector<int64_t> freqs;
      for (const auto& c : s.cores()) {
        utils.push_back(c.util());
        freqs.push_back(c.freq_khz());
      }
      row.core_util = JoinDoubles(utils);
      row.core_freq = JoinInts(freqs);
      v1::TelemetrySample extras;
      *extras.mutable_rails() = s.rails();
      *extras.mutable_temperatures() = s.temperatures();
      extras.set_mem_freq_hz(s.mem_freq_hz());
      *extras.mutable_counters() = s.counters();
      row.extras_json = ToJsonLine(extras);
    }
  }
  RealClock clock;
  const int64_t start = clock.MonotonicNanos();
  for (size_t b = 0; b < batches.size(); ++b) {
    const v1::DataBatch& batch = batches[b];
    absl::Status st = (*db)->Transaction(SqliteDb::TxnKind::kWrite, [&]() -> absl::Status {
      auto bt = (*db)->Prepare(
          "INSERT OR IGNORE INTO batches(run_id, attempt, seq, minibatches, telemetry)"
          " VALUES (?1, 1, ?2, ?3, ?4)");
      if (!bt.ok()) return bt.status();
      absl::Status s = bt->Bind(1, run_id).Bind(2, batch.seq())
                           .Bind(3, batch.minibatches_size())
                           .Bind(4, batch.telemetry_size()).Run();
      if (!s.ok()) return s;
      auto mb = (*db)->Prepare(
          "INSERT INTO minibatches(run_id, attempt, seq, idx, epoch, t_start_s, stall_s,"
          " compute_s, e2e_s, samples, loss, tenant) VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6,"
          " ?7, ?8, ?9, ?10, 0)");
      if (!mb.ok()) return mb.status();
      for (const v1::MinibatchRecord& r : batch.minibatches()) {
        s = mb->Bind(1, run_id).Bind(2, batch.seq()).Bind(3, r.index())
                .Bind(4, r.epoch()).Bind(5, r.t_start_s()).Bind(6, r.stall_s())
                .Bind(7, r.compute_s()).Bind(8, r.e2e_s()).Bind(9, r.samples())
                .Bind(10, r.loss()).Run();
        if (!s.ok()) return s;
        mb->Reset();
      }
      auto tm = (*db)->Prepare(
          "INSERT INTO telemetry(run_id, attempt, seq, t_s, cpu_util, core_util,"
          " core_freq_khz, mem_used_bytes, mem_total_bytes, proc_cpu_s, proc_rss_bytes,"
          " gpu_util, gpu_freq_hz, power_mw, power_provenance, rails_json, mem_freq_hz,"
          " pgfault, pgmajfault, nr_dirty, nr_writeback, pgpgout_kib, nr_written,"
          " tenant_pgfault, tenant_pgmajfault) VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6, ?7,"
          " ?8, ?9, ?10, ?11, ?12, ?13, 'measured', ?14, ?15, ?16, ?17, ?18, ?19, ?20,"
          " ?21, ?22, ?23)");
      if (!tm.ok()) return tm.status();
      for (const RawTelemetryRow& row : rows[b]) {
        const v1::TelemetrySample& t = row.s;
        const v1::KernelCounters& k = t.counters();
        s = tm->Bind(1, run_id).Bind(2, batch.seq()).Bind(3, t.t_s())
                .Bind(4, t.cpu_util()).Bind(5, row.core_util).Bind(6, row.core_freq)
                .Bind(7, t.mem_used_bytes()).Bind(8, t.mem_total_bytes())
                .Bind(9, t.proc_cpu_s()).Bind(10, t.proc_rss_bytes())
                .Bind(11, t.gpu_util()).Bind(12, t.gpu_freq_hz()).Bind(13, t.power_mw())
                .Bind(14, row.extras_json).Bind(15, t.mem_freq_hz())
                .Bind(16, k.pgfault()).Bind(17, k.pgmajfault()).Bind(18, k.nr_dirty())
                .Bind(19, k.nr_writeback()).Bind(20, k.pgpgout()).Bind(21, k.nr_written())
                .Bind(22, k.tenant_pgfault()).Bind(23, k.tenant_pgmajfault()).Run();
        if (!s.ok()) return s;
        tm->Reset();
      }
      return absl::OkStatus();
    });
    if (!Check(st)) return -1;
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
      *batch.add_telemetry() = Telemetry(i);
    } else {
      *batch.add_minibatches() = Minibatch(i);
    }
    if (!Check(store->IngestBatch(batch).status())) return -1;
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
    if (!Check(raw_store.status())) return 1;
    std::vector<int64_t> ids = MakeRuns(raw_store->get(), 1);
    if (ids.empty()) return 1;
    raw_run = ids[0];
  }
  auto store = SqliteStore::Open(path);
  if (!Check(store.status())) return 1;
  std::vector<int64_t> ids = MakeRuns(store->get(), 2);
  if (ids.size() != 2) return 1;

  const std::vector<std::string> wire = WireBatches(config, ids[0]);
  const std::vector<std::string> raw_wire = WireBatches(config, raw_run);
  const double rows = static_cast<double>(config.batches) *
                      static_cast<double>(config.minibatches + config.telemetry);
  const double raw_s = RawInserts(raw_path, raw_run, raw_wire);
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
