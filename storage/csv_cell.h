// One CSV cell as the export writes it (RFC 4180 quoting), safe to open in
// a spreadsheet: a text cell that starts with `=`, `+`, `-`, `@`, a tab or
// a carriage return would be run as a formula ("CSV injection"), so it is
// neutralized by a leading single quote. A cell that is a plain decimal
// number ("-1.5", "+3", "-2e-05") is left as it is and stays a number.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_STORAGE_CSV_CELL_H_
#define POWERSWEEP_STORAGE_CSV_CELL_H_

#include <string>

#include "absl/strings/string_view.h"

namespace powersweep {

// True for [+-]digits[.digits][e[+-]digits] (also ".5", "5.").
bool IsPlainNumber(absl::string_view text);

// `value` with a leading `'` when a spreadsheet would read it as a formula.
std::string NeutralizeFormula(absl::string_view value);

// Appends `value` (neutralized) as one field: quoted when it holds a
// comma, a quote or a line break, quotes doubled.
void AppendCsvCell(absl::string_view value, std::string* out);

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_CSV_CELL_H_
