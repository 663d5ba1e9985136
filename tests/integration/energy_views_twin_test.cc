// One number, one definition: a real controller, two Orin AGX twin agents
// and the CLI. Sweep "before" trains on both twins with no baseload
// measured yet; sweep "measured" then measures a baseload on each twin and
// trains again. For every run, the incremental energy in the database
// (run_results.incremental_energy_j) is what `runs`, `summary`, `compare
// --by device`, `export` (runs.csv) and `report` (energy_split.csv) show:
// a value for the runs of "measured", nothing anywhere for the runs of
// "before" (a baseload measured after a run never counts). Mean power in
// `runs` is energy over the span it covers.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"
#include "tests/integration/subprocess.h"

namespace powersweep::testing {
namespace {

const std::vector<std::string> kTwins = {"orin-agx-twin-0", "orin-agx-twin-1"};

Finished RunCli(const LocalFleet& fleet, std::vector<std::string> args) {
  static int n = 0;
  args.insert(args.begin(),
              {POWERSWEEP_CLI_BIN, "--controller=" + fleet.address()});
  return RunToEnd(args, fleet.dir() + "/cli-" + std::to_string(++n) + ".log",
                  120);
}

// Rows of RFC 4180 CSV text as maps column -> cell (quoted cells may hold
// commas, quotes and newlines).
std::vector<std::map<std::string, std::string>> ParseCsv(
    const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      rows.back().push_back(cell);
      cell.clear();
      rows.emplace_back();
    } else if (c != '\r') {
      cell += c;
    }
    any = true;
  }
  if (!cell.empty() || (any && !rows.back().empty())) rows.back().push_back(cell);
  std::vector<std::map<std::string, std::string>> out;
  if (rows.empty()) return out;
  const std::vector<std::string> header = rows.front();
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].empty()) continue;
    std::map<std::string, std::string>& row = out.emplace_back();
    for (size_t i = 0; i < header.size() && i < rows[r].size(); ++i) {
      row[header[i]] = rows[r][i];
    }
  }
  return out;
}

std::vector<std::map<std::string, std::string>> CliCsv(
    const LocalFleet& fleet, const std::vector<std::string>& args) {
  std::vector<std::string> with = args;
  with.push_back("--format=csv");
  Finished f = RunCli(fleet, with);
  EXPECT_EQ(f.exit_code, 0) << f.output;
  // Warnings go to stderr, which Finished mixes in: keep the table, from
  // its header line on (rows of other lines lack the columns read).
  const size_t start = f.output.find(args.front() == "compare" ? "cell," : "");
  return ParseCsv(f.output.substr(start == std::string::npos ? 0 : start));
}

// The cell of `column`, "" when the row has none.
std::string Get(const std::map<std::string, std::string>& row,
                const std::string& column) {
  auto it = row.find(column);
  return it == row.end() ? "" : it->second;
}

// A table's missing value: "-" in the CLI's CSV, empty in export's.
bool Missing(const std::string& cell) { return cell.empty() || cell == "-"; }

// The number in a cell; a "mean ± sd" cell's mean. NaN when none.
double Num(const std::string& cell) {
  double v = NAN;
  const std::string mean = cell.substr(0, cell.find(" ±"));
  if (!absl::SimpleAtod(mean, &v)) return NAN;
  return v;
}

v1::SweepSpec Sweep(const std::string& name, bool baseload) {
  v1::SweepSpec spec = OrinTwinSweep(name, v1::TASK_TRAIN, 1, 60);
  spec.set_placement(v1::PLACEMENT_EVERY_DEVICE);
  spec.set_telemetry_hz(50);
  if (baseload) {
    // Twins idle this long in wall time; a train run stops at 60
    // minibatches or 1 s of simulated time, whichever comes first.
    spec.add_tasks(v1::TASK_BASELOAD);
    spec.set_duration_s(1.0);
  }
  return spec;
}

