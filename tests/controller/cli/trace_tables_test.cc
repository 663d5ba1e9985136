#include "controller/cli/trace_tables.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;

v1::RunStatus TracedRun(int64_t id, v1::Runtime runtime, int repetition) {
  v1::RunStatus r;
  v1::RunSpec* s = r.mutable_spec();
  s->set_run_id(id);
  s->set_attempt(1);
  s->set_device_class("host");
  s->mutable_workload()->set_model("lenet5");
  s->mutable_workload()->set_dataset("fashion-mnist");
  s->mutable_workload()->set_task(v1::TASK_TRAIN);
  s->set_runtime(runtime);
  s->set_repetition(repetition);
  r.set_state(v1::RUN_STATE_DONE);
  return r;
}

TraceCsvRow Row(int64_t run, const std::string& kind, const std::string& name,
                double count) {
  TraceCsvRow t;
  t.run_id = run;
  t.attempt = 1;
  t.kind = kind;
  t.name = name;
  t.scope = kind == "writeback" || kind == "block" ? "system" : "workload";
  t.count = count;
  return t;
}

TEST(TracesTableTest, PerCellMeansSharesTopCallsAndMissingTraces) {
  // Two repetitions of one native cell, one container run.
  const std::vector<v1::RunStatus> runs = {
      TracedRun(1, v1::RUNTIME_NATIVE, 0), TracedRun(2, v1::RUNTIME_NATIVE, 1),
      TracedRun(3, v1::RUNTIME_CONTAINER, 0)};
  std::vector<TraceCsvRow> rows = {
      Row(1, "syscalls", "futex", 300), Row(1, "syscalls", "read", 100),
      Row(1, "syscalls", "write", 10),  Row(2, "syscalls", "futex", 500),
      Row(2, "syscalls", "read", 100),  Row(1, "writeback", "all", 4),
      Row(1, "writeback", "periodic", 3), Row(1, "writeback", "sync", 1)};
  rows[5].interval_mean_s = 5.0;
  rows[5].interval_sd_s = 0.5;
  TraceCsvRow block = Row(2, "block", "issue W", 2);
  block.bytes = 4 * 1024 * 1024;
  rows.push_back(block);
  TraceCsvRow missing = Row(3, "sched", "", 0);
  missing.count.reset();
  missing.missing_reason = "perf_event_open: Permission denied";
  rows.push_back(missing);
  // A row of another attempt than the run's current one is ignored.
  TraceCsvRow old = Row(3, "syscalls", "futex", 999);
  old.attempt = 2;
  rows.push_back(old);

  const Table t = TracesTable(runs, rows, /*top=*/2);
  ASSERT_EQ(t.rows.size(), 7u);
  const std::string native = t.rows[0][0];
  EXPECT_THAT(t.rows[0], ElementsAre(native, "syscalls", "futex", "workload",
                                     "2", "400.0", "79.2", "-", "-"));
  EXPECT_THAT(t.rows[1], ElementsAre(native, "syscalls", "read", "workload",
                                     "2", "100.0", "19.8", "-", "-"));
  // `write` is the third: cut by --top 2 (it still counts in the shares:
  // 800 of 1010 calls are futex).
  EXPECT_THAT(t.rows[2], ElementsAre(native, "block", "issue W", "system",
                                     "2", "1.0", "-", "2.00", "-"));
  EXPECT_THAT(t.rows[3], ElementsAre(native, "writeback", "all", "system",
                                     "2", "2.0", "-", "-", "5.000 ± 0.500"));
  EXPECT_THAT(t.rows[4], ElementsAre(native, "writeback", "periodic",
                                     "system", "2", "1.5", "75.0", "-", "-"));
  EXPECT_EQ(t.rows[5][2], "sync");
  EXPECT_NE(t.rows[6][0], native);
  EXPECT_THAT(t.rows[6],
              ElementsAre(t.rows[6][0], "sched",
                          "missing: perf_event_open: Permission denied", "-",
                          "1", "-", "-", "-", "-"));
  EXPECT_NE(t.rows[6][0].find("container"), std::string::npos) << t.rows[6][0];
}

}  // namespace
}  // namespace powersweep
