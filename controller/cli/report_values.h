// What the report's figure files (report_figures.cc,
// report_telemetry_figures.cc) share: a number as the figure CSVs write
// it, and which runs are the sweep's done workload runs.
#ifndef POWERSWEEP_CONTROLLER_CLI_REPORT_VALUES_H_
#define POWERSWEEP_CONTROLLER_CLI_REPORT_VALUES_H_

#include <string>

#include "absl/strings/str_format.h"
#include "powersweep/v1/control.pb.h"

namespace powersweep {

// Six significant digits.
inline std::string ReportNumber(double v) {
  return absl::StrFormat("%.6g", v);
}

// Done, and not a baseload run.
inline bool IsDoneWorkloadRun(const v1::RunStatus& r) {
  return r.state() == v1::RUN_STATE_DONE &&
         r.spec().workload().task() != v1::TASK_BASELOAD;
}

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_REPORT_VALUES_H_
