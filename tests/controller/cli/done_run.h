// A finished run as the Control service returns it, for the CLI's table
// tests: LeNet-5 training on an Orin AGX twin, 10 minibatches, energy
// simulated.
#ifndef POWERSWEEP_TESTS_CONTROLLER_CLI_DONE_RUN_H_
#define POWERSWEEP_TESTS_CONTROLLER_CLI_DONE_RUN_H_

#include <cstdint>

#include "powersweep/v1/control.pb.h"

namespace powersweep {

inline v1::RunStatus DoneRun(int64_t id, double mean_minibatch_s,
                             double duration_s, double energy_j) {
  v1::RunStatus r;
  r.mutable_spec()->set_run_id(id);
  r.mutable_spec()->set_device_class("orin-agx");
  r.mutable_spec()->mutable_workload()->set_model("lenet5");
  r.mutable_spec()->mutable_workload()->set_task(v1::TASK_TRAIN);
  r.set_state(v1::RUN_STATE_DONE);
  v1::RunSummary* s = r.mutable_summary();
  s->set_minibatches(10);
  s->set_mean_minibatch_s(mean_minibatch_s);
  s->set_duration_s(duration_s);
  s->set_energy_j(energy_j);
  // Power read over the whole run (SummarizeRun sets these).
  if (energy_j > 0 && duration_s > 0) {
    s->set_energy_span_s(duration_s);
    s->set_mean_power_mw(energy_j * 1000 / duration_s);
  }
  s->set_energy_provenance(v1::PROVENANCE_SIMULATED);
  return r;
}

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_CONTROLLER_CLI_DONE_RUN_H_
