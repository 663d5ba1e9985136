// Reading the CSV the Export call streams (RFC 4180: fields quoted when they
// hold a comma, a quote or a line break, quotes doubled) for `powersweep
// report`: a record splitter fed chunk by chunk, and a reader of the
// telemetry table into TelemetryRows by column name.
//
// Not thread-safe; one instance per stream.
#ifndef POWERSWEEP_CONTROLLER_CLI_REPORT_CSV_H_
#define POWERSWEEP_CONTROLLER_CLI_REPORT_CSV_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "controller/cli/report_figures.h"

namespace powersweep {

// Splits CSV text into records; text may be cut anywhere between Feed calls
// (a record is emitted once its line break arrives, "\r\n" or "\n").
class CsvRecordSplitter {
 public:
  using RecordFn = std::function<void(const std::vector<std::string>&)>;
  explicit CsvRecordSplitter(RecordFn on_record)
      : on_record_(std::move(on_record)) {}
  void Feed(absl::string_view text);
  // Emits a last record that had no line break.
  void Finish();

 private:
  void EndRecord();

  RecordFn on_record_;
  std::vector<std::string> fields_;
  std::string field_;
  bool in_quotes_ = false;
  bool after_quote_ = false;  // a quote closed; a second one is a literal
  bool any_ = false;          // the current record has a character
};

// Reads telemetry.csv (header first) into rows. Needs the columns run_id,
// attempt, t_s, cpu_util, gpu_util, power_mw, power_provenance; a header
// without one of them is InvalidArgument naming it; an empty cell reads 0.
class TelemetryCsvReader {
 public:
  TelemetryCsvReader();
  void Feed(absl::string_view text) { splitter_.Feed(text); }
  // Ends the stream; the first problem met, if any.
  absl::Status Finish();
  std::vector<TelemetryRow>& rows() { return rows_; }

 private:
  void OnRecord(const std::vector<std::string>& fields);

  CsvRecordSplitter splitter_;
  std::map<std::string, size_t> columns_;
  bool have_header_ = false;
  absl::Status status_;
  std::vector<TelemetryRow> rows_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_REPORT_CSV_H_
