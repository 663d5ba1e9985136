// Output formatting for the powersweep CLI: aligned text tables, CSV (every
// cell through common/csv_cell.h: RFC 4180 quoting, spreadsheet formulas
// neutralized), JSON arrays of flat objects, and the progress line of
// `watch`.
// JSON is typed from the text cells: "-" and empty cells are null; cells of
// numeric columns are numbers ("+1.25" too); "[low, high]" intervals are
// two-number arrays; a column of "mean ± sd" cells is two fields, NAME and
// NAME_sd; a numeric column of "done/total" counts is NAME and NAME_total.
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CLI_FORMAT_H_
#define POWERSWEEP_CONTROLLER_CLI_FORMAT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "powersweep/v1/sweep.pb.h"

namespace powersweep {

enum class OutputFormat { kTable, kCsv, kJson };

// "table", "csv" or "json"; InvalidArgument naming --format otherwise.
absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& name);

// A header and rows of cells (all strings, already formatted).
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Columns whose cells are numbers (right-aligned, unquoted in JSON).
  std::vector<bool> numeric;
  // Columns whose cells are "mean ± sd" (JSON: NAME and NAME_sd), so they
  // are split even when no row has two values. A column where some cell
  // holds " ± " is split without being listed.
  std::vector<bool> mean_sd;
};

std::string RenderTable(const Table& table, OutputFormat format);

// A JSON string literal: quoted, with quotes, backslashes and control
// characters escaped.
std::string JsonString(const std::string& s);

// "[#######.......]  7/16 done  1 failed  1 running  elapsed 0:42  left ~0:51"
// `elapsed_s` since the sweep was created.
std::string ProgressLine(const ::powersweep::v1::SweepStatus& status,
                         double elapsed_s);

// 75 -> "1:15", 3725 -> "1:02:05".
std::string FormatDuration(double seconds);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_FORMAT_H_
