#include "controller/modeling/profiling_sweep.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"
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

std::string KeepEarlierRunSettings(const v1::SweepSpec& earlier,
                                   const v1::PlanProfilingRequest& request,
                                   v1::SweepSpec* sweep) {
  std::vector<std::string> kept;
  if (request.repetitions() == 0 && earlier.repetitions() > 1) {
    sweep->set_repetitions(earlier.repetitions());
    kept.push_back(absl::StrCat("repetitions ", earlier.repetitions()));
  }
  if (request.minibatches() == 0 &&
      (earlier.minibatches() > 0 || earlier.epochs() > 0 ||
       earlier.duration_s() > 0)) {
    sweep->set_minibatches(earlier.minibatches());
    sweep->set_epochs(earlier.epochs());
    sweep->set_duration_s(earlier.duration_s());
    if (earlier.minibatches() > 0) {
      kept.push_back(absl::StrCat("minibatches ", earlier.minibatches()));
    } else if (earlier.epochs() > 0) {
      kept.push_back(absl::StrCat("epochs ", earlier.epochs()));
    } else {
      kept.push_back(absl::StrCat("duration ", earlier.duration_s(), " s"));
    }
  }
  if (earlier.placement() != v1::PLACEMENT_UNSPECIFIED) {
    sweep->set_placement(earlier.placement());
    if (earlier.placement() == v1::PLACEMENT_EVERY_DEVICE) {
      kept.push_back("placement every_device");
    }
  }
  if (earlier.devices_size() > 0) {
    *sweep->mutable_devices() = earlier.devices();
    kept.push_back(absl::StrCat("devices ", absl::StrJoin(earlier.devices(),
                                                          ",")));
  }
  if (earlier.tenants_size() > 0) *sweep->mutable_tenants() = earlier.tenants();
  if (earlier.has_settle()) *sweep->mutable_settle() = earlier.settle();
  // A vm size is valid only in a sweep that runs a vm runtime.
  bool vm = false;
  for (int r : sweep->runtimes()) vm |= RunsInVm(static_cast<v1::Runtime>(r));
  if (vm) {
    if (earlier.has_vm()) *sweep->mutable_vm() = earlier.vm();
    *sweep->mutable_vm_vcpus() = earlier.vm_vcpus();
    *sweep->mutable_vm_memory_mib() = earlier.vm_memory_mib();
  }
  if (earlier.prefetch_depths_size() > 0) {
    *sweep->mutable_prefetch_depths() = earlier.prefetch_depths();
  }
  if (earlier.page_cache_size() > 0) {
    *sweep->mutable_page_cache() = earlier.page_cache();
  }
  if (earlier.seed() != 0) sweep->set_seed(earlier.seed());
  if (earlier.threads() != 0) sweep->set_threads(earlier.threads());
  if (earlier.telemetry_hz() > 0) sweep->set_telemetry_hz(earlier.telemetry_hz());
  if (earlier.timeout_s() > 0) sweep->set_timeout_s(earlier.timeout_s());
  if (earlier.max_retries() > 0) sweep->set_max_retries(earlier.max_retries());
  if (!earlier.container_image().empty()) {
    sweep->set_container_image(earlier.container_image());
  }
  if (earlier.input_size() > 0) sweep->set_input_size(earlier.input_size());
  if (earlier.seq_len() > 0) sweep->set_seq_len(earlier.seq_len());
  if (earlier.vocab() > 0) sweep->set_vocab(earlier.vocab());
  return absl::StrJoin(kept, ", ");
}

}  // namespace powersweep::modeling
