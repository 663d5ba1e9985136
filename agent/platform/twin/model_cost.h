// ModelCost: the work of one sample of a model at a given input shape,
// derived by walking the network's layers (agent/platform/twin/
// model_walker.h), never typed-in totals: multiply-accumulates of the
// forward pass (convolutions and linear layers, the convention of
// torchvision's published figures), trainable parameters, activation
// values written, and the GPU kernels a LibTorch eager-mode minibatch
// launches. The twin's performance model turns these into time
// (agent/platform/twin/perf_model.h); the data set's part of a run is
// DatasetCost (dataset_cost.h).
//
// Models, as torchvision 0.14 builds them (workloads/models/ builds the same
// networks):
//   lenet5       1x28x28 only (its first linear layer is 16*5*5 wide)
//   resnet18     BasicBlock [2,2,2,2], ImageNet stem (7x7/2 conv, 3x3/2 pool)
//   resnet50     Bottleneck [3,4,6,3] (stride on the 3x3 conv, "v1.5")
//   vgg11        configuration "A" without batch norm, 7x7 adaptive pool,
//                classifier 25088-4096-4096-classes
//   mobilenetv3  MobileNetV3-Large: inverted residual blocks with
//                squeeze-excitation, hardswish, classifier 960-1280-classes
//   vae          Fathom's autoencoder: linear 784->200 (mean), 784->200
//                (log variance), 200->784 (decoder); 1x28x28 only
//   dqn          Nature DQN on 4 of the sample's 5 84x84 frames: conv
//                8x8/4, 4x4/2, 3x3/1, linear 3136->512->actions; 5x84x84
//                only (the frames data set)
//   gpt2_small   12 pre-LayerNorm transformer blocks (d 768, 12 heads, MLP
//                3072), tied output layer over 50,257 tokens; the input is
//                1 x seq_len (ModelInput.size = seq_len, 1..1023) and
//                classes the vocabulary (50257 only); attention's QK^T and
//                AV products are counted in forward_macs; inference also
//                generates 16 tokens with a KV cache (infer_extra_macs)
//   lstm_lm      PyTorch's word_language_model: embedding 200, 2-layer
//                LSTM 200, decoder 200-vocab
//   mobilebert   MobileBERT (24 bottleneck layers, hidden 512, bottleneck
//                128, 4 heads, 4 FFNs) with its masked-LM head
//   deepspeech2  Deep Speech 2 at edge size: 2 convolutions over 80 log-mel
//                bands, 3 bidirectional GRU layers of 256, linear 512->29
//                (speech_model_cost.cc); ModelInput {1, frames, 29}, frames
//                32..3000 (common/speech_models.h), default 256
//   seq2seq      GRU encoder-decoder (embedding 256, 2 layers of 512) with
//                Luong attention; inference decodes greedily, one step per
//                target token (infer_kernels, infer_weight_reads)
//   seq2seq_lstm the same with LSTM cells (4 gates to the GRU's 3)
//   memnet       end-to-end memory network (d 20, 50 memory sentences, 3
//                hops, adjacent tying); size = words per sentence
// lstm_lm, mobilebert, seq2seq, seq2seq_lstm and memnet take ModelInput
// {1, seq_len, vocab} as gpt2_small does: size is the tokens read per
// sample (memnet: per sentence) and classes the vocabulary
// (text_model_cost.cc); their defaults are common/text_models.h's (35 /
// 33,278, 128 / 30,522, 30 / 40,000 for both seq2seqs and 8 / 23).
// Study defaults (ModelCostFor(model)): lenet5 1x28x28/10 classes, resnet18
// and vgg11 3x32x32/10 (CIFAR-10), mobilenetv3 3x224x224/2000 (GLD23k as
// gen-dataset generates it), resnet50 3x224x224/1000 (ImageNet), vae
// 1x28x28/10, dqn 5x84x84/3 actions (catch-frames), gpt2_small 1x128/50257.
//
// Kernels per minibatch: inference = forward kernels + 1 (output copy);
// training = forward + 2 (loss: log_softmax, nll) + 2 x forward (backward)
// + parameter tensors (zero_grad) + 2 x parameter tensors (SGD step).
// Dropout is not counted (identity at inference, one small kernel in
// training).
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_COST_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_COST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace powersweep {

// The tensor one sample feeds the model: channels x size x size, and the
// width of the classifier's output.
struct ModelInput {
  int channels = 0;
  int size = 0;
  int classes = 0;
};

struct ModelCost {
  std::string name;
  ModelInput input;
  double forward_macs = 0;        // per sample (conv + linear)
  // The part of forward_macs in depthwise convolutions (groups equal to
  // the input channels, > 1): MobileNetV3's 3x3 and 5x5 spatial filters.
  double depthwise_macs = 0;
  double params = 0;              // trainable parameters
  double activations = 0;         // output values of every layer, per sample
  double input_values = 0;        // per sample (channels x size x size)
  int forward_kernels = 0;        // kernels of one forward pass
  int param_tensors = 0;          // weight and bias tensors
  int train_kernels = 0;          // kernels per training minibatch
  int infer_kernels = 0;          // kernels per inference minibatch
  // Heads that run in training only (Inception-v3's auxiliary classifier):
  // per sample, not part of the figures above; their parameters are in
  // params and param_tensors, their kernels in train_kernels.
  double train_only_macs = 0;
  double train_only_activations = 0;
  int train_only_kernels = 0;     // forward kernels of those heads
  // Work beyond the forward pass (and, in training, its backward), per
  // sample: dqn's second forward pass on the next states (the target
  // network's in training, the online network's in inference; no
  // backward), gpt2_small's generation after the prompt in inference (one
  // forward pass of one position per generated token, attending to the KV
  // cache). Their kernels are in train_kernels / infer_kernels.
  double train_extra_macs = 0;
  double infer_extra_macs = 0;
  // How many times an inference minibatch reads the weights: once for the
  // forward pass, once more per generated token.
  double infer_weight_reads = 1;
  // Tokens an inference pass generates per sample (gpt2_small: 16, the
  // workload's default); 0 for models that do not generate.
  int generated_tokens = 0;

  double ForwardFlops() const { return 2 * forward_macs; }
};

// The models the twin can cost, sorted: common/model_names.h.
std::vector<std::string> TwinModelNames();

// The study default input of `model` (see above); NotFound naming the model
// and the known ones.
absl::StatusOr<ModelInput> DefaultModelInput(const std::string& model);

// The cost of `model` at its study default input.
absl::StatusOr<ModelCost> ModelCostFor(const std::string& model);

// The cost of `model` at `input`. NotFound naming an unknown model;
// InvalidArgument naming the model and the shape when the network cannot
// take it (lenet5 and vae need 1x28x28, dqn 5x84x84, gpt2_small 1 x 1..1023
// with 50257 classes; the others 3 channels and at least 32x32;
// classes >= 1).
absl::StatusOr<ModelCost> ModelCostFor(const std::string& model,
                                       const ModelInput& input);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_COST_H_
