#include "storage/ingest_bench_rows.h"

#include <cstdio>

#include "common/clock.h"
#include "common/enum_text.h"
#include "common/proto_json.h"
#include "storage/schema_text.h"

namespace powersweep {

v1::MinibatchRecord BenchMinibatch(int64_t index) {
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

v1::TelemetrySample BenchTelemetry(int64_t index) {
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

bool BenchCheck(const absl::Status& st) {
  if (!st.ok()) std::fprintf(stderr, "%s\n", st.ToString().c_str());
  return st.ok();
}

// A store with one sweep of `n` runs; returns their ids.
std::vector<int64_t> BenchRuns(SqliteStore* store, int n) {
  v1::SweepSpec spec;
  spec.set_name("bench");
  v1::RunSpec run;
  run.set_device_class("host");
  run.set_runtime(v1::RUNTIME_NATIVE);
  run.mutable_workload()->set_model("lenet5");
  run.mutable_workload()->set_dataset("fashion-mnist");
  run.mutable_workload()->set_task(v1::TASK_TRAIN);
  RealClock clock;
  auto sweep = store->CreateSweep(spec, std::vector<v1::RunSpec>(n, run), clock.Now());
  std::vector<int64_t> ids;
  if (!BenchCheck(sweep.status())) return ids;
  auto runs = store->ListRuns(*sweep);
  if (!BenchCheck(runs.status())) return ids;
  for (const v1::RunStatus& r : *runs) ids.push_back(r.spec().run_id());
  return ids;
}

// The batches as the agent sends them (wire bytes).
std::vector<std::string> BenchWireBatches(int64_t batches, int64_t minibatches,
                                          int64_t telemetry, int64_t run_id) {
  std::vector<std::string> out;
  int64_t mb = 0, tel = 0;
  for (int64_t seq = 1; seq <= batches; ++seq) {
    v1::DataBatch batch;
    batch.set_run_id(run_id);
    batch.set_seq(seq);
    for (int64_t i = 0; i < minibatches; ++i) *batch.add_minibatches() = BenchMinibatch(mb++);
    for (int64_t i = 0; i < telemetry; ++i) *batch.add_telemetry() = BenchTelemetry(tel++);
    out.push_back(batch.SerializeAsString());
  }
  return out;
}

// Column values of one telemetry row, computed before timing.
struct RawTelemetryRow {
  v1::TelemetrySample s;
  std::string core_util, core_freq, extras_json;
};

// Times plain INSERTs of the same rows (values precomputed) into `path`'s
// schema, one transaction per batch; seconds, or < 0 on error.
double BenchRawInserts(const std::string& path, int64_t run_id,
                  const std::vector<std::string>& wire) {
  auto db = SqliteDb::Open(path, /*read_only=*/false);
  if (!BenchCheck(db.status())) return -1;
  if (!BenchCheck((*db)->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"))) return -1;
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
    if (!BenchCheck(st)) return -1;
  }
  return (clock.MonotonicNanos() - start) / 1e9;
}

}  // namespace powersweep
