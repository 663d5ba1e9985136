// Model: the interface every workload network implements, and the factory
// that builds one by name.
//
// A Model is a torch::nn::Module mapping a float batch (N, C, H, W) to class
// logits (N, num_classes). input_shape() tells the runner what (C, H, W) the
// data must have. The sequence models (lstm_lm, mobilebert, seq2seq,
// seq2seq_lstm, memnet; catalog.h) take token ids carried as floats, (N, 1, 1, tokens per
// sample), and return per-token logits (N, seq_len, vocab) (memnet: the
// answer's logits, (N, vocab)). Like any torch module, one instance must not be used from
// several threads at once.
//
// The networks are torchvision 0.14's reference architectures (LeNet-5 is
// the studies' own), and their named_parameters()/named_buffers() keys are
// torchvision's state_dict keys ("layer1.0.conv1.weight", ...), so weights
// move between the two by name (see state_export.h).
//
// MakeModel(name, options) returns a freshly initialised model in training
// mode (torchvision's init, weights drawn from torch's generator, so call
// torch::manual_seed first for reproducibility). Bad names or options are
// kInvalidArgument as ResolveModelOptions (catalog.h) reports them; a
// failure inside LibTorch (e.g. out of memory) is kInternal or
// kResourceExhausted.
#ifndef POWERSWEEP_WORKLOADS_MODELS_MODEL_H_
#define POWERSWEEP_WORKLOADS_MODELS_MODEL_H_

#include <torch/torch.h>

#include <array>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "workloads/models/catalog.h"
#include "workloads/models/describe.h"  // DescribeModel, for convenience

namespace powersweep {

class Model : public torch::nn::Module {
 public:
  explicit Model(ResolvedModel shape) : shape_(std::move(shape)) {}
  // Logits for a batch of shape (N, C, H, W) where (C, H, W) == input_shape().
  virtual torch::Tensor forward(torch::Tensor x) = 0;
  // The minibatch's mean loss in the module's current mode (train() or
  // eval()): by default the cross-entropy of forward(input) against
  // `labels` (int64, one per sample). A model whose training loss is
  // something else overrides it (Inception-v3 adds 0.4 x its auxiliary
  // classifier's loss in training mode, as torchvision's reference
  // training does).
  virtual torch::Tensor Loss(const torch::Tensor& input,
                             const torch::Tensor& labels);
  // The `synthetic` data set: (input, labels) of `n` random samples made in
  // memory, drawn from torch's generator (seeded by the caller). By default
  // standard-normal inputs of input_shape() and labels uniform in
  // 0..num_classes()-1; models whose input is not an image (token ids,
  // spectrograms) override it.
  virtual std::pair<torch::Tensor, torch::Tensor> SyntheticBatch(int64_t n);
  // Canonical model name (catalog.h).
  const std::string& model_name() const { return shape_.name; }
  // (channels, height, width) of one input sample.
  std::array<int64_t, 3> input_shape() const { return shape_.input_shape; }
  int64_t num_classes() const { return shape_.num_classes; }
  // Sequence models: tokens read per sample and vocabulary (0 otherwise).
  int64_t seq_len() const { return shape_.seq_len; }
  int64_t vocab() const { return shape_.vocab; }

 private:
  ResolvedModel shape_;
};

absl::StatusOr<std::shared_ptr<Model>> MakeModel(
    const std::string& name, const ModelOptions& options = {});

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_MODEL_H_
