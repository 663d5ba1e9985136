#include "storage/run_trace_rows.h"

#include "common/enum_text.h"

namespace powersweep {

std::vector<RunTraceRow> RunTraceRows(const v1::RunTraces& traces) {
  std::vector<RunTraceRow> rows;
  for (const v1::TraceCount& c : traces.counts()) {
    RunTraceRow r;
    r.kind = TraceText(c.kind());
    r.name = c.name();
    r.scope = c.system_wide() ? "system" : "workload";
    r.count = c.count();
    if (c.kind() == v1::TRACE_BLOCK) r.bytes = c.bytes();
    if (c.interval_count() > 0) {
      r.interval_count = c.interval_count();
      r.interval_mean_s = c.interval_mean_s();
      r.interval_sd_s = c.interval_sd_s();
      r.interval_p50_s = c.interval_p50_s();
      r.interval_max_s = c.interval_max_s();
    }
    rows.push_back(std::move(r));
  }
  for (const v1::TraceMissing& m : traces.missing()) {
    RunTraceRow r;
    r.kind = TraceText(m.kind());
    r.scope = m.kind() == v1::TRACE_BLOCK || m.kind() == v1::TRACE_WRITEBACK
                  ? "system"
                  : "workload";
    r.missing_reason = m.reason();
    rows.push_back(std::move(r));
  }
  return rows;
}

const std::vector<std::string>& RunTraceColumns() {
  static const auto* const kColumns = new std::vector<std::string>{
      "run_id",          "attempt",        "kind",
      "name",            "scope",          "count",
      "bytes",           "interval_count", "interval_mean_s",
      "interval_sd_s",   "interval_p50_s", "interval_max_s",
      "missing_reason"};
  return *kColumns;
}

}  // namespace powersweep
