// Every CSV the CLI writes neutralizes spreadsheet formulas: `runs`,
// `summary`, `devices` and `variability` with --format=csv, and the
// report's FIGURE.csv and meta.csv. A device id, a hostname, a failure
// reason or a model name that starts with `=`, `+`, `-` or `@` comes out
// with a leading `'` (the cell a spreadsheet shows as text), while numbers,
// negative ones included, and the "-" of a missing value stay as they are.
// The CSV is read back with the CLI's own RFC 4180 reader
// (CsvRecordSplitter), so quoting is undone exactly as a spreadsheet would.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/cli/format.h"
#include "controller/cli/lab_commands.h"
#include "controller/cli/report_command.h"
#include "controller/cli/report_csv.h"
#include "controller/cli/run_tables.h"
#include "controller/cli/variability_format.h"
#include "gtest/gtest.h"
#include "tests/common/test_dir.h"
#include "tests/controller/cli/done_run.h"

namespace powersweep {
namespace {

// Rows of CSV text as maps column -> cell (what a spreadsheet shows).
std::vector<std::map<std::string, std::string>> ReadCsv(
    const std::string& text) {
  std::vector<std::vector<std::string>> records;
  CsvRecordSplitter splitter(
      [&](const std::vector<std::string>& f) { records.push_back(f); });
  splitter.Feed(text);
  splitter.Finish();
  std::vector<std::map<std::string, std::string>> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    auto& row = rows.emplace_back();
    for (size_t c = 0; c < records[0].size() && c < records[r].size(); ++c) {
      row[records[0][c]] = records[r][c];
    }
  }
  return rows;
}

std::string CsvOf(const Table& t) { return RenderTable(t, OutputFormat::kCsv); }

TEST(CsvFormulaTest, RunsNeutralizesDeviceIdAndReasonButKeepsNumbers) {
  v1::RunStatus failed = DoneRun(7, 0.01, 2.5, 0);
  failed.set_state(v1::RUN_STATE_FAILED);
  failed.set_device_id("=HYPERLINK(\"http://x\",\"y\")");
  failed.set_reason("=2+3");
  v1::RunStatus done = DoneRun(8, 0.01, 2.5, 12.5);
  done.set_device_id("@SUM(A1:A2)");
  done.mutable_summary()->set_baseload_run_id(3);
  done.mutable_summary()->set_incremental_energy_j(-5.0);
  const std::string csv = CsvOf(RunsTable({failed, done}));
  const auto rows = ReadCsv(csv);
  ASSERT_EQ(rows.size(), 2u) << csv;
  EXPECT_EQ(rows[0].at("device"), "'=HYPERLINK(\"http://x\",\"y\")");
  EXPECT_EQ(rows[0].at("reason"), "'=2+3");
  EXPECT_EQ(rows[0].at("energy_j"), "-");  // missing, not "'-"
  EXPECT_EQ(rows[1].at("device"), "'@SUM(A1:A2)");
  EXPECT_EQ(rows[1].at("incr_energy_j"), "-5.0");  // a number stays one
  EXPECT_EQ(rows[1].at("energy_j"), "12.5");
}

TEST(CsvFormulaTest, SummaryNeutralizesTextAndSignedMeanSdCells) {
  v1::RunStatus a = DoneRun(1, 0.01, 2.5, 12.5);
  a.mutable_spec()->mutable_workload()->set_model("-cmd");
  a.mutable_summary()->set_baseload_run_id(3);
  a.mutable_summary()->set_incremental_energy_j(-1.0);
  v1::RunStatus b = a;
  b.mutable_spec()->set_run_id(2);
  b.mutable_summary()->set_incremental_energy_j(-2.0);
  const std::string csv = CsvOf(SummaryTable({a, b}));
  const auto rows = ReadCsv(csv);
  ASSERT_EQ(rows.size(), 1u) << csv;
  EXPECT_EQ(rows[0].at("model"), "'-cmd/");
  // "-1.5 ± 0.7" is not a number; a spreadsheet would parse it as a formula.
  EXPECT_EQ(rows[0].at("incr_energy_j"), "'-1.5 ± 0.7");
  EXPECT_EQ(rows[0].at("energy_j"), "12.5 ± 0.0");
  EXPECT_EQ(rows[0].at("failed"), "0");
}

TEST(CsvFormulaTest, DevicesNeutralizesDeviceIdAndHostname) {
  v1::ListDevicesResponse resp;
  v1::DeviceStatus* d = resp.add_devices();
  d->mutable_identity()->set_device_id("+orin");
  d->mutable_identity()->set_device_class("orin-agx");
  d->mutable_identity()->set_platform("twin");
  d->mutable_identity()->set_hostname("=cmd|' /C calc'!A0");
  d->mutable_capabilities()->set_cpu_cores(12);
  d->set_connected(true);
  const std::string csv = CsvOf(DevicesTable(resp, absl::UTCTimeZone()));
  const auto rows = ReadCsv(csv);
  ASSERT_EQ(rows.size(), 1u) << csv;
  EXPECT_EQ(rows[0].at("device"), "'+orin");
  EXPECT_EQ(rows[0].at("host"), "'=cmd|' /C calc'!A0");
  EXPECT_EQ(rows[0].at("cores"), "12");
  EXPECT_EQ(rows[0].at("current_run"), "-");
  // The raw text: the cell starts with the quote, nothing before it.
  EXPECT_NE(csv.find("\n'+orin,orin-agx,twin,'=cmd|' /C calc'!A0,12,"),
            std::string::npos)
      << csv;
}

TEST(CsvFormulaTest, VariabilityNeutralizesDeviceIdAndCellLabel) {
  v1::VariabilityResponse r;
  v1::VariabilityCell* cell = r.add_cells();
  cell->set_label("=1+1");
  v1::VariabilityMetricReport* m = cell->add_metrics();
  m->set_name("energy");
  m->set_unit("J");
  v1::VariabilityDeviceStats* d = m->add_devices();
  d->set_device_id("-2+3");
  d->set_n(2);
  d->set_mean(-4.5);
  const auto rows = ReadCsv(VariabilityCsv(r));
  ASSERT_GE(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("cell"), "'=1+1");
  EXPECT_EQ(rows[0].at("device"), "'-2+3");
  EXPECT_EQ(rows[0].at("mean"), "-4.5");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CsvFormulaTest, ReportFilesNeutralizeFigureCellsNotesAndMeta) {
  const std::string dir = MakeTestDir("csv-formula");
  FigureTable f;
  f.name = "variability";
  f.table.header = {"cell", "device_id", "energy_j"};
  f.table.numeric = {false, false, true};
  f.table.rows = {{"orin-agx lenet5", "=orin-0", "-3.25"}};
  f.note = "@note";
  auto written = WriteFigureData(dir, {f}, {{"sweep_name", "=SUM(1,2)"}});
  ASSERT_TRUE(written.ok()) << written.status();

  const auto figure = ReadCsv(ReadFile(dir + "/variability.csv"));
  ASSERT_EQ(figure.size(), 1u);
  EXPECT_EQ(figure[0].at("device_id"), "'=orin-0");
  EXPECT_EQ(figure[0].at("energy_j"), "-3.25");
  const auto index = ReadCsv(ReadFile(dir + "/figures.csv"));
  ASSERT_EQ(index.size(), 1u);
  EXPECT_EQ(index[0].at("note"), "'@note");
  const std::string meta_text = ReadFile(dir + "/meta.csv");
  const auto meta = ReadCsv(meta_text);
  ASSERT_EQ(meta.size(), 1u);
  EXPECT_EQ(meta[0].at("value"), "'=SUM(1,2)");
  EXPECT_NE(meta_text.find("sweep_name,\"'=SUM(1,2)\"\n"), std::string::npos)
      << meta_text;
}

}  // namespace
}  // namespace powersweep
