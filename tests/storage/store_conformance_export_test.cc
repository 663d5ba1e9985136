// Store conformance: ExportCsv: the header and rows of each table, quoting
// and neutralized formulas, chunks of whole lines, every attempt's
// records, errors; the sink may use the store while it runs.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

template <typename Factory>
class StoreExportTest : public StoreConformanceTest<Factory> {
 protected:
  void SetUp() override {
    StoreConformanceTest<Factory>::SetUp();
    sweep_id_ = this->AddSweep(MakeRuns(2), "csv");
    run_ids_ = this->RunIds(sweep_id_);
    ASSERT_EQ(run_ids_.size(), 2u);
  }
  void Ingest(const v1::DataBatch& batch) {
    auto outcome = this->store_->IngestBatch(batch);
    ASSERT_TRUE(outcome.ok()) << outcome.status();
  }
  void Fail(int64_t id, const std::string& reason) {
    this->Move(id, {kLeased});
    ASSERT_TRUE(
        this->store_->TransitionRun(id, kFailed, "", reason, this->clock_.Now())
            .ok());
  }

  int64_t sweep_id_ = 0;
  std::vector<int64_t> run_ids_;
};
TYPED_TEST_SUITE(StoreExportTest, StoreImplementations,
                 StoreImplementationNames);

TYPED_TEST(StoreExportTest, RunsTableHasHeaderOneLinePerRunAndQuotesCommas) {
  this->Fail(this->run_ids_[1], "out of memory, killed by \"oom\"");
  const std::vector<std::string> lines =
      this->ExportLines(this->sweep_id_, "runs");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0],
              StartsWith("run_id,sweep_id,device_class,model,dataset,task,"
                         "batch_size,"));
  EXPECT_THAT(lines[0], HasSubstr(",state,device_id,reason,"));
  EXPECT_THAT(lines[0], HasSubstr(",energy_j,energy_provenance,"));
  EXPECT_THAT(lines[1],
              StartsWith(absl::StrCat(this->run_ids_[0], ",", this->sweep_id_,
                                      ",host,lenet5,fashion-mnist,train,8,")));
  EXPECT_THAT(
      lines[2],
      HasSubstr(",failed,host-0,\"out of memory, killed by \"\"oom\"\"\","));
  const CsvRow pending(lines[0], lines[1]);
  EXPECT_EQ(pending["state"], "pending");
  EXPECT_EQ(pending["attempt"], "1");
  EXPECT_EQ(pending["device_id"], "");
  EXPECT_EQ(pending["started_unix_ms"], "");
  EXPECT_EQ(pending["created_unix_ms"],
            absl::StrCat(absl::ToUnixMillis(this->clock_.Now())));
  EXPECT_EQ(pending["ok"], "");  // no result
  EXPECT_EQ(pending["energy_j"], "");
  const CsvRow failed(lines[0], lines[2]);
  EXPECT_EQ(failed["leased_unix_ms"],
            absl::StrCat(absl::ToUnixMillis(this->clock_.Now())));
  EXPECT_EQ(failed["finished_unix_ms"],
            absl::StrCat(absl::ToUnixMillis(this->clock_.Now())));
}

TYPED_TEST(StoreExportTest, FormulaLikeReasonsAreNeutralizedNumbersAreNot) {
  this->Fail(this->run_ids_[1], "=cmd|' /C calc'!A0");
  this->Fail(this->run_ids_[0], "-1.5");
  const std::vector<std::string> lines =
      this->ExportLines(this->sweep_id_, "runs");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[2], HasSubstr(",failed,host-0,'=cmd|' /C calc'!A0,"));
  EXPECT_THAT(lines[1], HasSubstr(",failed,host-0,-1.5,"));
}

