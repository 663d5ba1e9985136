#include "agent/platform/twin/model_cost.h"

#include "absl/strings/str_cat.h"

namespace powersweep {
namespace {

struct Conv {
  double in_ch, out_ch, kernel, out_hw;
};
struct Linear {
  double in, out;
};

// LeNet-5 as workloads/models/lenet5.cc builds it, on 1x28x28 input:
// conv1 1->6 5x5 pad 2 (28x28) relu pool2 (14x14), conv2 6->16 5x5 (10x10)
// relu pool2 (5x5), fc 400->120 relu, 120->84 relu, 84->10.
ModelCost LeNet5() {
  const Conv convs[] = {{1, 6, 5, 28}, {6, 16, 5, 10}};
  const Linear fcs[] = {{400, 120}, {120, 84}, {84, 10}};
  ModelCost c;
  c.name = "lenet5";
  c.input_values = 28 * 28;
  for (const Conv& v : convs) {
    const double out = v.out_ch * v.out_hw * v.out_hw;
    c.forward_macs += out * v.in_ch * v.kernel * v.kernel;
    c.params += v.out_ch * v.in_ch * v.kernel * v.kernel + v.out_ch;
    // conv output, relu output, pooled output (a quarter)
    c.activations += out + out + out / 4;
  }
  for (size_t i = 0; i < sizeof(fcs) / sizeof(fcs[0]); ++i) {
    c.forward_macs += fcs[i].in * fcs[i].out;
    c.params += fcs[i].in * fcs[i].out + fcs[i].out;
    c.activations += fcs[i].out * (i + 1 < 3 ? 2 : 1);  // + relu but last
  }
  // Kernels: forward = 2 x (conv, relu, pool) + 3 linear + 2 relu = 11;
  // inference adds the output copy (12). Training adds the loss
  // (log_softmax, nll: 2), backward (~2 per forward kernel: 22), zero_grad
  // (10 parameter tensors) and the SGD step (2 per tensor: 20) = 65.
  c.infer_kernels = 12;
  c.train_kernels = 11 + 2 + 22 + 10 + 20;
  // Fashion-MNIST gzip files: train-images 26421856 + train-labels 29491
  // bytes; t10k-images 4422079 + t10k-labels 5125 bytes.
  c.train_file_bytes = 26421856.0 + 29491.0;
  c.infer_file_bytes = 4422079.0 + 5125.0;
  c.train_samples = 60000;
  c.infer_samples = 10000;
  return c;
}

}  // namespace

absl::StatusOr<ModelCost> ModelCostFor(const std::string& model) {
  if (model == "lenet5") return LeNet5();
  return absl::NotFoundError(
      absl::StrCat("model \"", model, "\" has no twin cost model (known: lenet5)"));
}

}  // namespace powersweep
