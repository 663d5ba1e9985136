// SqliteStore::ExportCsv: header, rows, quoting, chunking, errors.
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class CsvExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(dir_.path() + "/store.db");
    ASSERT_NE(store_, nullptr);
    auto sweep = store_->CreateSweep(MakeSpec("csv"), MakeRuns(2), clock_.Now());
    ASSERT_TRUE(sweep.ok());
    sweep_id_ = *sweep;
    auto runs = store_->ListRuns(sweep_id_);
    run_ids_ = {(*runs)[0].spec().run_id(), (*runs)[1].spec().run_id()};
  }
  // Exports `table`, returning the chunks.
  std::vector<std::string> Export(int64_t sweep_id, const std::string& table,
                                  absl::Status* status) {
    std::vector<std::string> chunks;
    *status = store_->ExportCsv(sweep_id, table,
                                [&](const std::string& c) { chunks.push_back(c); });
    return chunks;
  }
  std::vector<std::string> Lines(const std::vector<std::string>& chunks) {
    std::string all = absl::StrJoin(chunks, "");
    std::vector<std::string> lines = absl::StrSplit(all, '\n');
    EXPECT_EQ(lines.back(), "");  // ends with a newline
    lines.pop_back();
    return lines;
  }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  int64_t sweep_id_ = 0;
  std::vector<int64_t> run_ids_;
};

TEST_F(CsvExportTest, RunsTableHasHeaderOneLinePerRunAndQuotesCommas) {
  const int64_t failed = run_ids_[1];
  ASSERT_TRUE(store_->TransitionRun(failed, v1::RUN_STATE_LEASED, "host-0", "",
                                    clock_.Now())
                  .ok());
  ASSERT_TRUE(store_->TransitionRun(failed, v1::RUN_STATE_FAILED, "",
                                    "out of memory, killed by \"oom\"", clock_.Now())
                  .ok());
  absl::Status st;
  std::vector<std::string> lines = Lines(Export(sweep_id_, "runs", &st));
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], StartsWith("run_id,sweep_id,device_class,model,dataset,task,"
                                   "batch_size,"));
  EXPECT_THAT(lines[0], HasSubstr(",state,device_id,reason,"));
  EXPECT_THAT(lines[0], HasSubstr(",energy_j,energy_provenance,"));
  EXPECT_THAT(lines[1], StartsWith(absl::StrCat(run_ids_[0], ",", sweep_id_,
                                                ",host,lenet5,fashion-mnist,train,8,")));
  EXPECT_THAT(lines[2],
              HasSubstr(",failed,host-0,\"out of memory, killed by \"\"oom\"\"\","));
}

TEST_F(CsvExportTest, FormulaLikeReasonsAreNeutralizedNumbersAreNot) {
  const int64_t failed = run_ids_[1];
  ASSERT_TRUE(store_->TransitionRun(failed, v1::RUN_STATE_LEASED, "host-0", "",
                                    clock_.Now())
                  .ok());
  ASSERT_TRUE(store_->TransitionRun(failed, v1::RUN_STATE_FAILED, "",
                                    "=cmd|' /C calc'!A0", clock_.Now())
                  .ok());
  const int64_t other = run_ids_[0];
  ASSERT_TRUE(store_->TransitionRun(other, v1::RUN_STATE_LEASED, "host-0", "",
                                    clock_.Now())
                  .ok());
  ASSERT_TRUE(store_->TransitionRun(other, v1::RUN_STATE_FAILED, "", "-1.5",
                                    clock_.Now())
                  .ok());
  absl::Status st;
  std::vector<std::string> lines = Lines(Export(sweep_id_, "runs", &st));
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[2], HasSubstr(",failed,host-0,'=cmd|' /C calc'!A0,"));
  EXPECT_THAT(lines[1], HasSubstr(",failed,host-0,-1.5,"));
}

