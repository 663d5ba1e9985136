#include "controller/cli/variability_format.h"

#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/csv_cell.h"
#include "controller/cli/format.h"

namespace powersweep {
namespace {

using v1::VariabilityAcrossDevices;
using v1::VariabilityDeviceStats;
using v1::VariabilityResponse;

// ---------------------------------------------------------------- text

// 4 significant digits; plain notation for large values.
std::string Number(double v) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : "-";
  if (std::fabs(v) >= 1e4) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.4g", v);
}

std::string PValue(double p) {
  if (p >= 0.001) return absl::StrFormat("%.3f", p);
  if (p == 0) return "0";
  return absl::StrFormat("%.1e", p);
}

std::string Percent(double v) {
  double rounded = std::round(v * 100) / 100;
  if (rounded == 0) rounded = 0;  // no "-0.00"
  return absl::StrFormat("%+.2f%%", rounded);
}

std::string DeviceTable(const v1::VariabilityMetricReport& m) {
  Table t;
  t.header = {"device", "n", "mean", "95% CI", "start temp C", "vs others",
              "outlier"};
  t.numeric = {false, true, true, false, true, true, false};
  for (const VariabilityDeviceStats& d : m.devices()) {
    t.rows.push_back(
        {d.device_id(), absl::StrCat(d.n()), Number(d.mean()),
         d.has_ci() ? absl::StrCat("[", Number(d.ci_low()), ", ",
                                   Number(d.ci_high()), "]")
                    : "-",
         d.has_start_temp() ? absl::StrFormat("%.1f", d.mean_start_temp_c())
                            : "-",
         d.checked() && d.has_deviation() ? Percent(d.deviation_percent())
                                          : "-",
         d.checked() ? (d.outlier() ? "yes" : "no") : "-"});
  }
  std::string out;
  for (absl::string_view line :
       absl::StrSplit(RenderTable(t, OutputFormat::kTable), '\n',
                      absl::SkipEmpty())) {
    absl::StrAppend(&out, "    ", line, "\n");
  }
  return out;
}

std::string AcrossLine(const v1::VariabilityMetricReport& m) {
  const VariabilityAcrossDevices& a = m.across();
  auto fig = [](bool has, const std::string& text) {
    return has ? text : std::string("-");
  };
  std::string outliers = "-";
  if (a.devices() >= 3) {
    outliers = a.outlier_devices().empty()
                   ? "none"
                   : absl::StrJoin(a.outlier_devices(), ", ");
  }
  return absl::StrCat(
      "    across ", a.devices(), " devices: between-SD ",
      fig(a.has_anova(), Number(a.sd_between())), ", within-SD ",
      fig(a.has_anova(), Number(a.sd_within())), ", ICC ",
      fig(a.has_icc(), absl::StrFormat("%.3f", a.icc())), ", CV ",
      fig(a.has_cv(), absl::StrFormat("%.2f%%", a.cv_percent())),
      ", F-test p ", fig(a.has_f_test(), PValue(a.p_value())), ", max/min ",
      fig(a.has_max_min(), absl::StrFormat("%.3f", a.max_min_ratio())),
      ", outliers: ", outliers, "\n");
}

// ----------------------------------------------------------------- CSV

std::string CsvNumber(bool has, double v) {
  if (!has || !std::isfinite(v)) return "";
  return absl::StrFormat("%.12g", v);
}

const std::vector<std::string>& CsvHeader() {
  static const std::vector<std::string>* const kHeader =
      new std::vector<std::string>{
          "cell",   "metric",        "unit",       "kind",     "device",
          "n",      "mean",          "sd",         "ci_low",   "ci_high",
          "start_temp_c", "pi_low",  "pi_high",    "deviation_pct",
          "outlier", "sd_between",   "sd_within",  "icc",      "cv_pct",
          "f",      "p_value",       "max_min",    "outliers"};
  return *kHeader;
}

// ---------------------------------------------------------------- JSON

std::string JsonNumber(bool has, double v) {
  if (!has || !std::isfinite(v)) return "null";
  return absl::StrFormat("%.15g", v);
}

template <typename Container>
std::string JsonStrings(const Container& values) {
  std::vector<std::string> quoted;
  for (const std::string& v : values) quoted.push_back(JsonString(v));
  return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

template <typename Container>
std::string JsonInts(const Container& values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

using Fields = std::vector<std::pair<std::string, std::string>>;

// An object with one field per line, its braces at `indent` levels of two
// spaces (a nested value is rendered one level deeper than its field).
std::string JsonObject(const Fields& fields, int indent) {
  const std::string pad(2 * (indent + 1), ' ');
  std::vector<std::string> lines;
  for (const auto& [name, value] : fields) {
    lines.push_back(absl::StrCat(pad, JsonString(name), ": ", value));
  }
  return absl::StrCat("{\n", absl::StrJoin(lines, ",\n"), "\n",
                      std::string(2 * indent, ' '), "}");
}

std::string JsonArray(const std::vector<std::string>& items, int indent) {
  if (items.empty()) return "[]";
  const std::string pad(2 * (indent + 1), ' ');
  std::vector<std::string> lines;
  for (const std::string& item : items) lines.push_back(pad + item);
  return absl::StrCat("[\n", absl::StrJoin(lines, ",\n"), "\n",
                      std::string(2 * indent, ' '), "]");
}

std::string DeviceJson(const VariabilityDeviceStats& d, int indent) {
  return JsonObject(
      {{"device", JsonString(d.device_id())},
       {"run_ids", JsonInts(d.run_ids())},
       {"n", absl::StrCat(d.n())},
       {"mean", JsonNumber(d.n() > 0, d.mean())},
       {"sd", JsonNumber(d.n() > 1, d.sd())},
       {"ci_low", JsonNumber(d.has_ci(), d.ci_low())},
       {"ci_high", JsonNumber(d.has_ci(), d.ci_high())},
       {"start_temp_c", JsonNumber(d.has_start_temp(), d.mean_start_temp_c())},
       {"others_mean", JsonNumber(d.checked(), d.others_mean())},
       {"pi_low", JsonNumber(d.checked(), d.interval_low())},
       {"pi_high", JsonNumber(d.checked(), d.interval_high())},
       {"deviation_pct",
        JsonNumber(d.checked() && d.has_deviation(), d.deviation_percent())},
       {"outlier", d.checked() ? (d.outlier() ? "true" : "false") : "null"}},
      indent);
}

std::string AcrossJson(const VariabilityAcrossDevices& a, int indent) {
  const bool anova = a.has_anova();
  return JsonObject(
      {{"devices", absl::StrCat(a.devices())},
       {"runs", absl::StrCat(a.runs())},
       {"grand_mean", JsonNumber(a.runs() > 0, a.grand_mean())},
       {"mean_of_means", JsonNumber(a.has_means_spread(), a.mean_of_means())},
       {"sd_of_means", JsonNumber(a.has_means_spread(), a.sd_of_means())},
       {"ss_between", JsonNumber(anova, a.ss_between())},
       {"ss_within", JsonNumber(anova, a.ss_within())},
       {"df_between", JsonNumber(anova, a.df_between())},
       {"df_within", JsonNumber(anova, a.df_within())},
       {"ms_between", JsonNumber(anova, a.ms_between())},
       {"ms_within", JsonNumber(anova, a.ms_within())},
       {"f", JsonNumber(a.has_f_test(), a.f())},
       {"p_value", JsonNumber(a.has_f_test(), a.p_value())},
       {"n0", JsonNumber(anova, a.n0())},
       {"var_between", JsonNumber(anova, a.var_between())},
       {"var_within", JsonNumber(anova, a.var_within())},
       {"sd_between", JsonNumber(anova, a.sd_between())},
       {"sd_within", JsonNumber(anova, a.sd_within())},
       {"icc", JsonNumber(a.has_icc(), a.icc())},
       {"cv_pct", JsonNumber(a.has_cv(), a.cv_percent())},
       {"max_min", JsonNumber(a.has_max_min(), a.max_min_ratio())},
       {"outliers", a.devices() >= 3 ? JsonStrings(a.outlier_devices())
                                     : std::string("null")},
       {"notes", JsonStrings(a.notes())}},
      indent);
}

}  // namespace

std::string VariabilityText(const VariabilityResponse& r) {
  std::string out;
  for (const v1::VariabilityCell& cell : r.cells()) {
    absl::StrAppend(&out, cell.label(), "  (", cell.device_ids_size(),
                    " device", cell.device_ids_size() == 1 ? "" : "s", ", ",
                    cell.run_ids_size(), " runs)\n");
    for (const v1::VariabilityMetricReport& m : cell.metrics()) {
      absl::StrAppend(&out, "  ", m.label(), " (", m.unit(), ")\n",
                      DeviceTable(m), AcrossLine(m));
    }
    for (const std::string& w : cell.warnings()) {
      absl::StrAppend(&out, "  warning: ", w, "\n");
    }
    out += "\n";
  }
  for (const std::string& w : r.warnings()) {
    absl::StrAppend(&out, "warning: ", w, "\n");
  }
  absl::StrAppend(&out, "method: ", r.method(), "\n");
  return out;
}

std::string VariabilityCsv(const VariabilityResponse& r) {
  std::string out = CsvLine(CsvHeader());
  for (const v1::VariabilityCell& cell : r.cells()) {
    for (const v1::VariabilityMetricReport& m : cell.metrics()) {
      for (const VariabilityDeviceStats& d : m.devices()) {
        out += CsvLine(
            {cell.label(), m.name(), m.unit(), "device", d.device_id(),
             absl::StrCat(d.n()), CsvNumber(d.n() > 0, d.mean()),
             CsvNumber(d.n() > 1, d.sd()), CsvNumber(d.has_ci(), d.ci_low()),
             CsvNumber(d.has_ci(), d.ci_high()),
             CsvNumber(d.has_start_temp(), d.mean_start_temp_c()),
             CsvNumber(d.checked(), d.interval_low()),
             CsvNumber(d.checked(), d.interval_high()),
             CsvNumber(d.checked() && d.has_deviation(),
                       d.deviation_percent()),
             d.checked() ? (d.outlier() ? "true" : "false") : "", "", "", "",
             "", "", "", "", ""});
      }
      const VariabilityAcrossDevices& a = m.across();
      out += CsvLine({cell.label(), m.name(), m.unit(), "across", "",
                      absl::StrCat(a.runs()),
                      CsvNumber(a.has_means_spread(), a.mean_of_means()),
                      CsvNumber(a.has_means_spread(), a.sd_of_means()), "", "",
                      "", "", "", "", "",
                      CsvNumber(a.has_anova(), a.sd_between()),
                      CsvNumber(a.has_anova(), a.sd_within()),
                      CsvNumber(a.has_icc(), a.icc()),
                      CsvNumber(a.has_cv(), a.cv_percent()),
                      CsvNumber(a.has_f_test(), a.f()),
                      CsvNumber(a.has_f_test(), a.p_value()),
                      CsvNumber(a.has_max_min(), a.max_min_ratio()),
                      absl::StrJoin(a.outlier_devices(), ";")});
    }
  }
  return out;
}

std::string VariabilityJson(const VariabilityResponse& r) {
  std::vector<std::string> cells;
  for (const v1::VariabilityCell& cell : r.cells()) {
    std::vector<std::string> metrics;
    for (const v1::VariabilityMetricReport& m : cell.metrics()) {
      std::vector<std::string> devices;
      for (const VariabilityDeviceStats& d : m.devices()) {
        devices.push_back(DeviceJson(d, 6));
      }
      metrics.push_back(JsonObject({{"name", JsonString(m.name())},
                                    {"label", JsonString(m.label())},
                                    {"unit", JsonString(m.unit())},
                                    {"devices", JsonArray(devices, 5)},
                                    {"across", AcrossJson(m.across(), 5)}},
                                   4));
    }
    cells.push_back(JsonObject({{"label", JsonString(cell.label())},
                                {"devices", JsonStrings(cell.device_ids())},
                                {"run_ids", JsonInts(cell.run_ids())},
                                {"warnings", JsonStrings(cell.warnings())},
                                {"metrics", JsonArray(metrics, 3)}},
                               2));
  }
  std::vector<std::string> offsets;
  for (const v1::DeviceOffset& o : r.saved_offsets()) {
    offsets.push_back(JsonObject({{"device", JsonString(o.device_id())},
                                  {"device_class", JsonString(o.device_class())},
                                  {"metric", JsonString(o.metric())},
                                  {"factor", JsonNumber(true, o.factor())},
                                  {"cells", absl::StrCat(o.cells())},
                                  {"runs", absl::StrCat(o.runs())}},
                                 2));
  }
  return JsonObject({{"sweep_id", absl::StrCat(r.sweep_id())},
                     {"method", JsonString(r.method())},
                     {"warnings", JsonStrings(r.warnings())},
                     {"saved_offsets", JsonArray(offsets, 1)},
                     {"cells", JsonArray(cells, 1)}},
                    0) +
         "\n";
}

std::string SavedOffsetsText(const VariabilityResponse& r) {
  if (r.saved_offsets().empty()) return "";
  // Offsets come by device, then metric.
  std::vector<std::pair<std::string, std::string>> lines;  // device, text
  for (const v1::DeviceOffset& o : r.saved_offsets()) {
    if (lines.empty() || lines.back().first != o.device_id()) {
      lines.push_back({o.device_id(), o.device_id()});
    }
    absl::StrAppend(&lines.back().second, "  ", o.metric(), " x",
                    absl::StrFormat("%.3f", o.factor()), " (", o.cells(),
                    " cell", o.cells() == 1 ? "" : "s", ", ", o.runs(),
                    " runs)");
  }
  std::string out = absl::StrCat("saved calibration offsets (sweep ",
                                 r.sweep_id(), "; factor = device / class "
                                 "mean):\n");
  for (const auto& [device, text] : lines) absl::StrAppend(&out, "  ", text, "\n");
  return out;
}

}  // namespace powersweep
