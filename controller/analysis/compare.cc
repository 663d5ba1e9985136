#include "controller/analysis/compare.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "controller/analysis/stats.h"

namespace powersweep {
namespace {

std::string JoinSet(const std::set<std::string>& values) {
  if (values.empty()) return "(none)";
  return absl::StrJoin(values, ", ");
}

SideStats ToSideStats(const stats::SampleSummary& s) {
  SideStats out;
  out.n = s.n;
  out.mean = s.mean;
  out.has_ci = s.has_ci;
  out.ci_low = s.ci_low;
  out.ci_high = s.ci_high;
  return out;
}

MetricComparison CompareMetric(const MetricInfo& info,
                               const std::vector<double>& baseline,
                               const std::vector<double>& other) {
  MetricComparison c;
  c.info = info;
  c.baseline = ToSideStats(stats::Summarize(baseline, kConfidenceLevel));
  c.other = ToSideStats(stats::Summarize(other, kConfidenceLevel));
  const stats::WelchTest w =
      stats::Welch(baseline, other, kConfidenceLevel, kSignificanceAlpha);
  c.has_difference = w.has_difference;
  c.has_percent = w.has_percent;
  c.difference_percent = w.difference_percent;
  c.has_percent_ci = w.has_percent && w.tested;
  c.percent_ci_low = w.ci_low_percent;
  c.percent_ci_high = w.ci_high_percent;
  if (NonNegative(info.metric)) {
    // A count or a time is never below zero, so neither is its interval, and
    // a difference in percent never below -100.
    for (SideStats* side : {&c.baseline, &c.other}) {
      side->ci_low = std::max(0.0, side->ci_low);
    }
    c.percent_ci_low = std::max(-100.0, c.percent_ci_low);
  }
  c.tested = w.tested;
  c.zero_spread = w.zero_spread;
  c.p_value = w.p_value;
  c.significant = w.significant;
  return c;
}

struct CellRuns {
  v1::RunSpec key;
  std::vector<const RunMetrics*> baseline;
  std::vector<const RunMetrics*> other;
};

// --by runtime with a VM runtime on one side only: a VM cell's key keeps
// its shape (CellKey), so the other side's runs sit in the cell without
// one. They are copied to every VM cell of the same key, and their own
// cell is dropped once it served one.
void PairVmShapes(std::vector<CellRuns>* cells) {
  std::map<std::string, size_t> plain;  // key without vm -> its cell
  for (size_t i = 0; i < cells->size(); ++i) {
    if (!(*cells)[i].key.has_vm()) {
      plain.emplace((*cells)[i].key.SerializeAsString(), i);
    }
  }
  std::set<size_t> served;
  for (CellRuns& cell : *cells) {
    if (!cell.key.has_vm()) continue;
    v1::RunSpec bare = cell.key;
    bare.clear_vm();
    auto it = plain.find(bare.SerializeAsString());
    if (it == plain.end()) continue;
    const CellRuns& source = (*cells)[it->second];
    if (cell.baseline.empty() && !source.baseline.empty()) {
      cell.baseline = source.baseline;
      served.insert(it->second);
    }
    if (cell.other.empty() && !source.other.empty()) {
      cell.other = source.other;
      served.insert(it->second);
    }
  }
  std::vector<CellRuns> kept;
  for (size_t i = 0; i < cells->size(); ++i) {
    if (served.count(i) == 0) kept.push_back(std::move((*cells)[i]));
  }
  *cells = std::move(kept);
}

void AddCellWarnings(const CompareDimension& dimension, const CellRuns& runs,
                     CellComparison* cell) {
  const std::string b = BaselineLabel(dimension);
  const std::string o = OtherLabel(dimension);
  for (const auto& [label, side] :
       {std::make_pair(b, &runs.baseline), std::make_pair(o, &runs.other)}) {
    if (side->empty()) {
      cell->warnings.push_back(
          absl::StrCat("no ", label, " runs: nothing to compare"));
    } else if (side->size() < 2) {
      cell->warnings.push_back(absl::StrCat(
          "only 1 ", label, " run: no confidence interval or test"));
    }
  }
  if (runs.baseline.empty() || runs.other.empty()) return;
  for (const auto& [label, side] :
       {std::make_pair(b, &runs.baseline), std::make_pair(o, &runs.other)}) {
    int emulated = 0;
    for (const RunMetrics* r : *side) emulated += r->vm_accel == "tcg";
    if (emulated > 0) {
      cell->warnings.push_back(absl::StrCat(
          emulated, " of the ", side->size(), " ", label,
          " runs ran in an EMULATED VM (QEMU TCG, no KVM): their times and "
          "energy are emulation's, not comparable with native runs"));
    }
  }

  auto collect = [](const std::vector<const RunMetrics*>& side,
                    std::string RunMetrics::*field, bool* missing) {
    std::set<std::string> out;
    for (const RunMetrics* r : side) {
      if ((r->*field).empty()) {
        *missing = true;
      } else {
        out.insert(r->*field);
      }
    }
    return out;
  };
  // Twins' binary fingerprints name their instances, not builds.
  bool all_twins = true;
  for (const auto* side : {&runs.baseline, &runs.other}) {
    for (const RunMetrics* r : *side) all_twins = all_twins && IsTwinRun(*r);
  }
  for (const auto& [what, field] :
       {std::make_pair(std::string("binary"), &RunMetrics::binary_fingerprint),
        std::make_pair(std::string("framework"),
                       &RunMetrics::framework_fingerprint)}) {
    if (what == "binary" && all_twins) continue;
    bool missing = false;
    const std::set<std::string> fb = collect(runs.baseline, field, &missing);
    const std::set<std::string> fo = collect(runs.other, field, &missing);
    if (fb != fo || fb.size() > 1) {
      cell->warnings.push_back(absl::StrCat(
          "provenance differs: ", what, " fingerprint ", b, " ", JoinSet(fb),
          " vs ", o, " ", JoinSet(fo),
          "; the difference may come from the build, not the ",
          CompareByName(dimension.by)));
    } else if (missing) {
      cell->warnings.push_back(absl::StrCat(
          "provenance unknown: some runs have no ", what,
          " fingerprint, so the comparison cannot be called clean"));
    }
  }

  if (dimension.by == CompareBy::kDevice) return;  // different by design
  std::set<std::string> db, dev_o;
  for (const RunMetrics* r : runs.baseline) db.insert(r->device_id);
  for (const RunMetrics* r : runs.other) dev_o.insert(r->device_id);
  if (db != dev_o) {
    cell->warnings.push_back(absl::StrCat("sides ran on different devices: ",
                                          b, " on ", JoinSet(db), ", ", o,
                                          " on ", JoinSet(dev_o)));
  }
}

CellComparison CompareCell(const CompareDimension& dimension,
                           const CellRuns& runs) {
  CellComparison cell;
  cell.key = runs.key;
  cell.label = CellLabel(runs.key);
  for (const RunMetrics* r : runs.baseline) {
    cell.baseline_run_ids.push_back(r->run_id);
  }
  for (const RunMetrics* r : runs.other) cell.other_run_ids.push_back(r->run_id);
  for (const MetricInfo& info : AllMetrics()) {
    std::vector<double> b, o;
    for (const RunMetrics* r : runs.baseline) {
      if (auto v = MetricValue(*r, info.metric)) b.push_back(*v);
    }
    for (const RunMetrics* r : runs.other) {
      if (auto v = MetricValue(*r, info.metric)) o.push_back(*v);
    }
    if (b.empty() && o.empty()) continue;
    cell.metrics.push_back(CompareMetric(info, b, o));
  }
  AddCellWarnings(dimension, runs, &cell);
  std::vector<std::string> flat;
  for (const MetricComparison& m : cell.metrics) {
    // Equal means without spread need no warning: nothing differs.
    if (m.zero_spread && m.has_difference &&
        m.baseline.mean != m.other.mean) {
      flat.push_back(m.info.name);
    }
  }
  if (!flat.empty()) {
    cell.warnings.push_back(absl::StrCat(
        "no spread on either side for ", absl::StrJoin(flat, ", "),
        " (deterministic runs, e.g. twins): the t-test is not meaningful "
        "there, so no p-value and no significance"));
  }
  return cell;
}

}  // namespace

Comparison CompareRuns(const std::vector<RunMetrics>& runs,
                       const CompareDimension& dimension) {
  Comparison out;
  out.dimension = dimension;
  std::vector<const RunMetrics*> sorted;
  int not_done = 0;
  for (const RunMetrics& r : runs) {
    if (r.state != v1::RUN_STATE_DONE) {
      ++not_done;
      continue;
    }
    sorted.push_back(&r);
  }
  if (not_done > 0) {
    out.warnings.push_back(absl::StrCat(
        not_done, " runs that are not done were left out"));
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const RunMetrics* a, const RunMetrics* b) {
                     return a->run_id < b->run_id;
                   });
  std::vector<CellRuns> cells;
  std::map<std::string, size_t> index;  // serialized key -> cells[i]
  std::vector<int64_t> sideless;
  std::set<std::string> devices_seen;
  for (const RunMetrics* r : sorted) {
    devices_seen.insert(r->device_id);
    const std::optional<Side> side = SideOf(dimension, r->spec, r->device_id);
    if (!side.has_value()) {
      sideless.push_back(r->run_id);
      continue;
    }
    v1::RunSpec key = CellKey(dimension.by, r->spec);
    const std::string serialized = key.SerializeAsString();
    auto [it, inserted] = index.emplace(serialized, cells.size());
    if (inserted) {
      cells.push_back(CellRuns{});
      cells.back().key = std::move(key);
    }
    CellRuns& cell = cells[it->second];
    (*side == Side::kBaseline ? cell.baseline : cell.other).push_back(r);
  }
  PairVmShapes(&cells);
  if (dimension.by == CompareBy::kDevice) {
    for (const std::string& d :
         {dimension.baseline_device, dimension.other_device}) {
      if (devices_seen.count(d) == 0) {
        out.warnings.push_back(
            absl::StrCat("device ", d, " has no done runs in this sweep"));
      }
    }
    if (!sideless.empty()) {
      out.warnings.push_back(absl::StrCat(
          sideless.size(), " runs on other devices than ",
          dimension.baseline_device, " and ", dimension.other_device,
          " were left out"));
    }
  } else if (!sideless.empty()) {
    out.warnings.push_back(absl::StrCat(
        "runs on neither side of the ", CompareByName(dimension.by),
        " comparison were left out: ", absl::StrJoin(sideless, ", ")));
  }
  out.devices.assign(devices_seen.begin(), devices_seen.end());
  std::map<std::string, int> label_count;
  for (const CellRuns& c : cells) {
    out.cells.push_back(CompareCell(dimension, c));
    ++label_count[out.cells.back().label];
  }
  // Cells that differ only in fields the label leaves out (stop
  // conditions, seed, threads, ...) get their first run id appended.
  for (CellComparison& cell : out.cells) {
    if (label_count[cell.label] < 2) continue;
    const int64_t first = cell.baseline_run_ids.empty()
                              ? cell.other_run_ids.front()
                              : cell.baseline_run_ids.front();
    absl::StrAppend(&cell.label, " #", first);
  }
  return out;
}

