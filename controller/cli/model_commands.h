// The powersweep CLI's model commands: fit, models, predict,
// best, pareto, plan-profiling. Like commands.h: each takes a connected
// Control stub, writes its report to `out` (notes to `err` when the format
// is csv or json, so `out` stays machine-readable) and returns the exit
// code (0 ok, 1 failed request, 3 controller unreachable). Every report of
// figures says they are predictions, from which model fitted on which runs,
// with which data provenance (or that they are measured).
// Thread-compatible (one command at a time).
#ifndef POWERSWEEP_CONTROLLER_CLI_MODEL_COMMANDS_H_
#define POWERSWEEP_CONTROLLER_CLI_MODEL_COMMANDS_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "controller/cli/commands.h"
#include "powersweep/v1/control.grpc.pb.h"
#include "powersweep/v1/modeling.pb.h"

namespace powersweep {

// `fit --sweep ID`: fits and prints each model (form, coefficients with
// their names, in-sample and cross-validated MAPE, every candidate form's
// CV MAPE, data provenance) and the groups that could not be fitted.
// `reference_model_id` > 0: transfer from that model (--reference-model,
// FitModelsRequest.reference_model_id). Exit 1 when no model was fitted.
int CmdFit(v1::Control::StubInterface* stub, const CliOptions& opt,
           const std::string& instances, int64_t reference_model_id,
           std::ostream& out, std::ostream& err);
// `models`: the stored models matching `selector` (all when empty).
int CmdModels(v1::Control::StubInterface* stub,
              const v1::ModelSelector& selector, const CliOptions& opt,
              std::ostream& out, std::ostream& err);
// `predict`: the modes of `request` (parsed --mode / --preset values).
int CmdPredict(v1::Control::StubInterface* stub,
               const v1::PredictRequest& request, const CliOptions& opt,
               std::ostream& out, std::ostream& err);
// `best`: one budget set in `request`.
int CmdBest(v1::Control::StubInterface* stub, const v1::BestRequest& request,
            const CliOptions& opt, std::ostream& out, std::ostream& err);
// `pareto [--measured]`: the front as a table (csv for plotting).
int CmdPareto(v1::Control::StubInterface* stub,
              const v1::ParetoRequest& request, const CliOptions& opt,
              std::ostream& out, std::ostream& err);
// `plan-profiling`: the proposed modes; the sweep YAML goes to `out_file`
// (or to `out` when empty, with the table on `err`).
int CmdPlanProfiling(v1::Control::StubInterface* stub,
                     const v1::PlanProfilingRequest& request,
                     const std::string& out_file, const CliOptions& opt,
                     std::ostream& out, std::ostream& err);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_MODEL_COMMANDS_H_
