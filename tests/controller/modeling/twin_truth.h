// The truth the modeling tests and benches check predictions against: a
// twin device's expected epoch time and energy at a mode, with no noise
// (agent/platform/twin, docs/twin-model.md): the twin's expected minibatch
// timing, its power model under that timing's load, epoch time = e2e_s x
// minibatches per epoch, energy = mean power x time. The instance's
// variation (speed, static power) applies.
#ifndef POWERSWEEP_TESTS_CONTROLLER_MODELING_TWIN_TRUTH_H_
#define POWERSWEEP_TESTS_CONTROLLER_MODELING_TWIN_TRUTH_H_

#include <cstdint>
#include <string>

#include "agent/platform/twin/dataset_cost.h"
#include "agent/platform/twin/model_cost.h"
#include "agent/platform/twin/perf_model.h"
#include "agent/platform/twin/power_model.h"
#include "agent/platform/twin/twin_class.h"
#include "agent/platform/twin/twin_random.h"
#include "common/power/mode_space.h"
#include "controller/modeling/mode_point.h"

namespace powersweep::modeling {

class TwinTruth {
 public:
  // `cost` at `dataset` (DatasetCostFor: "fashion-mnist", "cifar10", ...),
  // training with 0 loader workers.
  TwinTruth(const std::string& device_class, const ModelCost& cost,
            const std::string& dataset, int batch_size, uint64_t seed,
            int instance = 0)
      : cls_(FindTwinClass(device_class)),
        variation_(VariationFor(seed, device_class, instance)),
        perf_(cls_, variation_) {
    shape_.cost = cost;
    shape_.dataset = *DatasetCostFor(dataset);
    shape_.train = true;
    shape_.batch_size = batch_size;
    shape_.loader_workers = 0;
  }

  ModePoint At(const CustomMode& m) const {
    const OperatingPoint op{m.cpu_cores, m.cpu_freq_khz, m.gpu_freq_hz,
                            m.mem_freq_hz};
    const MinibatchTiming t = perf_.Expected(op, shape_);
    const PowerBreakdown p =
        ModelPower(*cls_, variation_, op, perf_.LoadOf(t, op, shape_));
    ModePoint out;
    out.mode = m;
    out.time_s = t.e2e_s * perf_.BatchesPerEpoch(shape_);
    out.power_w = p.total_mw / 1000;
    out.energy_j = out.power_w * out.time_s;
    return out;
  }

 private:
  const TwinClass* cls_;
  const InstanceVariation variation_;
  const PerfModel perf_;
  TwinWorkloadShape shape_;
};

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_TESTS_CONTROLLER_MODELING_TWIN_TRUTH_H_
