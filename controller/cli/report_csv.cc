#include "controller/cli/report_csv.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace powersweep {

void CsvRecordSplitter::Feed(absl::string_view text) {
  for (char c : text) {
    if (in_quotes_) {
      if (c == '"') {
        in_quotes_ = false;
        after_quote_ = true;
      } else {
        field_.push_back(c);
      }
      continue;
    }
    if (c == '"') {
      if (after_quote_) field_.push_back('"');  // "" inside quotes
      in_quotes_ = true;
      after_quote_ = false;
      any_ = true;
      continue;
    }
    after_quote_ = false;
    if (c == ',') {
      fields_.push_back(std::move(field_));
      field_.clear();
      any_ = true;
    } else if (c == '\n') {
      EndRecord();
    } else if (c != '\r') {
      field_.push_back(c);
      any_ = true;
    }
  }
}

void CsvRecordSplitter::Finish() {
  if (any_ || !field_.empty()) EndRecord();
}

void CsvRecordSplitter::EndRecord() {
  fields_.push_back(std::move(field_));
  field_.clear();
  if (any_ || fields_.size() > 1 || !fields_.front().empty()) {
    on_record_(fields_);
  }
  fields_.clear();
  any_ = false;
  after_quote_ = false;
}

TelemetryCsvReader::TelemetryCsvReader()
    : splitter_([this](const std::vector<std::string>& f) { OnRecord(f); }) {}

absl::Status TelemetryCsvReader::Finish() {
  splitter_.Finish();
  return status_;
}

void TelemetryCsvReader::OnRecord(const std::vector<std::string>& fields) {
  if (!status_.ok()) return;
  static const char* const kNeeded[] = {"run_id",   "attempt",  "t_s",
                                        "cpu_util", "gpu_util", "power_mw",
                                        "power_provenance"};
  if (!have_header_) {
    for (size_t i = 0; i < fields.size(); ++i) columns_[fields[i]] = i;
    for (const char* name : kNeeded) {
      if (!columns_.count(name)) {
        status_ = absl::InvalidArgumentError(absl::StrCat(
            "telemetry export: the header has no column '", name, "'"));
        return;
      }
    }
    have_header_ = true;
    return;
  }
  auto cell = [&](const char* name) -> const std::string& {
    static const std::string kEmpty;
    const size_t i = columns_[name];
    return i < fields.size() ? fields[i] : kEmpty;
  };
  auto number = [&](const char* name) {
    double v = 0;
    if (!cell(name).empty() && !absl::SimpleAtod(cell(name), &v)) v = 0;
    return v;
  };
  TelemetryRow row;
  row.run_id = static_cast<int64_t>(number("run_id"));
  row.attempt = static_cast<int32_t>(number("attempt"));
  row.t_s = number("t_s");
  row.cpu_util = number("cpu_util");
  row.gpu_util = number("gpu_util");
  row.power_mw = number("power_mw");
  row.provenance = cell("power_provenance");
  rows_.push_back(std::move(row));
}

}  // namespace powersweep