TYPED_TEST(StoreExportTest, RunsTableCarriesTheSpecAndResultColumns) {
  // The run's pipeline settings, as given.
  std::vector<v1::RunSpec> specs = MakeRuns(1);
  v1::WorkloadSpec* w = specs[0].mutable_workload();
  w->set_prefetch_depth(6);
  w->set_page_cache(v1::PAGE_CACHE_DROP);
  w->set_preload(true);
  w->set_input_size(160);
  w->set_loader_workers(2);
  specs[0].mutable_power_mode()->set_cpu_freq_khz(1'200'000);
  specs[0].set_runtime(v1::RUNTIME_CONTAINER);
  const int64_t sweep = this->AddSweep(specs, "spec");
  const int64_t id = this->RunIds(sweep)[0];
  this->Start(id);
  v1::RunResult result;
  result.set_run_id(id);
  result.set_ok(true);
  result.set_energy_j(42.5);
  result.set_energy_provenance(v1::PROVENANCE_MODELED);
  result.set_duration_s(12);
  result.set_energy_stall_j(2.5);
  result.set_energy_compute_j(9.75);
  result.set_agent_cpu_fraction(0.25);
  result.set_exit_code(0);
  v1::WorkloadInfo* info = result.mutable_provenance()->mutable_workload();
  info->set_params(11181642);
  info->set_forward_macs(37016576);
  info->set_dataset_format("cifar10");
  info->mutable_storage()->set_device("mmcblk0p1");
  info->mutable_storage()->set_kind("non-rotational");
  result.mutable_provenance()->set_threads(4);
  result.mutable_provenance()->set_device("cpu");
  ASSERT_TRUE(
      this->store_->FinishRun(result, kDone, "", this->clock_.Now()).ok());
  const std::vector<std::string> lines = this->ExportLines(sweep, "runs");
  ASSERT_EQ(lines.size(), 2u);
  const CsvRow row(lines[0], lines[1]);
  EXPECT_EQ(row["prefetch_depth"], "6");
  EXPECT_EQ(row["page_cache"], "drop");
  EXPECT_EQ(row["preload"], "1");
  EXPECT_EQ(row["input_size"], "160");
  EXPECT_EQ(row["loader_workers"], "2");
  EXPECT_EQ(row["cpu_cores"], "4");
  EXPECT_EQ(row["cpu_freq_khz"], "1200000");
  EXPECT_EQ(row["gpu_freq_hz"], "0");
  EXPECT_EQ(row["preset"], "MAXN");
  EXPECT_EQ(row["runtime"], "container");
  EXPECT_EQ(row["state"], "done");
  EXPECT_EQ(row["ok"], "1");
  EXPECT_EQ(row["exit_code"], "0");
  EXPECT_EQ(row["duration_s"], "12.0");
  EXPECT_EQ(row["energy_j"], "42.5");
  EXPECT_EQ(row["energy_provenance"], "modeled");
  EXPECT_EQ(row["sampler_cpu_s"], "0.0");
  EXPECT_EQ(row["energy_stall_j"], "2.5");
  EXPECT_EQ(row["energy_compute_j"], "9.75");
  EXPECT_EQ(row["agent_cpu_fraction"], "0.25");
  EXPECT_EQ(row["incremental_energy_j"], "");  // not known
  EXPECT_EQ(row["threads"], "4");
  EXPECT_EQ(row["compute_device"], "cpu");
  EXPECT_EQ(row["model_params"], "11181642");
  EXPECT_EQ(row["model_forward_macs"], "37016576");
  EXPECT_EQ(row["dataset_format"], "cifar10");
  EXPECT_EQ(row["storage_device"], "mmcblk0p1");
  EXPECT_EQ(row["storage_kind"], "non-rotational");

  // Defaults when the spec leaves the settings out; no workload facts
  // without a workload.
  this->Start(this->run_ids_[0]);
  v1::RunResult bare;
  bare.set_run_id(this->run_ids_[0]);
  ASSERT_TRUE(
      this->store_->FinishRun(bare, kFailed, "", this->clock_.Now()).ok());
  const std::vector<std::string> plain =
      this->ExportLines(this->sweep_id_, "runs");
  const CsvRow defaults(plain[0], plain[1]);
  EXPECT_EQ(defaults["page_cache"], "keep");
  EXPECT_EQ(defaults["prefetch_depth"], "0");
  EXPECT_EQ(defaults["preload"], "0");
  EXPECT_EQ(defaults["input_size"], "0");
  EXPECT_EQ(defaults["ok"], "0");
  EXPECT_EQ(defaults["energy_provenance"], "unspecified");
  EXPECT_EQ(defaults["model_params"], "");
  EXPECT_EQ(defaults["storage_kind"], "");
  EXPECT_EQ(defaults["kernel_shape"], "");
  EXPECT_EQ(defaults["kernel_launches"], "");
  EXPECT_EQ(defaults["gpu_power_limit_w"], "0");
  EXPECT_EQ(defaults["gpu_counter_energy_j"], "");
}

