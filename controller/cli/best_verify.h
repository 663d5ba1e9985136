// `powersweep best --verify N`: a `best` answer from measurements, in up to
// N rounds of one run each (Fulcrum's verification, on powersweep's models):
//
//  each round: Best with candidates on the latest fit, the first candidate
//     not measured yet (the pick, unless it is measured) run once like the
//     model's runs (same workload, stop condition, runtime, settle, ...) on
//     the device given with --device or any device of the class, in a
//     sweep of its own that `watch` follows; then a fit of the model's
//     sweeps and every verification sweep so far, which the next round
//     asks;
//  then: Best over the measured modes of the last fit
//     (BestRequest.measured_only): the answer, with what each round
//     predicted and measured.
// Exit codes as the other commands; 1 when a verification run failed or
// no measured mode meets the budget.
#ifndef POWERSWEEP_CONTROLLER_CLI_BEST_VERIFY_H_
#define POWERSWEEP_CONTROLLER_CLI_BEST_VERIFY_H_

#include <ostream>
#include <vector>

#include "controller/cli/commands.h"
#include "powersweep/v1/control.grpc.pb.h"
#include "powersweep/v1/modeling.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/sweep.pb.h"

namespace powersweep {

// The sweep that runs `modes` once each like `like` (a run of the model):
// one device class and workload, the run's stop condition, seed, threads,
// telemetry rate, timeout, runtime, tenants, settle, container image, vm;
// on `device` when given, else on the run's pinned devices (if any).
v1::SweepSpec VerificationSweep(const v1::RunSpec& like,
                                const std::vector<v1::PowerMode>& modes,
                                const std::string& device,
                                const std::string& name);

int CmdBestVerify(v1::Control::StubInterface* stub,
                  const v1::BestRequest& request, int rounds,
                  const CliOptions& opt, std::ostream& out,
                  std::ostream& err);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_BEST_VERIFY_H_
