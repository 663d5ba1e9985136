// SeriesValue: the value of one series in a Prometheus text page, for
// tests that scrape /metrics. `series` is written as it appears on the
// page, e.g. "powersweep_runs{state=\"done\"}" or "powersweep_agent_run_id".
// Header-only; pure.
#ifndef POWERSWEEP_TESTS_COMMON_METRICS_SERIES_VALUE_H_
#define POWERSWEEP_TESTS_COMMON_METRICS_SERIES_VALUE_H_

#include <cstdlib>
#include <optional>
#include <string>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace powersweep::testing {

inline std::optional<double> SeriesValue(const std::string& page,
                                         const std::string& series) {
  for (absl::string_view line : absl::StrSplit(page, '\n')) {
    if (line.size() > series.size() &&
        line.substr(0, series.size()) == series && line[series.size()] == ' ') {
      return std::strtod(std::string(line.substr(series.size() + 1)).c_str(),
                         nullptr);
    }
  }
  return std::nullopt;
}

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_COMMON_METRICS_SERIES_VALUE_H_
