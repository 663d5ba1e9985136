// traces.csv (storage/run_trace_rows.h; docs/traces.md) as the Export
// stream sends it, read into rows for `powersweep traces` and the report's
// trace figures. Not thread-safe; one reader per stream.
#ifndef POWERSWEEP_CONTROLLER_CLI_TRACE_CSV_H_
#define POWERSWEEP_CONTROLLER_CLI_TRACE_CSV_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "controller/cli/report_csv.h"
#include "controller/cli/trace_row.h"

namespace powersweep {

// Header first; a header without one of the columns above is
// InvalidArgument naming it. Rows whose run_id or attempt is not a number
// are skipped.
class TraceCsvReader {
 public:
  TraceCsvReader();
  void Feed(absl::string_view text) { splitter_.Feed(text); }
  absl::Status Finish();
  std::vector<TraceCsvRow>& rows() { return rows_; }

 private:
  void OnRecord(const std::vector<std::string>& fields);

  CsvRecordSplitter splitter_;
  std::map<std::string, size_t> columns_;
  absl::Status status_;
  std::vector<TraceCsvRow> rows_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_TRACE_CSV_H_
