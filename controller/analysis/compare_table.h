// A comparison (compare.h) as the table and warning lines `powersweep
// compare` prints. Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_TABLE_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_TABLE_H_

#include <string>
#include <vector>

#include "controller/analysis/compare.h"

namespace powersweep {

// A header and one row of strings per cell and metric, numbers already
// formatted; `numeric` marks the number columns.
// Columns: cell, metric, unit, n <b>, mean <b>, 95% CI <b>, n <o>,
// mean <o>, 95% CI <o>, diff %, 95% CI diff %, p (Welch), significant,
// where <b>/<o> are the side labels ("native", "container"). A missing
// figure is "-"; significant is "yes", "no" or "-" (not tested).
struct ComparisonTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;
};
ComparisonTable ToTable(const Comparison& comparison);

// Every warning as one line, "<cell label>: <warning>" for a cell's.
std::vector<std::string> WarningLines(const Comparison& comparison);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_TABLE_H_