// A host GPU's power limit and energy counter (docs/gpu.md), the same from
// either store.
TYPED_TEST(StoreExportTest, GpuHostRunShowsItsPowerLimitAndCounterEnergy) {
  v1::RunSpec spec;
  spec.set_device_class("host");
  spec.mutable_workload()->set_model("lenet5");
  spec.mutable_workload()->set_dataset("fashion-mnist");
  spec.mutable_workload()->set_minibatches(10);
  spec.mutable_power_mode()->set_gpu_power_limit_w(300);
  spec.set_runtime(v1::RUNTIME_NATIVE);
  const int64_t sweep = this->AddSweep({spec}, "gpu");
  const int64_t id = this->RunIds(sweep)[0];
  this->Start(id);
  v1::RunResult r;
  r.set_run_id(id);
  r.set_ok(true);
  r.set_gpu_counter_energy_j(123.5);
  ASSERT_TRUE(this->store_->FinishRun(r, kDone, "", this->clock_.Now()).ok());
  const std::vector<std::string> lines = this->ExportLines(sweep, "runs");
  ASSERT_EQ(lines.size(), 2u);
  const CsvRow row(lines[0], lines[1]);
  EXPECT_EQ(row["gpu_power_limit_w"], "300");
  EXPECT_EQ(row["gpu_counter_energy_j"], "123.5");
  EXPECT_EQ(row["kernel_launches"], "");
}

// A kernel run's shape, FLOPs and launches per iteration (a network's row
// leaves them empty, above), the same from either store.
TYPED_TEST(StoreExportTest, KernelRunShowsItsShapeFlopsAndLaunches) {
  v1::RunSpec gru;
  gru.set_device_class("host");
  gru.mutable_workload()->set_model("rnn");
  gru.mutable_workload()->set_dataset("gru-h512-b32-t25-fwd");  // the shape
  gru.mutable_workload()->set_minibatches(10);
  gru.set_runtime(v1::RUNTIME_NATIVE);
  const int64_t sweep = this->AddSweep({gru}, "kernel");
  const int64_t id = this->RunIds(sweep)[0];
  this->Start(id);
  v1::RunResult r;
  r.set_run_id(id);
  r.set_ok(true);
  v1::WorkloadInfo* w = r.mutable_provenance()->mutable_workload();
  w->set_forward_macs(1234567890);
  v1::KernelInfo* k = w->mutable_kernel();
  k->set_shape("gru-h512-b32-t25-fwd");
  k->set_flops(2469135780);
  k->set_launches(311);
  ASSERT_TRUE(this->store_->FinishRun(r, kDone, "", this->clock_.Now()).ok());
  const std::vector<std::string> lines = this->ExportLines(sweep, "runs");
  ASSERT_EQ(lines.size(), 2u);
  const CsvRow row(lines[0], lines[1]);
  EXPECT_EQ(row["kernel_shape"], "gru-h512-b32-t25-fwd");
  EXPECT_EQ(row["kernel_flops"], "2469135780.0");
  EXPECT_EQ(row["kernel_launches"], "311.0");
  EXPECT_EQ(row["model_forward_macs"], "1234567890");
}

TYPED_TEST(StoreExportTest, BaseloadRunShowsItsTaskAndPower) {
  v1::RunSpec baseload;
  baseload.set_device_class("host");
  baseload.mutable_workload()->set_task(v1::TASK_BASELOAD);
  baseload.mutable_workload()->set_duration_s(30);
  baseload.set_runtime(v1::RUNTIME_NATIVE);
  const int64_t sweep = this->AddSweep({baseload}, "baseload");
  const int64_t id = this->RunIds(sweep)[0];
  this->Start(id);
  EXPECT_EQ(this->Run(id).spec().workload().task(), v1::TASK_BASELOAD);
  v1::RunResult r;
  r.set_run_id(id);
  r.set_ok(true);
  r.set_duration_s(30);
  r.set_energy_j(90);
  r.set_baseload_power_mw(3000);
  r.set_agent_cpu_fraction(0.004);
  ASSERT_TRUE(this->store_->FinishRun(r, kDone, "", this->clock_.Now()).ok());
  EXPECT_EQ(this->store_->GetRunResult(id)->baseload_power_mw(), 3000);
  const std::vector<std::string> lines = this->ExportLines(sweep, "runs");
  ASSERT_EQ(lines.size(), 2u);
  const CsvRow row(lines[0], lines[1]);
  EXPECT_EQ(row["task"], "baseload");
  EXPECT_EQ(row["model"], "");
  EXPECT_EQ(row["baseload_power_mw"], "3000.0");
  EXPECT_EQ(row["incremental_energy_j"], "0.0");  // known: it is the baseload
  EXPECT_EQ(row["agent_cpu_fraction"], "0.004");
  EXPECT_EQ(row["energy_j"], "90.0");
}