TEST_F(CsvExportTest, RunsTableCarriesResultColumns) {
  const int64_t id = run_ids_[0];
  ASSERT_TRUE(store_->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", clock_.Now()).ok());
  v1::RunResult result;
  result.set_run_id(id);
  result.set_ok(true);
  result.set_energy_j(42.5);
  result.set_energy_provenance(v1::PROVENANCE_MODELED);
  v1::WorkloadInfo* w = result.mutable_provenance()->mutable_workload();
  w->set_params(11181642);
  w->set_forward_macs(37016576);
  w->set_dataset_format("cifar10");
  w->mutable_storage()->set_device("mmcblk0p1");
  w->mutable_storage()->set_kind("non-rotational");
  ASSERT_TRUE(store_->FinishRun(result, v1::RUN_STATE_DONE, "", clock_.Now()).ok());
  absl::Status st;
  std::vector<std::string> lines = Lines(Export(sweep_id_, "runs", &st));
  ASSERT_TRUE(st.ok()) << st;
  std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  std::vector<std::string> row = absl::StrSplit(lines[1], ',');
  ASSERT_EQ(header.size(), row.size());
  auto column = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return row[i];
    }
    return std::string("<no column>");
  };
  EXPECT_EQ(column("state"), "done");
  EXPECT_EQ(column("ok"), "1");
  EXPECT_EQ(column("energy_j"), "42.5");
  EXPECT_EQ(column("energy_provenance"), "modeled");
  EXPECT_EQ(column("model_params"), "11181642");
  EXPECT_EQ(column("model_forward_macs"), "37016576");
  EXPECT_EQ(column("dataset_format"), "cifar10");
  EXPECT_EQ(column("storage_device"), "mmcblk0p1");
  EXPECT_EQ(column("storage_kind"), "non-rotational");
  // The run's pipeline settings, defaults when the spec leaves them out.
  EXPECT_EQ(column("page_cache"), "keep");
  EXPECT_EQ(column("prefetch_depth"), "0");
  EXPECT_EQ(column("preload"), "0");
}

TEST_F(CsvExportTest, MinibatchesComeInChunksOfWholeLinesForThisSweepOnly) {
  for (int seq = 1; seq <= 5; ++seq) {
    v1::DataBatch batch = MakeBatch(run_ids_[0], seq, 500, 0);
    // The first minibatch of the run starts an epoch: it carries the page
    // cache residency; the others have none (an empty CSV field).
    if (seq == 1) batch.mutable_minibatches(0)->set_page_cache_resident(0.25);
    ASSERT_TRUE(store_->IngestBatch(batch).ok());
  }
  // Another sweep's records must not appear.
  auto other = store_->CreateSweep(MakeSpec("other"), MakeRuns(1), clock_.Now());
  const int64_t other_run = (*store_->ListRuns(*other))[0].spec().run_id();
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(other_run, 1, 10, 0)).ok());

  absl::Status st;
  std::vector<std::string> chunks = Export(sweep_id_, "minibatches", &st);
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(chunks.size(), 3u);  // 2500 rows in chunks of 1000
  for (const std::string& chunk : chunks) EXPECT_EQ(chunk.back(), '\n');
  std::vector<std::string> lines = Lines(chunks);
  ASSERT_EQ(lines.size(), 2501u);
  EXPECT_EQ(lines[0],
            "run_id,attempt,seq,idx,epoch,t_start_s,stall_s,compute_s,e2e_s,samples,loss,tenant,"
            "page_cache_resident");
  EXPECT_EQ(lines[1], absl::StrCat(run_ids_[0], ",1,1,0,0,0.0,0.125,0.25,0.5,32,2.5,0,0.25"));
  EXPECT_EQ(lines[2], absl::StrCat(run_ids_[0], ",1,1,1,0,0.5,0.125,0.25,0.5,32,2.49,0,"));
  auto stored = store_->GetMinibatches(run_ids_[0]);
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_GE(stored->size(), 2u);
  EXPECT_TRUE((*stored)[0].has_page_cache_resident());
  EXPECT_DOUBLE_EQ((*stored)[0].page_cache_resident(), 0.25);
  EXPECT_FALSE((*stored)[1].has_page_cache_resident());
}

