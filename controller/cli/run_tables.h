// Tables the CLI prints about runs: one row per run (`runs`), and one row
// per cell of the matrix aggregated over its repetitions (`summary`).
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CLI_RUN_TABLES_H_
#define POWERSWEEP_CONTROLLER_CLI_RUN_TABLES_H_

#include <string>
#include <vector>

#include "common/enum_text.h"
#include "controller/cli/format.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

// Cores other processes kept busy during a run (RunSummary.
// other_cpu_cores) from which `runs` flags the host as busy (host_busy
// "yes"): a quarter of a core is more than an idle machine's background.
inline constexpr double kBusyHostCores = 0.25;

Table RunsTable(const std::vector<::powersweep::v1::RunStatus>& runs);
// Cells group runs equal in everything but repetition and attempt; mean and
// standard deviation over the cell's done runs.
Table SummaryTable(const std::vector<::powersweep::v1::RunStatus>& runs);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_RUN_TABLES_H_
