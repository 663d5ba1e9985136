// One row of traces.csv (storage/run_trace_rows.h; docs/traces.md), for
// `powersweep traces` (trace_tables.h) and the report's trace figures
// (report_figures.h); read by TraceCsvReader (trace_csv.h).
#ifndef POWERSWEEP_CONTROLLER_CLI_TRACE_ROW_H_
#define POWERSWEEP_CONTROLLER_CLI_TRACE_ROW_H_

#include <cstdint>
#include <optional>
#include <string>

namespace powersweep {

struct TraceCsvRow {
  int64_t run_id = 0;
  int32_t attempt = 0;
  std::string kind;
  std::string name;
  std::string scope;
  std::optional<double> count;
  std::optional<double> bytes;
  std::optional<double> interval_mean_s;
  std::optional<double> interval_sd_s;
  std::string missing_reason;  // "" on figures
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_TRACE_ROW_H_
