// ExpositionWriter: builds a page in Prometheus' text exposition format
// (version 0.0.4, the body of a /metrics response):
//
//   # HELP powersweep_runs Runs in the database by state.
//   # TYPE powersweep_runs gauge
//   powersweep_runs{state="done"} 16
//
// Begin() opens a family (its HELP and TYPE lines); the samples that follow
// belong to it. A family appears once per page: a second Begin() of the
// same name is ignored together with its samples, so a page never names a
// family twice. Names are sanitized rather than rejected (they come from
// code; a character outside [a-zA-Z0-9_:] becomes '_', a leading digit
// gets a '_' before it); label values and HELP text are escaped as the
// format requires (\\, \" in label values, \n). Values print as integers
// when integral, else with up to 17 significant digits; NaN and +/-Inf as
// NaN, +Inf, -Inf.
//
// Not thread-safe: one writer per page (build it on the scraping thread).
#ifndef POWERSWEEP_COMMON_METRICS_EXPOSITION_H_
#define POWERSWEEP_COMMON_METRICS_EXPOSITION_H_

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/metrics/histogram.h"

namespace powersweep {

// The Content-Type of a page.
inline constexpr char kExpositionContentType[] =
    "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { kCounter, kGauge, kHistogram };

// Label name/value pairs, in the order they are printed.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class ExpositionWriter {
 public:
  // Opens family `name` of `type` with `help`.
  void Begin(absl::string_view name, MetricType type, absl::string_view help);
  // A sample of the open family: `name` itself (counters: name it with
  // the _total suffix in Begin).
  void Sample(const MetricLabels& labels, double value);
  void Sample(double value) { Sample({}, value); }
  // The _bucket (cumulative, le="..." appended to `labels`, ending with
  // le="+Inf"), _sum and _count samples of a histogram family.
  void Histogram(const MetricLabels& labels, const HistogramSnapshot& h);

  // The page so far.
  const std::string& text() const { return text_; }

 private:
  void Line(absl::string_view suffix, const MetricLabels& labels, double value);

  std::string text_;
  std::string family_;  // sanitized name of the open family
  bool skipping_ = false;
  std::set<std::string> families_;
};

// `name` with every character outside [a-zA-Z0-9_:] replaced by '_' and a
// '_' before a leading digit ("" becomes "_").
std::string SanitizeMetricName(absl::string_view name);
// A sample value as the format prints it.
std::string FormatMetricValue(double value);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_METRICS_EXPOSITION_H_
