#include "common/metrics/exposition.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace powersweep {
namespace {

bool NameChar(char c, bool first, bool colon_ok) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         (colon_ok && c == ':') ||
         (!first && absl::ascii_isdigit(static_cast<unsigned char>(c)));
}

// A label name: like a metric name without ':'.
std::string SanitizeLabelName(absl::string_view name) {
  std::string out;
  if (name.empty() ||
      absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) {
    out.push_back('_');
  }
  for (char c : name) out.push_back(NameChar(c, false, false) ? c : '_');
  return out;
}

// Escapes `\` and newlines (HELP), and `"` too for label values.
std::string Escape(absl::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

std::string SanitizeMetricName(absl::string_view name) {
  std::string out;
  if (name.empty() ||
      absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) {
    out.push_back('_');
  }
  for (char c : name) out.push_back(NameChar(c, false, true) ? c : '_');
  return out;
}

std::string FormatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  // The shortest of %.15g / %.17g that reads back as the same double.
  std::string shortest = absl::StrFormat("%.15g", value);
  if (std::strtod(shortest.c_str(), nullptr) == value) return shortest;
  return absl::StrFormat("%.17g", value);
}

void ExpositionWriter::Begin(absl::string_view name, MetricType type,
                             absl::string_view help) {
  family_ = SanitizeMetricName(name);
  skipping_ = !families_.insert(family_).second;
  if (skipping_) return;
  absl::StrAppend(&text_, "# HELP ", family_, " ", Escape(help, false), "\n",
                  "# TYPE ", family_, " ", TypeName(type), "\n");
}

void ExpositionWriter::Line(absl::string_view suffix,
                            const MetricLabels& labels, double value) {
  if (skipping_ || family_.empty()) return;
  absl::StrAppend(&text_, family_, suffix);
  if (!labels.empty()) {
    text_.push_back('{');
    for (size_t i = 0; i < labels.size(); ++i) {
      absl::StrAppend(&text_, i > 0 ? "," : "",
                      SanitizeLabelName(labels[i].first), "=\"",
                      Escape(labels[i].second, true), "\"");
    }
    text_.push_back('}');
  }
  absl::StrAppend(&text_, " ", FormatMetricValue(value), "\n");
}

void ExpositionWriter::Sample(const MetricLabels& labels, double value) {
  Line("", labels, value);
}

void ExpositionWriter::Histogram(const MetricLabels& labels,
                                 const HistogramSnapshot& h) {
  MetricLabels with_le = labels;
  with_le.emplace_back("le", "");
  for (size_t i = 0; i < h.bounds.size() && i < h.cumulative.size(); ++i) {
    with_le.back().second = FormatMetricValue(h.bounds[i]);
    Line("_bucket", with_le, static_cast<double>(h.cumulative[i]));
  }
  with_le.back().second = "+Inf";
  Line("_bucket", with_le, static_cast<double>(h.count));
  Line("_sum", labels, h.sum);
  Line("_count", labels, static_cast<double>(h.count));
}

}  // namespace powersweep
