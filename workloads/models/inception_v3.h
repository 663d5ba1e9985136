// Inception-v3 as torchvision 0.14's inception_v3 builds it with
// aux_logits=True, transform_input=False (27.2 M parameters at 1,000
// classes, the auxiliary classifier included), for 3xSxS images: S >= 75
// for the main network (its stem and two stride-2 Inception blocks leave
// 1x1 there) and S >= 299 in training, where the auxiliary classifier (a
// 5x5/3 average pool and a 5x5 conv on Mixed_6e's map) runs too.
//
// Modules and parameter names are torchvision's: Conv2d_1a_3x3 ..
// Conv2d_4a_3x3 (BasicConv2d: conv without bias, batch norm eps 0.001,
// ReLU; "Conv2d_1a_3x3.conv.weight", ".bn.running_mean"), Mixed_5b..5d
// (InceptionA), Mixed_6a (B), Mixed_6b..6e (C), AuxLogits (conv0, conv1,
// fc), Mixed_7a (D), Mixed_7b, 7c (E), fc; the branch names inside a block
// are torchvision's ("Mixed_6b.branch7x7dbl_3.conv.weight").
//
// forward() returns the main logits (eval and training). ForwardWithAux()
// also returns the auxiliary logits in training mode (undefined in eval,
// where torchvision skips the head too). Loss() in training mode is
// CE(main) + 0.4 x CE(aux), as torchvision's reference training
// (references/classification/train.py) computes it; in eval mode CE(main).
//
// Init as torchvision: convs and linears normal with std 0.1 (AuxLogits'
// conv1 0.01, its fc 0.001) truncated at +-2 (at these deviations the
// truncation never triggers, so plain normal draws are used), the main and
// auxiliary fc biases PyTorch's default, batch norms 1/0. Not thread-safe
// (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_INCEPTION_V3_H_
#define POWERSWEEP_WORKLOADS_MODELS_INCEPTION_V3_H_

#include <string>
#include <utility>
#include <vector>

#include "workloads/models/counted_layers.h"
#include "workloads/models/model.h"

namespace powersweep {

class InceptionV3 : public Model {
 public:
  explicit InceptionV3(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;
  // (main logits, auxiliary logits); the second is defined in training
  // mode only.
  std::pair<torch::Tensor, torch::Tensor> ForwardWithAux(torch::Tensor x);
  torch::Tensor Loss(const torch::Tensor& input,
                     const torch::Tensor& labels) override;

  // The weight of the auxiliary loss in training (torchvision's 0.4).
  static constexpr double kAuxLossWeight = 0.4;

 private:
  // Registers `module` as `name` (torchvision's key) and appends it to
  // `stage`, run in order by ForwardWithAux.
  template <typename M>
  void Add(std::vector<torch::nn::AnyModule>* stage, const std::string& name,
           M module) {
    stage->emplace_back(register_module(name, module));
  }

  std::vector<torch::nn::AnyModule> to_aux_;     // stem .. Mixed_6e
  std::vector<torch::nn::AnyModule> after_aux_;  // Mixed_7a .. Mixed_7c
  torch::nn::AnyModule aux_;                     // AuxLogits
  MacLinear fc_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_INCEPTION_V3_H_
