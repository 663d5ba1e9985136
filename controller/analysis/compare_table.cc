#include "controller/analysis/compare_table.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace powersweep {
namespace {

// Numbers for the table: 4 significant digits, plain notation for large
// values (counts, bytes) rather than exponents.
std::string Number(double v) {
  if (std::fabs(v) >= 1e4) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.4g", v);
}

// "+1.25"; rounding noise around 0 prints as "+0.00", never "-0.00".
std::string Percent(double v) {
  double rounded = std::round(v * 100) / 100;
  if (rounded == 0) rounded = 0;  // drops the sign of -0
  return absl::StrFormat("%+.2f", rounded);
}

std::string PValue(double p) {
  if (p >= 0.001) return absl::StrFormat("%.3f", p);
  if (p == 0) return "0";
  return absl::StrFormat("%.1e", p);
}

std::string Interval(bool has, double low, double high,
                     std::string (*format)(double)) {
  if (!has) return "-";
  return absl::StrCat("[", format(low), ", ", format(high), "]");
}

}  // namespace

ComparisonTable ToTable(const Comparison& comparison) {
  const std::string b = BaselineLabel(comparison.dimension);
  const std::string o = OtherLabel(comparison.dimension);
  ComparisonTable t;
  t.header = {"cell",
              "metric",
              "unit",
              absl::StrCat("n ", b),
              absl::StrCat("mean ", b),
              absl::StrCat("95% CI ", b),
              absl::StrCat("n ", o),
              absl::StrCat("mean ", o),
              absl::StrCat("95% CI ", o),
              "diff %",
              "95% CI diff %",
              "p (Welch)",
              "significant"};
  t.numeric = {false, false, false, true,  true, false, true,
               true,  false, true,  false, true, false};
  for (const CellComparison& cell : comparison.cells) {
    for (const MetricComparison& m : cell.metrics) {
      auto mean = [](const SideStats& s) {
        return s.n > 0 ? Number(s.mean) : std::string("-");
      };
      t.rows.push_back({
          cell.label,
          m.info.name,
          m.info.unit,
          absl::StrCat(m.baseline.n),
          mean(m.baseline),
          Interval(m.baseline.has_ci, m.baseline.ci_low, m.baseline.ci_high,
                   &Number),
          absl::StrCat(m.other.n),
          mean(m.other),
          Interval(m.other.has_ci, m.other.ci_low, m.other.ci_high, &Number),
          m.has_percent ? Percent(m.difference_percent) : "-",
          Interval(m.has_percent_ci, m.percent_ci_low, m.percent_ci_high,
                   &Percent),
          m.tested ? PValue(m.p_value) : "-",
          m.tested ? (m.significant ? "yes" : "no") : "-",
      });
    }
  }
  return t;
}

std::vector<std::string> WarningLines(const Comparison& comparison) {
  std::vector<std::string> lines = comparison.warnings;
  for (const CellComparison& cell : comparison.cells) {
    for (const std::string& w : cell.warnings) {
      lines.push_back(absl::StrCat(cell.label, ": ", w));
    }
  }
  return lines;
}

}  // namespace powersweep
