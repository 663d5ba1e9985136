// The report's telemetry figures (report_figures.h): distributions of
// power and utilization, native vs container, and one run over time.
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "controller/cli/report_figures.h"
#include "controller/cli/report_values.h"

namespace powersweep {
namespace {

// Power in W, "" when the sample had no reading.
std::string PowerW(const TelemetryRow& t) {
  return t.power_mw > 0 ? ReportNumber(t.power_mw / 1e3) : "";
}

}  // namespace

absl::StatusOr<int64_t> ChooseTimelineRun(
    const std::vector<v1::RunStatus>& runs, int64_t requested) {
  if (requested < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--run: must be a positive run id, got ", requested));
  }
  for (const v1::RunStatus& r : runs) {
    if (requested > 0 && r.spec().run_id() == requested) {
      if (r.state() != v1::RUN_STATE_DONE) {
        return absl::InvalidArgumentError(
            absl::StrCat("--run: run ", requested, " is ",
                         StateText(r.state()), ", not done"));
      }
      return requested;
    }
    if (requested == 0 && IsDoneWorkloadRun(r)) return r.spec().run_id();
  }
  if (requested > 0) {
    int64_t sweep = runs.empty() ? 0 : runs.front().spec().sweep_id();
    return absl::InvalidArgumentError(absl::StrCat(
        "--run: run ", requested, " is not a run of sweep ", sweep));
  }
  return 0;
}

FigureTable DistributionsFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "distributions";
  f.table.header = {"runtime",      "run_id",       "power_w",
                    "cpu_util_pct", "gpu_util_pct", "provenance"};
  // The current attempt of each done workload run, by runtime.
  std::map<int64_t, std::pair<int32_t, std::string>> runs;
  std::set<std::string> runtimes;
  for (const v1::RunStatus& r : in.runs) {
    if (!IsDoneWorkloadRun(r)) continue;
    runs[r.spec().run_id()] = {r.spec().attempt(),
                               RuntimeText(r.spec().runtime())};
    runtimes.insert(RuntimeText(r.spec().runtime()));
  }
  if (!runtimes.count("container") && !runtimes.count("vm") &&
      !runtimes.count("container_in_vm")) {
    f.omitted = "The sweep has no done container, vm or container_in_vm "
                "runs, so there is no comparison with native runs (add "
                "`container`, `vm` or `container_in_vm` to its runtimes).";
    return f;
  }
  if (!runtimes.count("native")) {
    f.omitted = "The sweep has no done native runs to compare its container "
                "or vm runs with (add `native` to its runtimes).";
    return f;
  }
  for (const TelemetryRow& t : in.telemetry) {
    auto it = runs.find(t.run_id);
    if (it == runs.end() || it->second.first != t.attempt) continue;
    f.table.rows.push_back({it->second.second, std::to_string(t.run_id),
                            PowerW(t), ReportNumber(t.cpu_util * 100),
                            ReportNumber(t.gpu_util * 100), t.provenance});
  }
  if (f.table.rows.empty()) {
    f.omitted = "The sweep's done runs have no telemetry samples.";
  } else {
    f.note = "Every telemetry sample of the sweep's done workload runs, by "
             "runtime.";
  }
  return f;
}

FigureTable TimelineFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "timeline";
  f.table.header = {"run_id",       "t_s",          "power_w",
                    "cpu_util_pct", "gpu_util_pct", "provenance"};
  if (in.timeline_run_id <= 0) {
    f.omitted = "The sweep has no done workload run to show over time.";
    return f;
  }
  const v1::RunStatus* run = nullptr;
  for (const v1::RunStatus& r : in.runs) {
    if (r.spec().run_id() == in.timeline_run_id) run = &r;
  }
  if (run == nullptr) {
    f.omitted = absl::StrCat("Run ", in.timeline_run_id,
                             " is not a run of this sweep.");
    return f;
  }
  for (const TelemetryRow& t : in.telemetry) {
    if (t.run_id != in.timeline_run_id || t.attempt != run->spec().attempt()) {
      continue;
    }
    f.table.rows.push_back({std::to_string(t.run_id), ReportNumber(t.t_s), PowerW(t),
                            ReportNumber(t.cpu_util * 100), ReportNumber(t.gpu_util * 100),
                            t.provenance});
  }
  const std::string what =
      run->spec().workload().task() == v1::TASK_BASELOAD
          ? absl::StrCat("baseload ", run->spec().device_class())
          : FigureCellLabel(run->spec());
  if (f.table.rows.empty()) {
    f.omitted = absl::StrCat("Run ", in.timeline_run_id, " (", what,
                             ") has no telemetry samples.");
  } else {
    f.note = absl::StrCat("Run ", in.timeline_run_id, " on ",
                          run->device_id(), ": ", what,
                          " (choose another with --run ID).");
  }
  return f;
}

}  // namespace powersweep
