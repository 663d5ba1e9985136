#include "controller/sweep/expand.h"

#include <limits>

namespace powersweep {

int64_t CountRuns(const v1::SweepSpec& spec) {
  const int64_t axes[] = {spec.device_classes_size(),
                          spec.models_size(),
                          spec.datasets_size(),
                          spec.tasks_size(),
                          spec.batch_sizes_size(),
                          spec.loader_workers_size(),
                          spec.power_modes_size(),
                          spec.runtimes_size(),
                          spec.repetitions() > 0 ? spec.repetitions() : 0};
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t count = 1;
  for (int64_t n : axes) {
    if (n == 0) return 0;
    if (count > kMax / n) {
      count = kMax;  // keep going: a later empty axis still means 0
    } else {
      count *= n;
    }
  }
  return count;
}

std::vector<v1::RunSpec> ExpandSweep(const v1::SweepSpec& spec) {
  std::vector<v1::RunSpec> runs;
  runs.reserve(static_cast<size_t>(CountRuns(spec)));

  v1::WorkloadSpec base;
  base.set_epochs(spec.epochs());
  base.set_minibatches(spec.minibatches());
  base.set_duration_s(spec.duration_s());
  base.set_seed(spec.seed());
  base.set_threads(spec.threads());

  // Repetitions are the OUTERMOST loop: all cells of repetition 0 are
  // queued before any cell of repetition 1. The repetitions of one cell are
  // thereby spread over the sweep's lifetime instead of running back to
  // back, so slow drifts (temperature, throttling, background load) show up
  // as variance between repetitions rather than as a bias of one cell.
  for (int32_t rep = 0; rep < spec.repetitions(); ++rep) {
    for (const std::string& device_class : spec.device_classes()) {
      for (const std::string& model : spec.models()) {
        for (const std::string& dataset : spec.datasets()) {
          for (int task : spec.tasks()) {
            for (int32_t batch_size : spec.batch_sizes()) {
              for (int32_t workers : spec.loader_workers()) {
                for (const v1::PowerMode& mode : spec.power_modes()) {
                  for (int runtime : spec.runtimes()) {
                    v1::RunSpec& run = runs.emplace_back();
                    run.set_device_class(device_class);
                    v1::WorkloadSpec* w = run.mutable_workload();
                    *w = base;
                    w->set_model(model);
                    w->set_dataset(dataset);
                    w->set_task(static_cast<v1::Task>(task));
                    w->set_batch_size(batch_size);
                    w->set_loader_workers(workers);
                    *run.mutable_power_mode() = mode;
                    run.set_runtime(static_cast<v1::Runtime>(runtime));
                    run.set_repetition(rep);
                    run.set_telemetry_hz(spec.telemetry_hz());
                    run.set_timeout_s(spec.timeout_s());
                    run.set_attempt(1);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return runs;
}

}  // namespace powersweep