TEST_F(CsvExportTest, TelemetryQuotesTheCoreLists) {
  v1::DataBatch batch = MakeBatch(run_ids_[0], 1, 0, 1);
  batch.mutable_telemetry(0)->add_cores()->set_util(0.5);
  batch.mutable_telemetry(0)->add_cores()->set_util(0.25);
  ASSERT_TRUE(store_->IngestBatch(batch).ok());
  absl::Status st;
  std::vector<std::string> lines = Lines(Export(sweep_id_, "telemetry", &st));
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0],
              StartsWith("run_id,attempt,seq,t_s,cpu_util,core_util,core_freq_khz,"));
  EXPECT_THAT(lines[1], HasSubstr(",\"0.5,0.25\",\"0,0\","));
}

TEST_F(CsvExportTest, RetriedRunExportsEveryAttemptsRecordsAndTheCurrentResult) {
  const int64_t id = run_ids_[0];
  auto to = [&](v1::RunState state) {
    ASSERT_TRUE(store_->TransitionRun(id, state, "host-0", "", clock_.Now()).ok());
  };
  to(v1::RUN_STATE_LEASED);
  to(v1::RUN_STATE_RUNNING);
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(id, 1, 2, 1)).ok());
  v1::RunResult failed;
  failed.set_run_id(id);
  failed.set_reason("workload exited with code 1");
  failed.set_exit_code(1);
  ASSERT_TRUE(store_->FinishRun(failed, v1::RUN_STATE_FAILED, failed.reason(),
                                clock_.Now())
                  .ok());
  to(v1::RUN_STATE_PENDING);
  to(v1::RUN_STATE_LEASED);
  to(v1::RUN_STATE_RUNNING);
  v1::DataBatch second = MakeBatch(id, 1, 3, 1);
  second.set_attempt(2);
  ASSERT_TRUE(store_->IngestBatch(second).ok());
  v1::RunResult done;
  done.set_run_id(id);
  done.set_ok(true);
  done.set_energy_j(12.5);
  ASSERT_TRUE(store_->FinishRun(done, v1::RUN_STATE_DONE, "", clock_.Now()).ok());

  absl::Status st;
  std::vector<std::string> minibatches = Lines(Export(sweep_id_, "minibatches", &st));
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(minibatches.size(), 6u);  // header, 2 rows of attempt 1, 3 of attempt 2
  EXPECT_THAT(minibatches[1], StartsWith(absl::StrCat(id, ",1,1,0,")));
  EXPECT_THAT(minibatches[2], StartsWith(absl::StrCat(id, ",1,1,1,")));
  EXPECT_THAT(minibatches[3], StartsWith(absl::StrCat(id, ",2,1,0,")));
  EXPECT_THAT(minibatches[5], StartsWith(absl::StrCat(id, ",2,1,2,")));
  std::vector<std::string> telemetry = Lines(Export(sweep_id_, "telemetry", &st));
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(telemetry.size(), 3u);
  EXPECT_THAT(telemetry[1], StartsWith(absl::StrCat(id, ",1,1,")));
  EXPECT_THAT(telemetry[2], StartsWith(absl::StrCat(id, ",2,1,")));

  // runs.csv: one row for the run, with the result of attempt 2.
  std::vector<std::string> runs = Lines(Export(sweep_id_, "runs", &st));
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(runs.size(), 3u);
  std::vector<std::string> header = absl::StrSplit(runs[0], ',');
  std::vector<std::string> row = absl::StrSplit(runs[1], ',');
  ASSERT_EQ(header.size(), row.size());
  auto column = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return row[i];
    }
    return std::string("<no column>");
  };
  EXPECT_EQ(column("attempt"), "2");
  EXPECT_EQ(column("state"), "done");
  EXPECT_EQ(column("ok"), "1");
  EXPECT_EQ(column("exit_code"), "0");
  EXPECT_EQ(column("energy_j"), "12.5");
}

TEST_F(CsvExportTest, UnknownTableIsInvalidArgumentNamingIt) {
  absl::Status st;
  std::vector<std::string> chunks = Export(sweep_id_, "devices; drop table runs", &st);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("'devices; drop table runs'"));
  EXPECT_TRUE(chunks.empty());
}

TEST_F(CsvExportTest, UnknownSweepIsNotFound) {
  absl::Status st;
  std::vector<std::string> chunks = Export(sweep_id_ + 10, "runs", &st);
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(chunks.empty());
}

}  // namespace
}  // namespace powersweep
