// `powersweep report --sweep ID --out DIR [--run ID]`: gathers a sweep's
// runs, devices, fitted models (with their Pareto fronts) and telemetry
// through the Control API, writes each figure's numbers to DIR/FIGURE.csv
// (report_figures.h) with DIR/figures.csv (which figures are drawn, their
// captions or why they are left out) and DIR/meta.csv, then runs the
// plotting script (infra/report/plot_report.py, Debian's python3 with
// python3-matplotlib) that draws DIR/FIGURE.png and DIR/FIGURE.svg and
// writes DIR/index.html with every SVG inline (readable offline).
// docs/report.md describes every file.
//
// Thread-compatible (one command at a time).
#ifndef POWERSWEEP_CONTROLLER_CLI_REPORT_COMMAND_H_
#define POWERSWEEP_CONTROLLER_CLI_REPORT_COMMAND_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "controller/cli/commands.h"
#include "controller/cli/report_figures.h"

namespace powersweep {

struct ReportOptions {
  std::string out_dir;          // created if missing
  int64_t run_id = 0;           // the over-time figure's run; 0: the first
  std::string python = "/usr/bin/python3";
  std::string script;           // plot_report.py; "" = the built-in path
};

// The script path compiled in (the source tree's infra/report/).
std::string DefaultReportScript();

// Writes the figures' CSVs, figures.csv and meta.csv into `dir` (removing
// the files of figures now left out, so no stale figure survives); the
// files written, one path per entry.
absl::StatusOr<std::vector<std::string>> WriteFigureData(
    const std::string& dir, const std::vector<FigureTable>& figures,
    const std::vector<std::pair<std::string, std::string>>& meta);

int CmdReport(v1::Control::StubInterface* stub, const CliOptions& opt,
              const ReportOptions& report, std::ostream& out,
              std::ostream& err);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_REPORT_COMMAND_H_