TEST(EnergyViewsTwinTest, EveryViewShowsTheStoredIncrementalEnergy) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  for (size_t i = 0; i < kTwins.size(); ++i) {
    fleet.StartAgent(kTwins[i], {"--platform=twin", "--device_class=orin-agx",
                                 "--instance=" + std::to_string(i),
                                 "--twin_seed=" + std::to_string(11 + i),
                                 "--twin_time_scale=0", "--log_level=warning"});
  }
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        int n = 0;
        for (const v1::DeviceStatus& d : fleet.ListDevices()) n += d.connected();
        return n == static_cast<int>(kTwins.size());
      },
      30))
      << fleet.Logs();
  std::map<std::string, int64_t> sweeps;
  for (const auto& [name, baseload] :
       std::vector<std::pair<std::string, bool>>{{"before", false},
                                                 {"measured", true}}) {
    std::string error;
    const int64_t id = fleet.Submit(Sweep(name, baseload), &error);
    ASSERT_GT(id, 0) << error;
    ASSERT_TRUE(LocalFleet::WaitFor(
        [&] { return fleet.GetSweep(id).finished(); }, 120))
        << fleet.Logs();
    ASSERT_EQ(fleet.GetSweep(id).failed(), 0) << fleet.Logs();
    sweeps[name] = id;
  }

  for (const auto& [name, sweep] : sweeps) {
    SCOPED_TRACE(name);
    const bool measured = name == "measured";
    const std::string sweep_arg = "--sweep=" + std::to_string(sweep);
    // The database: run id -> stored incremental energy ("" = NULL), and the
    // device each train run ran on.
    std::map<std::string, std::string> stored, device_of;
    for (const auto& row : Query(
             fleet.db_path(),
             "SELECT r.run_id, r.device_id, res.incremental_energy_j"
             " FROM runs r JOIN run_results res ON res.run_id = r.run_id"
             " AND res.attempt = r.attempt WHERE r.sweep_id = " +
                 std::to_string(sweep) + " AND r.task = 'train'")) {
      ASSERT_EQ(row.size(), 3u) << row.at(0);
      stored[row[0]] = row[2];
      device_of[row[0]] = row[1];
    }
    ASSERT_EQ(stored.size(), kTwins.size());
    std::map<std::string, double> by_device;
    double sum = 0;
    for (const auto& [run, value] : stored) {
      if (!measured) {
        EXPECT_EQ(value, "") << "run " << run;
        continue;
      }
      ASSERT_FALSE(value.empty()) << "run " << run;
      by_device[device_of[run]] = Num(value);
      sum += Num(value);
    }
    const double cell_mean = sum / static_cast<double>(stored.size());

    // runs: one decimal; power_w is energy over the span it covers.
    int train_rows = 0;
    for (const auto& row : CliCsv(fleet, {"runs", sweep_arg})) {
      if (Get(row, "task") != "train") continue;
      ++train_rows;
      const std::string want = stored[Get(row, "run")];
      if (!measured) {
        EXPECT_TRUE(Missing(Get(row, "incr_energy_j"))) << "run " << Get(row, "run");
        continue;
      }
      EXPECT_NEAR(Num(Get(row, "incr_energy_j")), Num(want), 0.051)
          << "run " << Get(row, "run");
    }
    EXPECT_EQ(train_rows, static_cast<int>(kTwins.size()));

    // summary: the cell's mean.
    int cells = 0;
    for (const auto& row : CliCsv(fleet, {"summary", sweep_arg})) {
      if (Get(row, "task") != "train") continue;
      ++cells;
      if (!measured) {
        EXPECT_TRUE(Missing(Get(row, "incr_energy_j"))) << Get(row, "incr_energy_j");
      } else {
        EXPECT_NEAR(Num(Get(row, "incr_energy_j")), cell_mean, 0.051);
      }
    }
    EXPECT_EQ(cells, 1);

    // compare --by device: each twin's side has its one run's value.
    int compared = 0;
    for (const auto& row :
         CliCsv(fleet, {"compare", sweep_arg, "--by=device",
                        "--devices=" + kTwins[0] + "," + kTwins[1]})) {
      if (Get(row, "metric") != "incremental energy") continue;
      ++compared;
      const std::string mean_a = Get(row, "mean " + kTwins[0]);
      const std::string mean_b = Get(row, "mean " + kTwins[1]);
      if (!measured) {
        EXPECT_TRUE(Missing(mean_a)) << mean_a;
        EXPECT_TRUE(Missing(mean_b)) << mean_b;
        continue;
      }
      EXPECT_NEAR(Num(mean_a), by_device[kTwins[0]],
                  1e-3 * std::fabs(by_device[kTwins[0]]) + 1e-9);
      EXPECT_NEAR(Num(mean_b), by_device[kTwins[1]],
                  1e-3 * std::fabs(by_device[kTwins[1]]) + 1e-9);
    }
    // Without a stored baseload no run has the metric: compare leaves it
    // out rather than showing one.
    EXPECT_EQ(compared, measured ? 1 : 0);

    // export: runs.csv, full precision.
    const std::string out = fleet.dir() + "/export-" + name;
    Finished exported = RunCli(fleet, {"export", sweep_arg, "--out=" + out});
    ASSERT_EQ(exported.exit_code, 0) << exported.output;
    int exported_train = 0;
    for (const auto& row : ParseCsv(ReadFile(out + "/runs.csv"))) {
      if (Get(row, "task") != "train") continue;
      ++exported_train;
      const std::string want = stored[Get(row, "run_id")];
      if (!measured) {
        EXPECT_TRUE(Missing(Get(row, "incremental_energy_j")));
      } else {
        EXPECT_NEAR(Num(Get(row, "incremental_energy_j")), Num(want), 1e-9);
      }
    }
    EXPECT_GE(exported_train, static_cast<int>(kTwins.size()));

    // report: energy_split.csv (the CSVs are written without matplotlib).
    const std::string report = fleet.dir() + "/report-" + name;
    RunCli(fleet, {"report", sweep_arg, "--out=" + report,
                   "--python=/nonexistent/python3"});
    const auto split = ParseCsv(ReadFile(report + "/energy_split.csv"));
    if (!measured) {
      EXPECT_TRUE(split.empty()) << "the energy split used a later baseload";
    } else {
      ASSERT_EQ(split.size(), 1u);
      EXPECT_NEAR(Num(Get(split[0], "incremental_j")), cell_mean,
                  1e-5 * std::fabs(cell_mean));
    }
  }

  // Mean power over the span the energy covers, from the stored result.
  for (const auto& row : CliCsv(fleet, {"runs", "--sweep=" +
                                                    std::to_string(sweeps["measured"])})) {
    const double want = QueryNumber(
        fleet.db_path(),
        "SELECT json_extract(result_json, '$.energy_j') /"
        " json_extract(result_json, '$.energy_span_s') FROM run_results"
        " WHERE run_id = " + Get(row, "run"));
    if (std::isnan(want) || want <= 0) continue;
    EXPECT_NEAR(Num(Get(row, "power_w")), want, 0.0051) << "run " << Get(row, "run");
    // What dividing by the run's duration would have shown.
    const double over_duration = QueryNumber(
        fleet.db_path(),
        "SELECT json_extract(result_json, '$.energy_j') /"
        " json_extract(result_json, '$.duration_s') FROM run_results"
        " WHERE run_id = " + Get(row, "run"));
    std::printf("run %s (%s): power_w %s; energy / span %.4f W; energy / "
                "duration %.4f W (%+.2f%%); incr_energy_j %s\n",
                Get(row, "run").c_str(), Get(row, "task").c_str(),
                Get(row, "power_w").c_str(), want, over_duration,
                100 * (over_duration / want - 1),
                Get(row, "incr_energy_j").c_str());
  }
}

}  // namespace
}  // namespace powersweep::testing