TYPED_TEST(StoreExportTest,
           MinibatchesComeInChunksOfWholeLinesForThisSweepOnly) {
  for (int seq = 1; seq <= 5; ++seq) {
    v1::DataBatch batch = MakeBatch(this->run_ids_[0], seq, 500, 0);
    // The first minibatch of the run starts an epoch: it carries the page
    // cache residency; the others have none (an empty CSV field).
    if (seq == 1) batch.mutable_minibatches(0)->set_page_cache_resident(0.25);
    // The second carries a sequence model's fields.
    if (seq == 1) {
      batch.mutable_minibatches(1)->set_tokens(8192);
      batch.mutable_minibatches(1)->set_ttft_s(0.5);
      batch.mutable_minibatches(1)->set_per_token_s(0.125);
    }
    this->Ingest(batch);
  }
  // Another sweep's records must not appear.
  const int64_t other_run = this->CreateRuns(1)[0];
  this->Ingest(MakeBatch(other_run, 1, 10, 0));

  std::vector<std::string> chunks;
  absl::Status st = this->Export(this->sweep_id_, "minibatches", &chunks);
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_GE(chunks.size(), 2u);  // 2500 rows do not come in one piece
  for (const std::string& chunk : chunks) {
    ASSERT_FALSE(chunk.empty());
    EXPECT_EQ(chunk.back(), '\n');
  }
  const std::vector<std::string> lines = CsvLines(absl::StrJoin(chunks, ""));
  ASSERT_EQ(lines.size(), 2501u);
  EXPECT_EQ(lines[0],
            "run_id,attempt,seq,idx,epoch,t_start_s,stall_s,compute_s,e2e_s,"
            "samples,loss,tenant,"
            "page_cache_resident,tokens,ttft_s,per_token_s,h2d_s,warmup");
  const int64_t id = this->run_ids_[0];
  EXPECT_EQ(lines[1],
            absl::StrCat(id, ",1,1,0,0,0.0,0.125,0.25,0.5,32,2.5,0,0.25,,,,,"));
  EXPECT_EQ(lines[2], absl::StrCat(id, ",1,1,1,0,0.5,0.125,0.25,0.5,32,2.49,0,"
                                       ",8192,0.5,0.125,,"));
  EXPECT_THAT(lines[2500], StartsWith(absl::StrCat(id, ",1,5,2499,")));
}

TYPED_TEST(StoreExportTest, MinibatchesAreExportedByIndexAcrossTenants) {
  v1::DataBatch batch = MakeBatch(this->run_ids_[0], 1, 0, 0);
  for (int64_t index : {2, 0, 1}) {
    v1::MinibatchRecord r = MakeMinibatch(index);
    r.set_tenant(index == 0 ? 1 : 0);
    *batch.add_minibatches() = r;
  }
  this->Ingest(batch);
  const std::vector<std::string> lines =
      this->ExportLines(this->sweep_id_, "minibatches");
  ASSERT_EQ(lines.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(CsvRow(lines[0], lines[i + 1])["idx"], absl::StrCat(i));
  }
  EXPECT_EQ(CsvRow(lines[0], lines[1])["tenant"], "1");
}

TYPED_TEST(StoreExportTest, TelemetryQuotesTheCoreListsAndShowsTheExtras) {
  v1::DataBatch batch = MakeBatch(this->run_ids_[0], 1, 0, 2);
  v1::TelemetrySample* s = batch.mutable_telemetry(0);
  s->add_cores()->set_util(0.5);
  s->add_cores()->set_util(0.25);
  s->set_mem_freq_hz(2133000000);
  v1::Temperature* t = s->add_temperatures();
  t->set_name("CPU-therm");
  t->set_celsius(41.5);
  v1::KernelCounters* k = s->mutable_counters();
  k->set_pgfault(1000);
  k->set_pgmajfault(7);
  k->set_pgpgout(64);
  k->set_nr_written(345);
  k->set_tenant_pgfault(99);
  this->Ingest(batch);
  const std::vector<std::string> lines =
      this->ExportLines(this->sweep_id_, "telemetry");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(
      lines[0],
      StartsWith("run_id,attempt,seq,t_s,cpu_util,core_util,core_freq_khz,"));
  EXPECT_THAT(lines[1], HasSubstr(",\"0.5,0.25\",\"0,0\","));
  const CsvRow row(lines[0], lines[1]);
  EXPECT_EQ(row["t_s"], "0.0");
  EXPECT_EQ(row["power_mw"], "4000.0");
  EXPECT_EQ(row["power_provenance"], "modeled");
  EXPECT_EQ(row["mem_freq_hz"], "2133000000");
  EXPECT_EQ(row["pgfault"], "1000");
  EXPECT_EQ(row["pgpgout_kib"], "64");
  EXPECT_EQ(row["nr_dirty"], "0");
  EXPECT_EQ(row["tenant_pgfault"], "99");
  EXPECT_THAT(row["rails_json"], HasSubstr("CPU-therm"));
  const CsvRow plain(lines[0], lines[2]);
  EXPECT_EQ(plain["core_util"], "");
  EXPECT_EQ(plain["rails_json"], "");
  EXPECT_EQ(plain["mem_freq_hz"], "");
  EXPECT_EQ(plain["pgfault"], "");
}

