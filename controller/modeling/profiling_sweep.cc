#include "controller/modeling/profiling_sweep.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/modeling/model_proto.h"

namespace powersweep::modeling {

v1::PlanProfilingRequest WithPlanDefaults(const v1::PlanProfilingRequest& in) {
  v1::PlanProfilingRequest r = in;
  if (r.model().empty()) r.set_model("lenet5");
  if (r.dataset().empty()) r.set_dataset("fashion-mnist");
  if (r.task() == v1::TASK_UNSPECIFIED) r.set_task(v1::TASK_TRAIN);
  if (r.batch_size() == 0) r.set_batch_size(64);
  if (r.runtime() == v1::RUNTIME_UNSPECIFIED) r.set_runtime(v1::RUNTIME_NATIVE);
  if (r.minibatches() == 0) r.set_minibatches(kDefaultPlanMinibatches);
  if (r.repetitions() == 0) r.set_repetitions(1);
  if (r.name().empty()) {
    r.set_name(absl::StrCat(
        "plan-", r.device_class(), "-", r.model(), "-k", r.k(),
        r.after_sweep_id() != 0 ? absl::StrCat("-after", r.after_sweep_id())
                                : ""));
  }
  return r;
}

v1::SweepSpec ProfilingSweep(const v1::PlanProfilingRequest& in,
                             const std::vector<CustomMode>& modes) {
  const v1::PlanProfilingRequest r = WithPlanDefaults(in);
  v1::SweepSpec s;
  s.set_name(r.name());
  s.add_device_classes(r.device_class());
  s.add_models(r.model());
  s.add_datasets(r.dataset());
  s.add_tasks(r.task());
  s.add_batch_sizes(r.batch_size());
  s.add_loader_workers(r.loader_workers());
  s.add_runtimes(r.runtime());
  for (const CustomMode& m : modes) *s.add_power_modes() = ToPowerMode(m);
  s.set_repetitions(r.repetitions());
  s.set_minibatches(r.minibatches());
  s.set_seed(1);
  s.set_telemetry_hz(10);
  return s;
}

}  // namespace powersweep::modeling
