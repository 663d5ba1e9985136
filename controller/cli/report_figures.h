// The numbers behind each figure of `powersweep report` (docs/report.md):
// plain functions from what the Control API returned (runs, devices,
// fitted models with their Pareto fronts, the sweep's telemetry) to one
// table per figure, written as FIGURE.csv beside FIGURE.png and
// FIGURE.svg. A figure that does not apply to the sweep (no container
// runs, one device per cell, no model fitted, ...) comes back with
// `omitted` set to one sentence saying why, and is not drawn.
//
// Every row carries a `provenance` column ("measured", "modeled",
// "simulated") so the plots can say when data is not measured. Cells are
// a sweep's done workload runs (baseload runs excluded) equal in
// everything but repetition and attempt; rows follow the order of the
// runs.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CLI_REPORT_FIGURES_H_
#define POWERSWEEP_CONTROLLER_CLI_REPORT_FIGURES_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/cli/format.h"
#include "controller/cli/trace_row.h"
#include "powersweep/v1/control.pb.h"
#include "powersweep/v1/modeling.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

// One figure: its file stem, its data, and either a caption (`note`, may be
// empty) or the reason it is left out.
// A run's energy per minibatch in mJ as the Pareto figure draws runs
// without a model, and as the models count it (observations.h): the
// minibatches' phase energy (stall + compute) / minibatches; without a
// phase split, mean power x mean minibatch time; else the whole run's
// energy / minibatches. Never the start-up's energy when a split exists.
double MinibatchEnergyMj(const v1::RunSummary& summary);

struct FigureTable {
  std::string name;     // "pareto" -> pareto.csv, pareto.png, pareto.svg
  Table table;          // header and rows of FIGURE.csv
  std::string note;     // drawn: a line under the figure
  std::string omitted;  // non-empty: not drawn, and why
};

// A class model fitted on the sweep, with what the report asked about it.
struct ReportModel {
  v1::WorkloadModel model;
  bool has_pareto = false;
  v1::ParetoResponse pareto;  // the predicted front over the class's space
  // The class's stock nvpmodel default mode, predicted.
  std::string nvpmodel_default;  // "" when powersweep does not know it
  bool has_nvpmodel_default = false;
  v1::ModePrediction nvpmodel_default_prediction;
};

// One telemetry sample of the sweep (telemetry.csv of the Export call).
struct TelemetryRow {
  int64_t run_id = 0;
  int32_t attempt = 0;
  double t_s = 0;
  double cpu_util = 0;  // 0..1
  double gpu_util = 0;  // 0..1
  double power_mw = 0;  // 0 when unknown
  std::string provenance;
};

struct ReportInputs {
  int64_t sweep_id = 0;
  std::vector<v1::RunStatus> runs;
  std::map<std::string, std::string> platforms;  // device id -> platform
  std::vector<ReportModel> models;
  std::vector<TelemetryRow> telemetry;
  int64_t timeline_run_id = 0;  // 0: no run to show
  // Runs of a device the variability analysis (Control.Variability, as
  // `powersweep variability` prints it) calls an outlier in their cell, by
  // metric name ("minibatch_time", "energy") -> run ids.
  std::map<std::string, std::set<int64_t>> outlier_runs;
  // traces.csv of the sweep (every attempt; the figures keep each run's
  // current one).
  std::vector<TraceCsvRow> traces;
};

// The stock nvpmodel default (PM_CONFIG DEFAULT) of a class as the platform
// reference gives it: "MODE_30W" for orin-agx; "" for classes whose default
// powersweep does not know.
std::string NvpmodelDefaultPreset(const std::string& device_class);

// "orin-agx lenet5/fashion-mnist train bs64 w1 native": a run's workload
// and runtime, everything of its cell but the power mode.
std::string FigurePanelLabel(const v1::RunSpec& spec);
std::string FigurePanelLabel(const v1::WorkloadModel& model);
// FigurePanelLabel + " | " + the power mode.
std::string FigureCellLabel(const v1::RunSpec& spec);

// The run the over-time figure shows: `requested` when > 0 (InvalidArgument
// naming --run when it is not a run of the sweep, or not done), else the
// first done workload run, else 0.
absl::StatusOr<int64_t> ChooseTimelineRun(
    const std::vector<v1::RunStatus>& runs, int64_t requested);

// The latest class model (no device id) per workload of `models`, however
// it treated instances (pooled or offsets).
std::vector<v1::WorkloadModel> LatestClassModels(
    const std::vector<v1::WorkloadModel>& models);

// Per workload panel, the time-energy points: the measured modes (from the
// model fitted on the sweep when there is one, in epoch units; else from
// the runs, per minibatch), whether each is on the measured front, the
// predicted front, MAXN and the nvpmodel default.
FigureTable ParetoFigure(const ReportInputs& in);
// Per cell, mean fetch stall, compute and overhead per minibatch (ms).
FigureTable MinibatchTimeFigure(const ReportInputs& in);
// Per cell, mean baseload and incremental energy per run (J).
FigureTable EnergySplitFigure(const ReportInputs& in);
// Per device of each cell run on 2 or more devices, each run's minibatch
// time and energy.
FigureTable VariabilityFigure(const ReportInputs& in);
// Per held-out mode of each model's cross-validation, measured and
// predicted epoch time and energy and the error.
FigureTable HeldOutFigure(const ReportInputs& in);
// Telemetry samples of done workload runs, native and container.
FigureTable DistributionsFigure(const ReportInputs& in);
// The telemetry of `in.timeline_run_id`.
FigureTable TimelineFigure(const ReportInputs& in);
// Per cell run on both `synthetic` and real data (equal in everything but
// the data set), each side's throughput (mean and SD over runs), minibatch
// time, stall and elapsed time, and real data's throughput against
// synthetic's in % (report_data_figure.cc).
FigureTable SyntheticVsRealFigure(const ReportInputs& in);
// Kernel event traces (report_trace_figures.cc; docs/traces.md).
FigureTable TraceSyscallsFigure(const ReportInputs& in);
FigureTable TraceWritebackFigure(const ReportInputs& in);

// Every figure, in the order the report shows them.
std::vector<FigureTable> AllFigures(const ReportInputs& in);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_REPORT_FIGURES_H_
