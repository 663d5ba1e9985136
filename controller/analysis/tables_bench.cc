// analysis_tables_bench: time of the `runs`/`summary` tables of a sweep (both
// come from one Control.ListRuns call: the runs with their summaries) on a
// database of many runs with many telemetry rows. Not a test: timings vary.
//
// Builds one sweep of `--runs` runs on two devices (every 50th a baseload
// run), each with `--rows` telemetry samples (Jetson-like: cores, rails,
// temperatures, counters) and rows/10 minibatch records, finished DONE.
// Then times:
//   stored     - ListRunsWithSummaries (the stored per-run aggregates);
//   recompute  - what ListRuns did before: LoadBaseloads over the whole store
//                and SummarizeStoredRun (every record decoded) per run;
//   recompute on JSON rows - the same after rewriting every telemetry row's
//                extras into rails_json as schema 6 stored them (before);
//   backfill   - reopening that file without aggregates (the one-time cost
//                of the upgrade to schema 7).
//
//   analysis_tables_bench [--runs 1000] [--rows 500] [--dir /tmp]
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "common/clock.h"
#include "common/proto_json.h"
#include "common/status_macros.h"
#include "controller/analysis/baseload.h"
#include "controller/analysis/run_summary.h"
#include "controller/analysis/sweep_summaries.h"
#include "storage/sqlite_store.h"
#include "storage/telemetry_extras.h"

