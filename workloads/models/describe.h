// What `powersweep-workload describe` reports about a model: parameter
// count and the multiply-accumulates (MACs) of one forward pass at batch
// size 1, both taken from the built network, not from a table.
//
// MACs convention: multiply-accumulates of every Conv2d and Linear layer in
// one forward pass of one sample (bias additions, batch norms, activations
// and pooling not counted; the sequence models add their LSTM gates'
// matrix products, attention's QK^T and PV products and the masked-LM
// decoder, see lstm_lm.h and mobilebert.h) -- the convention of torchvision's "GFLOPS"
// column and of the SIGMETRICS study's FLOPs column. They are counted by
// running that forward pass (counted_layers.h), so any change to a layer
// changes the count.
//
// DescribeModel builds the model (errors as MakeModel's); DescribeBuiltModel
// counts an existing one: it runs one forward pass on a zero image in eval
// mode under no-grad and restores the module's training flag, so it must
// not run while another thread uses the model. LibTorch failures are
// kInternal / kResourceExhausted. FormatModelDescription is pure.
#ifndef POWERSWEEP_WORKLOADS_MODELS_DESCRIBE_H_
#define POWERSWEEP_WORKLOADS_MODELS_DESCRIBE_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "workloads/models/catalog.h"

namespace powersweep {

class Model;  // model.h, which includes this header

struct ModelDescription {
  std::string name;
  int64_t params = 0;
  int64_t trainable_params = 0;  // parameters with requires_grad
  int64_t forward_macs = 0;      // per sample, batch size 1
  std::array<int64_t, 3> input_shape{};  // (channels, height, width)
  int64_t num_classes = 0;  // sequence models: == vocab
  int64_t seq_len = 0;  // sequence models (input_shape = 1x1xtokens)
  int64_t vocab = 0;
  int64_t gen_tokens = 0;   // gpt2_small: tokens generated (inference)
};

absl::StatusOr<ModelDescription> DescribeModel(const std::string& name,
                                               const ModelOptions& options);

absl::StatusOr<ModelDescription> DescribeBuiltModel(Model& model);

// Several lines of "label  value" text, ending with a newline: model,
// input, classes (for sequence models: sequence, vocabulary), parameters (with thousands separators and in millions),
// forward MACs (in G or M), and the counting convention.
std::string FormatModelDescription(const ModelDescription& d);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_DESCRIBE_H_
