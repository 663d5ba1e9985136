// ModelCost: the work of one sample of a model, derived from its layer
// shapes (not a measured constant): multiply-accumulates of the forward
// pass, parameters, activation values written, and the number of GPU
// kernels a LibTorch eager-mode minibatch launches. The twin's performance
// model turns these into time (agent/platform/twin/perf_model.h).
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_COST_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_COST_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace powersweep {

struct ModelCost {
  std::string name;
  double forward_macs = 0;        // per sample
  double params = 0;              // trainable parameters
  double activations = 0;         // output values of every layer, per sample
  double input_values = 0;        // per sample (28 x 28 = 784)
  int train_kernels = 0;          // kernels per training minibatch
  int infer_kernels = 0;          // kernels per inference minibatch
  // Dataset files the workload loads at start (Fashion-MNIST, gzip IDX).
  double train_file_bytes = 0;    // compressed, on storage
  double infer_file_bytes = 0;
  double train_samples = 0;       // samples per epoch
  double infer_samples = 0;

  double ForwardFlops() const { return 2 * forward_macs; }
};

// The cost of `model` ("lenet5"), or NotFound naming it.
absl::StatusOr<ModelCost> ModelCostFor(const std::string& model);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_COST_H_