absl::Status CheckSides(const Comparison& c, int64_t sweep_id) {
  bool baseline = false, other = false;
  for (const CellComparison& cell : c.cells) {
    baseline = baseline || !cell.baseline_run_ids.empty();
    other = other || !cell.other_run_ids.empty();
  }
  if (baseline && other) return absl::OkStatus();
  if (c.cells.empty() && c.dimension.by != CompareBy::kDevice) {
    return absl::FailedPreconditionError(
        absl::StrCat("sweep ", sweep_id, " has no done runs to compare"));
  }
  const std::string known =
      c.devices.empty() ? "none" : absl::StrJoin(c.devices, ", ");
  std::vector<std::string> missing;
  if (c.dimension.by == CompareBy::kDevice) {
    for (const auto& [has, device] :
         {std::make_pair(baseline, c.dimension.baseline_device),
          std::make_pair(other, c.dimension.other_device)}) {
      if (!has) {
        missing.push_back(absl::StrCat("device ", device,
                                       " ran no done run of sweep ",
                                       sweep_id));
      }
    }
    return absl::FailedPreconditionError(absl::StrCat(
        absl::StrJoin(missing, "; "), " (devices with done runs: ", known,
        ")"));
  }
  const std::string absent =
      baseline ? OtherLabel(c.dimension) : BaselineLabel(c.dimension);
  const std::string present =
      baseline ? BaselineLabel(c.dimension) : OtherLabel(c.dimension);
  return absl::FailedPreconditionError(absl::StrCat(
      "sweep ", sweep_id, " has no done ", absent, " runs to compare with ",
      present, " (compare --by ", CompareByName(c.dimension.by), ")"));
}

absl::StatusOr<Comparison> CompareSweep(Store* store, int64_t sweep_id,
                                        const CompareDimension& dimension) {
  PS_ASSIGN_OR_RETURN(std::vector<RunMetrics> runs,
                      LoadSweepRunMetrics(store, sweep_id));
  Comparison c = CompareRuns(runs, dimension);
  PS_RETURN_IF_ERROR(CheckSides(c, sweep_id));
  return c;
}

}  // namespace powersweep
