#include "controller/cli/trace_csv.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace powersweep {

TraceCsvReader::TraceCsvReader()
    : splitter_([this](const std::vector<std::string>& f) { OnRecord(f); }) {}

absl::Status TraceCsvReader::Finish() {
  splitter_.Finish();
  return status_;
}

void TraceCsvReader::OnRecord(const std::vector<std::string>& f) {
  if (!status_.ok()) return;
  if (columns_.empty()) {
    for (size_t i = 0; i < f.size(); ++i) columns_[f[i]] = i;
    for (const char* need :
         {"run_id", "attempt", "kind", "name", "scope", "count", "bytes",
          "interval_mean_s", "interval_sd_s", "missing_reason"}) {
      if (!columns_.count(need)) {
        status_ = absl::InvalidArgumentError(
            absl::StrCat("traces.csv has no column '", need, "'"));
        return;
      }
    }
    return;
  }
  auto cell = [&](const char* name) -> std::string {
    const size_t i = columns_[name];
    return i < f.size() ? f[i] : std::string();
  };
  auto number = [&](const char* name) -> std::optional<double> {
    double v = 0;
    if (absl::SimpleAtod(cell(name), &v)) return v;
    return std::nullopt;
  };
  TraceCsvRow row;
  if (!absl::SimpleAtoi(cell("run_id"), &row.run_id) ||
      !absl::SimpleAtoi(cell("attempt"), &row.attempt)) {
    return;
  }
  row.kind = cell("kind");
  row.name = cell("name");
  row.scope = cell("scope");
  row.count = number("count");
  row.bytes = number("bytes");
  row.interval_mean_s = number("interval_mean_s");
  row.interval_sd_s = number("interval_sd_s");
  row.missing_reason = cell("missing_reason");
  rows_.push_back(std::move(row));
}

}  // namespace powersweep
