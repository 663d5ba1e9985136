// Model: the interface every workload network implements, and the factory
// that builds one by name.
//
// A Model is a torch::nn::Module mapping a float batch (N, C, H, W) to class
// logits (N, num_classes). input_shape() tells the runner what (C, H, W) the
// data must have. Like any torch module, one instance must not be used from
// several threads at once.
//
// MakeModel(name) returns a freshly initialised model (weights drawn from
// torch's generator, so call torch::manual_seed first for reproducibility);
// an unknown name is kInvalidArgument listing the known ones.
#ifndef POWERSWEEP_WORKLOADS_MODELS_MODEL_H_
#define POWERSWEEP_WORKLOADS_MODELS_MODEL_H_

#include <torch/torch.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "workloads/models/catalog.h"

namespace powersweep {

class Model : public torch::nn::Module {
 public:
  // Logits for a batch of shape (N, C, H, W) where (C, H, W) == input_shape().
  virtual torch::Tensor forward(torch::Tensor x) = 0;
  // (channels, height, width) of one input sample.
  virtual std::array<int64_t, 3> input_shape() const = 0;
  virtual int64_t num_classes() const = 0;
};

absl::StatusOr<std::shared_ptr<Model>> MakeModel(const std::string& name);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_MODEL_H_
