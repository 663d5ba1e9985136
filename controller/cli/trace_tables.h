// `powersweep traces --sweep ID [--top N]`: a sweep's kernel event traces
// (docs/traces.md) per matrix cell, as the Appl. Sci. '23 study tabulates
// them (its Table 5: the most frequent system calls; Tables 9 and 10:
// write-backs by reason with their share): per cell (the runs that differ
// only in repetition, labelled as the report's figures label them) and figure, the
// runs it comes from (those the kind was collected for: a run without a
// row of it had none of it, a run for which it is missing does not
// count), the mean count per run, its share of the kind's
// total in the cell (write-back reasons: of the `all` row), block MiB per
// run, and for write-backs the mean over runs of each run's mean and
// standard deviation of the intervals between starts. Syscalls show the
// cell's `top` most frequent (all when 0); a trace that could not be
// collected is one row naming why ("missing: ..."). Only each run's
// current attempt counts.
//
// TracesTable is pure; CmdTraces fetches the runs (ListRuns) and the
// traces (the Export stream's `traces` table).
#ifndef POWERSWEEP_CONTROLLER_CLI_TRACE_TABLES_H_
#define POWERSWEEP_CONTROLLER_CLI_TRACE_TABLES_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "controller/cli/commands.h"
#include "controller/cli/format.h"
#include "controller/cli/trace_csv.h"
#include "powersweep/v1/control.grpc.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

Table TracesTable(const std::vector<v1::RunStatus>& runs,
                  const std::vector<TraceCsvRow>& traces, int top);

int CmdTraces(v1::Control::StubInterface* stub, const CliOptions& opt, int top,
              std::ostream& out, std::ostream& err);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_TRACE_TABLES_H_