TYPED_TEST(StoreExportTest,
           RetriedRunExportsEveryAttemptsRecordsAndTheCurrentResult) {
  Store& store = *this->store_;
  const int64_t id = this->run_ids_[0];
  this->Start(id);
  this->Ingest(MakeBatch(id, 1, 2, 1));
  v1::RunResult failed;
  failed.set_run_id(id);
  failed.set_reason("workload exited with code 1");
  failed.set_exit_code(1);
  ASSERT_TRUE(
      store.FinishRun(failed, kFailed, failed.reason(), this->clock_.Now())
          .ok());
  this->Move(id, {kPending, kLeased, kRunning});
  v1::DataBatch second = MakeBatch(id, 1, 3, 1);
  second.set_attempt(2);
  this->Ingest(second);
  v1::RunResult done;
  done.set_run_id(id);
  done.set_ok(true);
  done.set_energy_j(12.5);
  ASSERT_TRUE(store.FinishRun(done, kDone, "", this->clock_.Now()).ok());

  const std::vector<std::string> minibatches =
      this->ExportLines(this->sweep_id_, "minibatches");
  ASSERT_EQ(minibatches.size(),
            6u);  // header, 2 rows of attempt 1, 3 of attempt 2
  EXPECT_THAT(minibatches[1], StartsWith(absl::StrCat(id, ",1,1,0,")));
  EXPECT_THAT(minibatches[2], StartsWith(absl::StrCat(id, ",1,1,1,")));
  EXPECT_THAT(minibatches[3], StartsWith(absl::StrCat(id, ",2,1,0,")));
  EXPECT_THAT(minibatches[5], StartsWith(absl::StrCat(id, ",2,1,2,")));
  const std::vector<std::string> telemetry =
      this->ExportLines(this->sweep_id_, "telemetry");
  ASSERT_EQ(telemetry.size(), 3u);
  EXPECT_THAT(telemetry[1], StartsWith(absl::StrCat(id, ",1,1,")));
  EXPECT_THAT(telemetry[2], StartsWith(absl::StrCat(id, ",2,1,")));

  // runs.csv: one row for the run, with the result of attempt 2.
  const std::vector<std::string> runs =
      this->ExportLines(this->sweep_id_, "runs");
  ASSERT_EQ(runs.size(), 3u);
  const CsvRow row(runs[0], runs[1]);
  EXPECT_EQ(row["attempt"], "2");
  EXPECT_EQ(row["state"], "done");
  EXPECT_EQ(row["ok"], "1");
  EXPECT_EQ(row["exit_code"], "0");
  EXPECT_EQ(row["energy_j"], "12.5");
  EXPECT_EQ(row["reason"], "");
}

