// Container runs through the whole system, against the real Docker engine
// (Debian's docker.io; started here if it is not running): a real
// controller, a host agent with --container_images and the workload image
// built from this very build.
// - The same LeNet cell natively and in a container: every run done with
//   records and telemetry, the same provenance fingerprints on both sides,
//   and `compare` reports the cell with confidence intervals; `powersweep
//   report` draws its native-vs-container figure from the runs' telemetry.
// - Cancelling a container run mid-way: the run ends cancelled and no
//   container of the agent is left.
#include <stdio.h>

#include <array>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/shell.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

using ::testing::HasSubstr;

class ContainerSweepTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string src = POWERSWEEP_SOURCE_DIR;
    auto [up, up_out] = Shell(src + "/infra/scripts/start-dockerd.sh");
    if (up != 0) {
      *Problem() = "no Docker engine (infra/scripts/start-dockerd.sh): " + up_out +
                   " -- these tests need docker.io (CI installs it)";
      return;
    }
    auto [built, out] = Shell(src + "/infra/docker/build-workload-image.sh " +
                              POWERSWEEP_WORKLOAD_BIN);
    if (built != 0) *Problem() = "build-workload-image.sh failed: " + out;
  }
  static std::string* Problem() {
    static std::string* problem = new std::string();
    return problem;
  }
  void SetUp() override {
    ASSERT_TRUE(Problem()->empty()) << *Problem();
    ASSERT_TRUE(fleet_.ok()) << fleet_.Logs();
    fleet_.StartAgent(device_, {"--container_images=powersweep-workload:local",
                                "--cpus=0"});
    ASSERT_TRUE(LocalFleet::WaitFor(
        [&] {
          for (const auto& d : fleet_.ListDevices()) {
            if (d.connected() && d.capabilities().runtimes_size() == 2) {
              return true;
            }
          }
          return false;
        },
        30))
        << "the agent did not register with the container runtime\n"
        << fleet_.Logs();
  }

  v1::SweepSpec Cell(const std::string& name) {
    v1::SweepSpec spec;
    spec.set_name(name);
    spec.add_device_classes("host");
    spec.add_models("lenet5");
    spec.add_datasets("fashion-mnist");
    spec.add_tasks(v1::TASK_TRAIN);
    spec.add_batch_sizes(64);
    spec.add_power_modes()->set_cpu_cores(1);
    spec.add_runtimes(v1::RUNTIME_NATIVE);
    spec.add_runtimes(v1::RUNTIME_CONTAINER);
    spec.set_telemetry_hz(10);
    spec.set_timeout_s(300);
    return spec;
  }

  std::string LeftContainers() {
    return Shell("/usr/bin/docker ps -a -q --filter label=powersweep.device=" +
                 device_)
        .second;
  }

  LocalFleet fleet_;
  std::string device_ = absl::StrCat("ctest-", getpid());
};

TEST_F(ContainerSweepTest, NativeAndContainerRunsOfOneCellAreCompared) {
  v1::SweepSpec spec = Cell("it-container-compare");
  spec.set_repetitions(2);
  spec.set_minibatches(40);
  std::string error;
  const int64_t sweep = fleet_.Submit(spec, &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        v1::SweepStatus s = fleet_.GetSweep(sweep);
        return s.done() + s.failed() + s.cancelled() == s.total();
      },
      240))
      << fleet_.Logs();
  const std::vector<v1::RunStatus> runs = fleet_.ListRuns(sweep);
  ASSERT_EQ(runs.size(), 4u);
  int containers = 0;
  for (const v1::RunStatus& r : runs) {
    EXPECT_EQ(r.state(), v1::RUN_STATE_DONE) << r.reason() << fleet_.Logs();
    EXPECT_EQ(r.summary().minibatches(), 40) << "run " << r.spec().run_id();
    EXPECT_GT(r.summary().telemetry_samples(), 0) << "run " << r.spec().run_id();
    containers += r.spec().runtime() == v1::RUNTIME_CONTAINER;
  }
  EXPECT_EQ(containers, 2);
  // One build on both sides: one binary and one framework fingerprint.
  auto prints = Query(fleet_.db_path(),
                      "SELECT DISTINCT binary_fingerprint, framework_fingerprint "
                      "FROM run_results");
  ASSERT_EQ(prints.size(), 1u);
  EXPECT_THAT(prints[0][0], HasSubstr("build-id:"));
  EXPECT_FALSE(prints[0][1].empty());
  EXPECT_EQ(LeftContainers(), "");

  v1::CompareRequest req;
  req.set_sweep_id(sweep);
  req.set_by("runtime");
  v1::CompareResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(fleet_.control()->Compare(&ctx, req, &resp).ok());
  EXPECT_THAT(resp.method(), HasSubstr("Welch"));
  const v1::Table& t = resp.table();
  auto col = [&](const std::string& name) {
    for (int i = 0; i < t.header_size(); ++i) {
      if (t.header(i) == name) return i;
    }
    ADD_FAILURE() << "no column " << name;
    return 0;
  };
  bool minibatch_row = false;
  for (const v1::TableRow& row : t.rows()) {
    if (row.cells(col("metric")) != "minibatch time") continue;
    minibatch_row = true;
    EXPECT_EQ(row.cells(col("n native")), "2");
    EXPECT_EQ(row.cells(col("n container")), "2");
    EXPECT_THAT(row.cells(col("95% CI native")), HasSubstr("["));
    EXPECT_THAT(row.cells(col("95% CI container")), HasSubstr("["));
    EXPECT_NE(row.cells(col("p (Welch)")), "-");
  }
  EXPECT_TRUE(minibatch_row) << "compare has no minibatch-time row";
  for (const std::string& w : resp.warnings()) {
    EXPECT_THAT(w, ::testing::Not(HasSubstr("fingerprint"))) << w;
  }

  // The report's native-vs-container figure, on these real runs: drawn,
  // with telemetry rows of both runtimes and of all four runs.
  const std::string out = fleet_.dir() + "/report";
  const Finished report = RunToEnd(
      {POWERSWEEP_CLI_BIN, "--controller=" + fleet_.address(), "report",
       absl::StrCat("--sweep=", sweep), "--out=" + out},
      fleet_.dir() + "/report.log");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_THAT(ReadFile(out + "/figures.csv"),
              ::testing::ContainsRegex("\ndistributions,1,[1-9][0-9]*,"));
  std::set<std::string> runtimes, run_ids, with_power;
  for (absl::string_view line :
       absl::StrSplit(ReadFile(out + "/distributions.csv"), '\n')) {
    const std::vector<std::string> cells = absl::StrSplit(line, ',');
    if (cells.size() < 3 || cells[0] == "runtime") continue;
    runtimes.insert(cells[0]);
    run_ids.insert(cells[1]);
    if (!cells[2].empty()) with_power.insert(cells[0]);
  }
  EXPECT_EQ(runtimes, (std::set<std::string>{"container", "native"}));
  EXPECT_EQ(with_power, runtimes) << "a runtime without any power reading";
  EXPECT_EQ(run_ids.size(), 4u);
  EXPECT_GT(ReadFile(out + "/distributions.png").size(), 1000u);
  EXPECT_THAT(ReadFile(out + "/index.html"),
              HasSubstr("Power and utilization by runtime"));
  // What every figure drew (FIGURE.json) against its data: plain ticks,
  // padded narrow axes, legends outside the axes, labelled modes.
  const Finished checks = RunToEnd(
      {"/usr/bin/python3",
       POWERSWEEP_SOURCE_DIR "/tests/infra/report/figure_checks.py", out},
      fleet_.dir() + "/figure_checks.log");
  EXPECT_EQ(checks.exit_code, 0) << checks.output;
  EXPECT_THAT(checks.output, HasSubstr("distributions"));
}

