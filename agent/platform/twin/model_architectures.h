// The networks the twin knows, walked layer by layer with ModelWalker as
// torchvision 0.14 (and workloads/models/) builds them. Internal to
// model_cost.cc, which checks the input before calling these.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_ARCHITECTURES_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_ARCHITECTURES_H_

#include "agent/platform/twin/model_cost.h"

namespace powersweep {

// LeNet-5 (workloads/models/lenet5.cc) on 1x28x28: conv 1->6 5x5 pad 2,
// relu, max pool 2; conv 6->16 5x5, relu, max pool 2; linear 400->120, relu,
// 120->84, relu, 84->classes. Convolutions have biases.
ModelCost LeNet5Cost(const ModelInput& input);

// torchvision resnet18 (BasicBlock, [2, 2, 2, 2]).
ModelCost ResNet18Cost(const ModelInput& input);
// torchvision resnet50 (Bottleneck, [3, 4, 6, 3], expansion 4).
ModelCost ResNet50Cost(const ModelInput& input);
// torchvision vgg11 (configuration "A", no batch norm).
ModelCost Vgg11Cost(const ModelInput& input);
// torchvision vgg19 (configuration "E", no batch norm).
ModelCost Vgg19Cost(const ModelInput& input);
// torchvision alexnet (5 convs with bias, 3 max pools 3x3/2, 6x6 adaptive
// pool, classifier 9216-4096-4096-classes).
ModelCost AlexNetCost(const ModelInput& input);
// torchvision squeezenet1_1 (8 Fire modules, ceil-mode max pools, 1x1
// conv classifier).
ModelCost SqueezeNet11Cost(const ModelInput& input);
// torchvision inception_v3 (aux_logits=True): the auxiliary classifier's
// work is training-only (ModelCost::train_only_*); input >= 299 so that it
// fits.
ModelCost InceptionV3Cost(const ModelInput& input);
// torchvision mobilenet_v3_large (width 1.0).
ModelCost MobileNetV3LargeCost(const ModelInput& input);

// Fathom's VAE (workloads/models/vae.cc) on 1x28x28.
ModelCost VaeCost(const ModelInput& input);
// The Nature DQN (workloads/models/dqn.cc) on 5x84x84 transitions.
ModelCost DqnCost(const ModelInput& input);
// GPT-2 small (workloads/models/gpt2.cc) on 1 x seq_len token ids.
ModelCost Gpt2SmallCost(const ModelInput& input);
// The sequence models (text_model_cost.cc); input = {1, seq_len, vocab}.
// lstm_lm: PyTorch's word_language_model (200-wide, 2 LSTM layers).
ModelCost LstmLmCost(const ModelInput& input);
// mobilebert: 24 bottleneck layers with the masked-LM head.
ModelCost MobileBertCost(const ModelInput& input);
// deepspeech2 (speech_model_cost.cc); input = {1, frames, 29}.
ModelCost DeepSpeech2Cost(const ModelInput& input);
// seq2seq: GRU encoder-decoder with attention, greedy decoding in inference.
ModelCost Seq2SeqCost(const ModelInput& input);
// seq2seq_lstm: the same network with LSTM cells.
ModelCost Seq2SeqLstmCost(const ModelInput& input);
// memnet: end-to-end memory network; size = words per sentence.
ModelCost MemNetCost(const ModelInput& input);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_ARCHITECTURES_H_
