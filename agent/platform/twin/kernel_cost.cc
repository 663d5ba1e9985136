#include "agent/platform/twin/kernel_cost.h"

namespace powersweep {

TwinWorkloadShape TwinKernelShape(const KernelShape& kernel) {
  const KernelCost k = KernelCostOf(kernel);
  TwinWorkloadShape w;
  ModelCost& m = w.cost;
  m.name = kernel.FamilyName();
  m.forward_macs = k.flops / 2;
  m.activations = k.bytes / 8;
  const int launches = static_cast<int>(k.launches + 0.5);
  m.forward_kernels = launches;
  m.infer_kernels = launches;
  m.train_kernels = launches;
  DatasetCost& d = w.dataset;
  d.name = kKernelDatasetName;
  d.format = DatasetFormat::kIdxGzip;  // loaded at start: nothing per epoch
  // No epochs: a split no run reaches the end of.
  d.train.samples = d.infer.samples = int64_t{1} << 50;
  w.train = false;
  w.batch_size = 1;
  w.preload = true;
  w.preload_minibatches = 1;
  return w;
}

}  // namespace powersweep
