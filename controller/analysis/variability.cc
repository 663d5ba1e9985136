#include "controller/analysis/variability.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "controller/analysis/compare_cells.h"

namespace powersweep {
namespace {

// A cell's runs by device id (std::map: devices in id order).
struct CellRuns {
  v1::RunSpec key;
  std::map<std::string, std::vector<const RunMetrics*>> by_device;
  std::vector<int64_t> run_ids;
};

DeviceVariability DeviceFigures(const std::string& device_id,
                                const std::vector<const RunMetrics*>& runs,
                                VariabilityMetric metric,
                                std::vector<double>* values) {
  DeviceVariability d;
  d.device_id = device_id;
  std::vector<double> temps;
  for (const RunMetrics* r : runs) {
    const std::optional<double> v = VariabilityValue(*r, metric);
    if (!v.has_value()) continue;
    values->push_back(*v);
    d.run_ids.push_back(r->run_id);
    if (r->start_temp_c.has_value()) temps.push_back(*r->start_temp_c);
  }
  d.summary = stats::Summarize(*values, kVariabilityLevel);
  if (!temps.empty()) {
    d.has_start_temp = true;
    d.mean_start_temp_c = stats::Mean(temps);
  }
  return d;
}

// Empty when the cell has no value of `info`'s metric.
std::optional<MetricVariability> AnalyzeMetric(const VariabilityMetricInfo& info,
                                               const CellRuns& cell) {
  MetricVariability m;
  m.info = info;
  std::vector<std::vector<double>> groups;
  for (const auto& [device, runs] : cell.by_device) {
    std::vector<double> values;
    DeviceVariability d = DeviceFigures(device, runs, info.metric, &values);
    if (values.empty()) continue;
    m.devices.push_back(std::move(d));
    groups.push_back(std::move(values));
  }
  if (m.devices.empty()) return std::nullopt;
  m.across = stats::OneWayRandomEffects(groups, kVariabilityLevel);
  for (size_t i = 0; i < m.devices.size(); ++i) {
    m.devices[i].figures = m.across.groups[i];
    if (m.across.groups[i].outlier) {
      m.outlier_devices.push_back(m.devices[i].device_id);
    }
  }
  return m;
}

void AddCellWarnings(const CellRuns& runs, CellVariability* cell) {
  if (runs.by_device.size() == 1) {
    cell->warnings.push_back(absl::StrCat(
        "only one device (", runs.by_device.begin()->first,
        "): nothing to compare across devices"));
  }
  for (const auto& [device, list] : runs.by_device) {
    if (list.size() == 1) {
      cell->warnings.push_back(absl::StrCat(
          "device ", device,
          " has 1 run: no within-device variance from it"));
    }
  }
  for (const auto& [what, field] :
       {std::make_pair(std::string("binary"), &RunMetrics::binary_fingerprint),
        std::make_pair(std::string("framework"),
                       &RunMetrics::framework_fingerprint)}) {
    std::set<std::string> seen;
    for (const auto& [device, list] : runs.by_device) {
      for (const RunMetrics* r : list) {
        // A twin's binary fingerprint names its instance, not a build.
        if (what == "binary" && IsTwinRun(*r)) continue;
        if (!(r->*field).empty()) seen.insert(r->*field);
      }
    }
    if (seen.size() > 1) {
      cell->warnings.push_back(absl::StrCat(
          "runs of different builds (", what, " fingerprints ",
          absl::StrJoin(seen, ", "),
          "): a difference may come from the build, not the device"));
    }
  }
  // Nominally identical boards should run the same software.
  using Field = const std::string& (v1::DeviceIdentity::*)() const;
  for (const auto& [what, field] :
       {std::make_pair("module", Field{&v1::DeviceIdentity::module}),
        std::make_pair("L4T release", Field{&v1::DeviceIdentity::l4t_release}),
        std::make_pair("kernel", Field{&v1::DeviceIdentity::kernel}),
        std::make_pair("nvpmodel configuration",
                       Field{&v1::DeviceIdentity::nvpmodel})}) {
    std::set<std::string> all;
    std::vector<std::string> per_device;
    for (const auto& [device, list] : runs.by_device) {
      std::set<std::string> values;
      for (const RunMetrics* r : list) {
        const std::string& v = (r->run_device.*field)();
        if (!v.empty()) values.insert(v);
      }
      if (values.empty()) continue;
      all.insert(values.begin(), values.end());
      per_device.push_back(
          absl::StrCat(device, " ", absl::StrJoin(values, "/")));
    }
    if (all.size() > 1) {
      cell->warnings.push_back(absl::StrCat(
          "devices differ in ", what, ": ", absl::StrJoin(per_device, ", "),
          "; a difference may come from the software, not the board"));
    }
  }
  // The analysis's notes on missing figures, once per cell: plain when
  // every metric has the note, else after the metrics that have it.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> metrics_of;
  for (const MetricVariability& m : cell->metrics) {
    for (const std::string& n : m.across.notes) {
      auto [it, inserted] = metrics_of.try_emplace(n);
      if (inserted) order.push_back(n);
      it->second.push_back(m.info.label);
    }
  }
  for (const std::string& n : order) {
    const std::vector<std::string>& labels = metrics_of[n];
    cell->warnings.push_back(
        labels.size() == cell->metrics.size()
            ? n
            : absl::StrCat(absl::StrJoin(labels, ", "), ": ", n));
  }
}

CellVariability AnalyzeCell(const CellRuns& runs,
                            const std::optional<VariabilityMetric>& only) {
  CellVariability cell;
  cell.key = runs.key;
  cell.label = CellLabel(runs.key);
  cell.run_ids = runs.run_ids;
  for (const auto& [device, list] : runs.by_device) {
    cell.device_ids.push_back(device);
  }
  for (const VariabilityMetricInfo& info : VariabilityMetrics()) {
    if (only.has_value() && info.metric != *only) continue;
    std::optional<MetricVariability> m = AnalyzeMetric(info, runs);
    if (m.has_value()) cell.metrics.push_back(*std::move(m));
  }
  AddCellWarnings(runs, &cell);
  return cell;
}

}  // namespace

VariabilityReport AnalyzeVariability(
    const std::vector<RunMetrics>& runs,
    const std::optional<VariabilityMetric>& only) {
  VariabilityReport out;
  std::vector<const RunMetrics*> sorted;
  int not_done = 0;
  std::vector<int64_t> deviceless;
  for (const RunMetrics& r : runs) {
    if (r.state != v1::RUN_STATE_DONE) {
      ++not_done;
    } else if (r.device_id.empty()) {
      deviceless.push_back(r.run_id);
    } else {
      sorted.push_back(&r);
    }
  }
  if (not_done > 0) {
    out.warnings.push_back(
        absl::StrCat(not_done, " runs that are not done were left out"));
  }
  std::sort(deviceless.begin(), deviceless.end());
  if (!deviceless.empty()) {
    out.warnings.push_back(
        absl::StrCat("runs without a device were left out: ",
                     absl::StrJoin(deviceless, ", ")));
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const RunMetrics* a, const RunMetrics* b) {
                     return a->run_id < b->run_id;
                   });
  std::vector<CellRuns> cells;
  std::map<std::string, size_t> index;  // serialized key -> cells[i]
  for (const RunMetrics* r : sorted) {
    v1::RunSpec key = InstanceKey(r->spec);
    auto [it, inserted] = index.emplace(key.SerializeAsString(), cells.size());
    if (inserted) {
      cells.push_back(CellRuns{});
      cells.back().key = std::move(key);
    }
    CellRuns& cell = cells[it->second];
    cell.by_device[r->device_id].push_back(r);
    cell.run_ids.push_back(r->run_id);
  }
  std::map<std::string, int> label_count;
  for (const CellRuns& c : cells) {
    out.cells.push_back(AnalyzeCell(c, only));
    ++label_count[out.cells.back().label];
  }
  // Cells that differ only in fields the label leaves out (stop
  // conditions, seed, threads, ...) get their first run id appended.
  for (CellVariability& cell : out.cells) {
    if (label_count[cell.label] > 1) {
      absl::StrAppend(&cell.label, " #", cell.run_ids.front());
    }
  }
  return out;
}

absl::StatusOr<VariabilityReport> SweepVariability(
    Store* store, int64_t sweep_id,
    const std::optional<VariabilityMetric>& only) {
  PS_ASSIGN_OR_RETURN(std::vector<RunMetrics> runs,
                      LoadSweepRunMetrics(store, sweep_id));
  VariabilityReport report = AnalyzeVariability(runs, only);
  if (report.cells.empty()) {
    report.warnings.push_back(
        absl::StrCat("sweep ", sweep_id, " has no done runs to analyze"));
  }
  return report;
}

}  // namespace powersweep