TEST_F(ContainerSweepTest, CancelledContainerRunEndsCancelledWithNoContainerLeft) {
  v1::SweepSpec spec = Cell("it-container-cancel");
  spec.clear_runtimes();
  spec.add_runtimes(v1::RUNTIME_CONTAINER);
  spec.set_duration_s(120);
  spec.set_timeout_s(300);
  std::string error;
  const int64_t sweep = fleet_.Submit(spec, &error);
  ASSERT_GT(sweep, 0) << error;
  // Running, with records arriving from inside the container.
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        auto runs = fleet_.ListRuns(sweep);
        return !runs.empty() && runs[0].summary().minibatches() > 0;
      },
      120))
      << fleet_.Logs();
  EXPECT_NE(LeftContainers(), "");

  v1::CancelRunsRequest req;
  req.set_sweep_id(sweep);
  v1::CancelRunsResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(fleet_.control()->CancelRuns(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.cancelled(), 1);
  // The agent stops the container and becomes idle again.
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        for (const auto& d : fleet_.ListDevices()) {
          if (d.identity().device_id() == device_ && d.current_run_id() == 0) {
            return true;
          }
        }
        return false;
      },
      60))
      << fleet_.Logs();
  const std::vector<v1::RunStatus> runs = fleet_.ListRuns(sweep);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state(), v1::RUN_STATE_CANCELLED);
  EXPECT_EQ(runs[0].reason(), "cancelled by the user");
  EXPECT_EQ(LeftContainers(), "");
}

TEST_F(ContainerSweepTest, BaseloadInAnIdleContainerIsTheContainerRunsBaseline) {
  v1::SweepSpec spec = Cell("it-container-baseload");
  spec.clear_tasks();
  spec.add_tasks(v1::TASK_BASELOAD);
  spec.add_tasks(v1::TASK_TRAIN);
  spec.clear_runtimes();
  spec.add_runtimes(v1::RUNTIME_CONTAINER);
  spec.set_duration_s(3);
  std::string error;
  const int64_t sweep = fleet_.Submit(spec, &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        v1::SweepStatus s = fleet_.GetSweep(sweep);
        return s.done() + s.failed() + s.cancelled() == s.total();
      },
      120))
      << fleet_.Logs();
  const std::vector<v1::RunStatus> runs = fleet_.ListRuns(sweep);
  ASSERT_EQ(runs.size(), 2u);
  int64_t baseload_id = 0;
  for (const v1::RunStatus& r : runs) {
    ASSERT_EQ(r.state(), v1::RUN_STATE_DONE) << r.reason() << fleet_.Logs();
    EXPECT_GT(r.summary().telemetry_samples(), 0);
    if (r.spec().workload().task() == v1::TASK_BASELOAD) {
      baseload_id = r.spec().run_id();
      EXPECT_GT(r.summary().baseload_power_mw(), 0);
    }
  }
  ASSERT_GT(baseload_id, 0);
  // The idle container reported the same build as the workload container,
  // and the training run's incremental energy was stored against it.
  auto prints = Query(fleet_.db_path(),
                      "SELECT DISTINCT binary_fingerprint FROM run_results");
  EXPECT_EQ(prints.size(), 1u);
  auto stored = Query(
      fleet_.db_path(),
      "SELECT baseload_run_id, incremental_energy_j FROM run_results r "
      "JOIN runs USING (run_id) WHERE runs.task = 'train'");
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0][0], std::to_string(baseload_id));
  EXPECT_FALSE(stored[0][1].empty());
  EXPECT_EQ(LeftContainers(), "");
}

}  // namespace
}  // namespace powersweep::testing
