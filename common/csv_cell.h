// The one CSV cell writer of powersweep: every CSV the product writes goes
// through it (the export's runs/minibatches/telemetry.csv, every
// `--format=csv` table of the CLI, the report's FIGURE.csv, figures.csv and
// meta.csv, `variability --format=csv`).
//
// A cell is written with RFC 4180 quoting and is safe to open in a
// spreadsheet: a text cell that starts with `=`, `+`, `-`, `@`, a tab or a
// carriage return would be run as a formula ("CSV injection"), so it is
// neutralized by a leading single quote ("=1+2" -> "'=1+2"). A cell that is
// a plain decimal number ("-1.5", "+3", "-2e-05") is left as it is and
// stays a number, and so is a lone "-" (the CLI's "no value" mark; a sign
// with nothing after it computes nothing).
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_COMMON_CSV_CELL_H_
#define POWERSWEEP_COMMON_CSV_CELL_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace powersweep {

// True for [+-]digits[.digits][e[+-]digits] (also ".5", "5.").
bool IsPlainNumber(absl::string_view text);

// `value` with a leading `'` when a spreadsheet would read it as a formula.
std::string NeutralizeFormula(absl::string_view value);

// Appends `value` (neutralized) as one field: quoted when it holds a
// comma, a quote or a line break, quotes doubled.
void AppendCsvCell(absl::string_view value, std::string* out);

// One field as AppendCsvCell writes it.
std::string CsvCell(absl::string_view value);

// One record: the cells (each through AppendCsvCell) joined by commas,
// then "\n".
std::string CsvLine(const std::vector<std::string>& cells);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_CSV_CELL_H_
