// The text of the CLI's model reports (model_commands.h): numbers, a
// model's workload and fitted forms, and the candidates and predictions
// tables. Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CLI_MODEL_TABLES_H_
#define POWERSWEEP_CONTROLLER_CLI_MODEL_TABLES_H_

#include <ostream>
#include <string>
#include <vector>

#include "controller/cli/format.h"
#include "powersweep/v1/modeling.pb.h"

namespace powersweep::model_tables {

std::string Num(double x);

std::string Pct(double x);

std::string Mhz(double mhz);

// "simulated", "measured", "modeled", "none".
std::string EnergyShort(const v1::WorkloadModel& m);

std::string Interval(bool has, double lo, double hi);

std::string TimeUnit(const v1::WorkloadModel& m);

// The model's fit, for `fit` (text).
void PrintFitted(const v1::FittedModelData& d, const std::string& unit,
                 std::ostream& out);

void PrintModelText(const v1::WorkloadModel& m, std::ostream& out);

// Rows of every candidate form of every model (csv/json for `fit`).
Table CandidatesTable(const std::vector<const v1::WorkloadModel*>& models);

// The knobs of `mode` outside the range of the modes `model`'s time model
// was fitted on (of the knobs that varied there), e.g. "gpu_mhz" or
// "cpu_mhz, mem_mhz": the prediction extrapolates in them. Empty when
// every knob lies within the range (or the model has no training modes).
std::string ExtrapolatedKnobs(const v1::WorkloadModel& model,
                              const v1::PowerMode& mode);

// The prediction rows of predict/best/pareto. Intervals are one "lo-hi"
// column in text tables and two numeric columns in csv/json (for plots).
// With `model`, a last column "extrapolated": ExtrapolatedKnobs, or "no".
Table PredictionsTable(const std::vector<const v1::ModePrediction*>& ps,
                       bool with_name, OutputFormat format,
                       const v1::WorkloadModel* model = nullptr);

// One prediction in words: "epoch time 12.3 s (90% interval 11.9-12.8),
// energy 210 J (...), mean power 17.1 W (...)".
std::string Figures(const v1::ModePrediction& p, const std::string& unit);

std::string MeasuredText(const v1::ModePrediction& p);

}  // namespace powersweep::model_tables

#endif  // POWERSWEEP_CONTROLLER_CLI_MODEL_TABLES_H_