TYPED_TEST(StoreExportTest, TracesTableHasAFigurePerRowAndTheMissingOnes) {
  const int64_t id = this->run_ids_[0];
  this->Start(id);
  v1::RunResult r = MakeResult(id, 10);
  v1::RunTraces* t = r.mutable_traces();
  t->add_requested(v1::TRACE_SYSCALLS);
  t->add_requested(v1::TRACE_BLOCK);
  t->add_requested(v1::TRACE_WRITEBACK);
  t->add_requested(v1::TRACE_SCHED);
  v1::TraceCount* c = t->add_counts();
  c->set_kind(v1::TRACE_SYSCALLS);
  c->set_name("futex");
  c->set_count(1234);
  c = t->add_counts();
  c->set_kind(v1::TRACE_BLOCK);
  c->set_name("issue W");
  c->set_system_wide(true);
  c->set_count(3);
  c->set_bytes(12288);
  c = t->add_counts();
  c->set_kind(v1::TRACE_WRITEBACK);
  c->set_name("periodic");
  c->set_system_wide(true);
  c->set_count(4);
  c->set_interval_count(3);
  c->set_interval_mean_s(5.0);
  c->set_interval_sd_s(0.25);
  c->set_interval_p50_s(5.0);
  c->set_interval_max_s(5.5);
  v1::TraceMissing* m = t->add_missing();
  m->set_kind(v1::TRACE_SCHED);
  m->set_reason("perf_event_open: Permission denied, \"paranoid\"");
  ASSERT_TRUE(this->store_->FinishRun(r, kDone, "", this->clock_.Now()).ok());
  const std::vector<std::string> lines =
      this->ExportLines(this->sweep_id_, "traces");
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "run_id,attempt,kind,name,scope,count,bytes,interval_count,"
            "interval_mean_s,interval_sd_s,interval_p50_s,interval_max_s,"
            "missing_reason");
  EXPECT_EQ(lines[1], absl::StrCat(id, ",1,syscalls,futex,workload,1234,,,,,,,"));
  EXPECT_EQ(lines[2], absl::StrCat(id, ",1,block,issue W,system,3,12288,,,,,,"));
  EXPECT_EQ(lines[3], absl::StrCat(id, ",1,writeback,periodic,system,4,,3,"
                                       "5.0,0.25,5.0,5.5,"));
  EXPECT_EQ(lines[4],
            absl::StrCat(id, ",1,sched,,workload,,,,,,,,\"perf_event_open: "
                             "Permission denied, \"\"paranoid\"\"\""));
  // A run that asked for no traces has no rows.
  EXPECT_EQ(this->ExportLines(this->AddSweep(MakeRuns(1), "none"), "traces")
                .size(),
            1u);
}

TYPED_TEST(StoreExportTest, UnknownTableIsInvalidArgumentNamingIt) {
  std::vector<std::string> chunks;
  absl::Status st =
      this->Export(this->sweep_id_, "devices; drop table runs", &chunks);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("'devices; drop table runs'"));
  EXPECT_TRUE(chunks.empty());
  // Checked before the sweep.
  st = this->Export(this->sweep_id_ + 10, "models", &chunks);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
}

TYPED_TEST(StoreExportTest, UnknownSweepIsNotFound) {
  for (const char* table : {"runs", "minibatches", "telemetry", "traces"}) {
    std::vector<std::string> chunks;
    absl::Status st = this->Export(this->sweep_id_ + 10, table, &chunks);
    EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << table;
    EXPECT_TRUE(chunks.empty()) << table;
  }
}

TYPED_TEST(StoreExportTest, EmptyTablesAreJustTheHeader) {
  for (const char* table : {"minibatches", "telemetry"}) {
    const std::vector<std::string> lines =
        this->ExportLines(this->sweep_id_, table);
    ASSERT_EQ(lines.size(), 1u) << table;
    EXPECT_THAT(lines[0], StartsWith("run_id,attempt,seq,")) << table;
  }
  const int64_t empty = this->AddSweep({}, "empty");
  EXPECT_EQ(this->ExportLines(empty, "runs").size(), 1u);
}

// The export reads one snapshot; the sink may call the store meanwhile.
TYPED_TEST(StoreExportTest, TheSinkMayUseTheStoreWhileTheExportRuns) {
  Store& store = *this->store_;
  this->Ingest(MakeBatch(this->run_ids_[0], 1, 1500, 0));
  int chunks = 0;
  size_t rows = 0;
  absl::Status st = store.ExportCsv(
      this->sweep_id_, "minibatches", [&](const std::string& c) {
        rows += static_cast<size_t>(std::count(c.begin(), c.end(), '\n'));
        if (chunks++ == 0) {
          auto outcome =
              store.IngestBatch(MakeBatch(this->run_ids_[1], 1, 5, 0));
          EXPECT_TRUE(outcome.ok()) << outcome.status();
          EXPECT_TRUE(store.GetSweepStatus(this->sweep_id_).ok());
        }
      });
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_GE(chunks, 2);
  EXPECT_EQ(rows, 1501u);  // header and the rows there were when it began
  EXPECT_EQ(this->Minibatches(this->run_ids_[1]), 5u);
  EXPECT_EQ(this->ExportLines(this->sweep_id_, "minibatches").size(), 1506u);
}

}  // namespace
}  // namespace powersweep
