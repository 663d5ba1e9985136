// The rows of table run_traces (schema 17) and of traces.csv for one run
// attempt's kernel event traces (RunResult.traces, proto/powersweep/v1/
// traces.proto): one row per aggregated figure (TraceCount) and one per
// trace that was asked for and not collected (TraceMissing: name "", count
// NULL, missing_reason set). Both stores build their rows here, so SQLite's
// table and the memory store's export agree cell for cell.
//
// Columns (docs/traces.md): kind (syscalls, block, writeback, page_faults,
// sched), name, scope ('workload': the workload's processes; 'system':
// every process), count, bytes (block only, else NULL), interval_count and
// interval_mean_s/sd_s/p50_s/max_s (writeback reasons with two or more
// starts, else NULL), missing_reason (NULL for figures). Pure; thread-safe.
#ifndef POWERSWEEP_STORAGE_RUN_TRACE_ROWS_H_
#define POWERSWEEP_STORAGE_RUN_TRACE_ROWS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "powersweep/v1/traces.pb.h"

namespace powersweep {

struct RunTraceRow {
  std::string kind;
  std::string name;
  std::string scope;
  std::optional<int64_t> count;
  std::optional<int64_t> bytes;
  std::optional<int64_t> interval_count;
  std::optional<double> interval_mean_s;
  std::optional<double> interval_sd_s;
  std::optional<double> interval_p50_s;
  std::optional<double> interval_max_s;
  std::optional<std::string> missing_reason;
};

std::vector<RunTraceRow> RunTraceRows(const v1::RunTraces& traces);

// The CSV header of traces.csv.
const std::vector<std::string>& RunTraceColumns();

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_RUN_TRACE_ROWS_H_