namespace powersweep {
namespace {

bool Check(const absl::Status& st) {
  if (!st.ok()) std::fprintf(stderr, "%s\n", st.ToString().c_str());
  return st.ok();
}

v1::TelemetrySample Sample(int64_t i, double watts) {
  v1::TelemetrySample s;
  s.set_t_s(0.01 * static_cast<double>(i));
  for (int c = 0; c < 8; ++c) {
    v1::CoreSample* core = s.add_cores();
    core->set_util(0.1 * c);
    core->set_freq_khz(1'420'800);
  }
  s.set_cpu_util(0.4 + 0.001 * static_cast<double>(i % 50));
  s.set_mem_used_bytes(6'000'000'000);
  s.set_mem_total_bytes(32'000'000'000);
  s.set_proc_cpu_s(0.01 * static_cast<double>(i));
  s.set_proc_rss_bytes(1'000'000'000 + i);
  s.set_power_mw(1000 * watts + static_cast<double>(i % 100));
  s.set_power_provenance(v1::PROVENANCE_MEASURED);
  s.set_mem_freq_hz(3'199'000'000);
  const char* rails[] = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDD_IN"};
  for (const char* name : rails) {
    v1::RailSample* rail = s.add_rails();
    rail->set_name(name);
    rail->set_power_mw(watts * 250);
    rail->set_provenance(v1::PROVENANCE_MEASURED);
  }
  v1::Temperature* t = s.add_temperatures();
  t->set_name("CPU-therm");
  t->set_celsius(45.5);
  s.mutable_counters()->set_pgfault(1'000'000 + 40 * i);
  s.mutable_counters()->set_nr_written(500 + i);
  return s;
}

struct Config {
  int64_t runs = 1000;
  int64_t rows = 500;
  std::string dir = "/tmp";
};

double Seconds(int64_t start_ns) {
  RealClock clock;
  return (clock.MonotonicNanos() - start_ns) / 1e9;
}

// Builds the sweep; returns its id (0 on error).
int64_t Build(SqliteStore* store, const Config& config) {
  v1::SweepSpec spec;
  spec.set_name("tables-bench");
  std::vector<v1::RunSpec> specs;
  for (int64_t i = 0; i < config.runs; ++i) {
    v1::RunSpec r;
    r.set_device_class("orin-agx");
    r.mutable_workload()->set_model("resnet18");
    r.mutable_workload()->set_dataset("cifar10");
    r.mutable_workload()->set_task(i % 50 == 0 ? v1::TASK_BASELOAD : v1::TASK_TRAIN);
    r.mutable_workload()->set_batch_size(16 << (i % 3));
    r.mutable_power_mode()->set_preset(i % 2 == 0 ? "MAXN" : "30W");
    r.set_repetition(static_cast<int32_t>(i % 5));
    specs.push_back(r);
  }
  RealClock clock;
  absl::Time t = clock.Now();
  auto sweep = store->CreateSweep(spec, specs, t);
  if (!Check(sweep.status())) return 0;
  auto runs = store->ListRuns(*sweep);
  if (!Check(runs.status())) return 0;
  for (const v1::RunStatus& run : *runs) {
    const int64_t id = run.spec().run_id();
    const std::string device = id % 2 == 0 ? "orin-0" : "orin-1";
    if (!Check(store->TransitionRun(id, v1::RUN_STATE_LEASED, device, "", t)) ||
        !Check(store->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", t))) {
      return 0;
    }
    const double watts = run.spec().workload().task() == v1::TASK_BASELOAD ? 5 : 15;
    v1::DataBatch batch;
    batch.set_run_id(id);
    batch.set_seq(1);
    for (int64_t i = 0; i < config.rows; ++i) *batch.add_telemetry() = Sample(i, watts);
    for (int64_t i = 0; i < config.rows / 10; ++i) {
      v1::MinibatchRecord* r = batch.add_minibatches();
      r->set_index(i);
      r->set_e2e_s(0.05);
      r->set_compute_s(0.04);
      r->set_stall_s(0.005);
      r->set_samples(32);
      r->set_loss(2.0 / (1 + i));
    }
    if (!Check(store->IngestBatch(batch).status())) return 0;
    t += absl::Seconds(10);
    v1::RunResult result;
    result.set_run_id(id);
    result.set_ok(true);
    result.set_duration_s(0.01 * config.rows);
    result.set_energy_j(watts * 0.01 * config.rows);
    result.set_energy_span_s(0.01 * (config.rows - 1));
    result.set_energy_provenance(v1::PROVENANCE_MEASURED);
    result.mutable_provenance()->set_framework("libtorch");
    result.mutable_provenance()->set_binary_fingerprint("0123456789abcdef");
    if (!Check(store->FinishRun(result, v1::RUN_STATE_DONE, "", t))) return 0;
  }
  return *sweep;
}

// Control.ListRuns before schema 7: every baseload in the store, then every
// run's records decoded and summarized.
absl::Status Recompute(Store* store, int64_t sweep_id, int64_t* summarized) {
  PS_ASSIGN_OR_RETURN(auto runs, store->ListRuns(sweep_id));
  // (The old path read every baseload; its cost stays in the figure.)
  PS_ASSIGN_OR_RETURN(auto baseloads, LoadBaseloads(store));
  static_cast<void>(baseloads);
  for (const v1::RunStatus& run : runs) {
    PS_ASSIGN_OR_RETURN(
        auto s, SummarizeStoredRun(store, run.spec().run_id()));
    ++*summarized;
  }
  return absl::OkStatus();
}

// Rewrites every telemetry row's extras as schema 6 stored them and drops
// the stored aggregates: the file as an older controller left it.
absl::Status MakeOld(const std::string& path) {
  PS_ASSIGN_OR_RETURN(auto db, SqliteDb::Open(path, /*read_only=*/false));
  return db->Transaction(SqliteDb::TxnKind::kWrite, [&]() -> absl::Status {
    PS_ASSIGN_OR_RETURN(auto sel,
                        db->Prepare("SELECT rowid, extras_pb FROM telemetry "
                                    "WHERE extras_pb IS NOT NULL"));
    std::vector<std::pair<int64_t, std::string>> rows;
    while (true) {
      PS_ASSIGN_OR_RETURN(auto row, sel.Step());
      if (!row) break;
      PS_ASSIGN_OR_RETURN(auto json, TelemetryExtrasJson(sel.Bytes(1)));
      rows.emplace_back(sel.Int(0), std::move(json));
    }
    PS_ASSIGN_OR_RETURN(auto upd,
                        db->Prepare("UPDATE telemetry SET rails_json = ?2, "
                                    "extras_pb = NULL WHERE rowid = ?1"));
    for (const auto& [rowid, json] : rows) {
      PS_RETURN_IF_ERROR(upd.Bind(1, rowid).Bind(2, json).Run());
      upd.Reset();
    }
    return db->Exec("DELETE FROM run_aggregates");
  });
}

int Main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress as it happens
  Config config;
  bool ok = argc % 2 == 1;
  for (int i = 1; ok && i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") {
      ok = absl::SimpleAtoi(argv[i + 1], &config.runs) && config.runs > 0;
    } else if (flag == "--rows") {
      ok = absl::SimpleAtoi(argv[i + 1], &config.rows) && config.rows > 1;
    } else if (flag == "--dir") {
      config.dir = argv[i + 1];
    } else {
      ok = false;
    }
  }
  if (!ok) {
    std::fprintf(stderr, "usage: analysis_tables_bench [--runs N] [--rows N] [--dir DIR]\n");
    return 2;
  }
  std::string tmpl = config.dir + "/tables_bench_XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "cannot create a folder in %s: %s\n", config.dir.c_str(),
                 std::strerror(errno));
    return 1;
  }
  const std::string path = tmpl + "/bench.db";
  RealClock clock;
  int64_t start = clock.MonotonicNanos();
  auto store = SqliteStore::Open(path);
  if (!Check(store.status())) return 1;
  const int64_t sweep = Build(store->get(), config);
  if (sweep == 0) return 1;
  std::printf("built:     %lld runs x %lld telemetry rows (+ %lld minibatches) in %.1f s\n",
              static_cast<long long>(config.runs), static_cast<long long>(config.rows),
              static_cast<long long>(config.rows / 10), Seconds(start));

  start = clock.MonotonicNanos();
  auto listed = ListRunsWithSummaries(store->get(), sweep);
  if (!Check(listed.status())) return 1;
  std::printf("stored:    runs/summary tables (ListRunsWithSummaries) in %.3f s\n",
              Seconds(start));
  {  // where that time goes
    start = clock.MonotonicNanos();
    auto runs = (*store)->ListRuns(sweep);
    const double list_s = Seconds(start);
    start = clock.MonotonicNanos();
    auto aggs = (*store)->GetSweepAggregates(sweep);
    const double aggs_s = Seconds(start);
    start = clock.MonotonicNanos();
    auto results = (*store)->ListRunResults(sweep);
    const double results_s = Seconds(start);
    start = clock.MonotonicNanos();
    auto bases = LoadBaseloadsFor(store->get(), *runs);
    const double bases_s = Seconds(start);
    if (!runs.ok() || !aggs.ok() || !results.ok() || !bases.ok()) return 1;
    std::printf("           ListRuns %.3f s, GetSweepAggregates %.3f s, ListRunResults"
                " %.3f s, LoadBaseloadsFor %.3f s\n",
                list_s, aggs_s, results_s, bases_s);
  }

  int64_t summarized = 0;
  start = clock.MonotonicNanos();
  if (!Check(Recompute(store->get(), sweep, &summarized))) return 1;
  std::printf("recompute: %lld runs re-summarized from records (protobuf extras) in %.3f s\n",
              static_cast<long long>(summarized), Seconds(start));
  store->reset();

  if (!Check(MakeOld(path))) return 1;
  start = clock.MonotonicNanos();
  store = SqliteStore::Open(path);  // fills run_aggregates again
  if (!Check(store.status())) return 1;
  std::printf("backfill:  reopening a file without aggregates took %.3f s (once)\n",
              Seconds(start));
  summarized = 0;
  start = clock.MonotonicNanos();
  if (!Check(Recompute(store->get(), sweep, &summarized))) return 1;
  std::printf("before:    %lld runs re-summarized from JSON rails_json rows (schema 6) in %.3f s\n",
              static_cast<long long>(summarized), Seconds(start));
  start = clock.MonotonicNanos();
  listed = ListRunsWithSummaries(store->get(), sweep);
  if (!Check(listed.status())) return 1;
  std::printf("after:     runs/summary tables from stored aggregates in %.3f s\n",
              Seconds(start));
  store->reset();
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  return 0;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) { return powersweep::Main(argc, argv); }
