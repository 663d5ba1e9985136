#include "workloads/models/describe.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "workloads/models/counted_layers.h"
#include "workloads/models/model.h"
#include "workloads/models/token_generator.h"
#include "workloads/torch_status.h"

namespace powersweep {
namespace {

std::string WithThousands(int64_t v) {
  std::string digits = absl::StrCat(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

}  // namespace

absl::StatusOr<ModelDescription> DescribeModel(const std::string& name,
                                               const ModelOptions& options) {
  absl::StatusOr<std::shared_ptr<Model>> model = MakeModel(name, options);
  if (!model.ok()) return model.status();
  return DescribeBuiltModel(**model);
}

absl::StatusOr<ModelDescription> DescribeBuiltModel(Model& model) {
  ModelDescription d;
  d.name = model.model_name();
  d.input_shape = model.input_shape();
  d.num_classes = model.num_classes();
  d.seq_len = model.seq_len();
  d.vocab = model.vocab();
  if (auto* g = dynamic_cast<TokenGenerator*>(&model)) {
    d.gen_tokens = g->GeneratedTokensPerSample();
  }
  for (const torch::Tensor& p : model.parameters()) {
    d.params += p.numel();
    if (p.requires_grad()) d.trainable_params += p.numel();
  }
  const bool was_training = model.is_training();
  model.eval();
  absl::Status st = CatchTorchErrors(
      absl::StrCat("counting the MACs of ", d.name), [&]() {
        torch::NoGradGuard no_grad;
        MacCount count;
        const auto& s = d.input_shape;
        torch::TensorOptions where = torch::kFloat32;
        const std::vector<torch::Tensor> params = model.parameters();
        if (!params.empty()) where = where.device(params[0].device());
        model.forward(torch::zeros({1, s[0], s[1], s[2]}, where));
        d.forward_macs = count.macs();
        return absl::OkStatus();
      });
  model.train(was_training);
  if (!st.ok()) return st;
  return d;
}

std::string FormatModelDescription(const ModelDescription& d) {
  const double macs = static_cast<double>(d.forward_macs);
  const std::string macs_short =
      macs >= 1e9 ? absl::StrFormat("%.2f G", macs / 1e9)
                  : absl::StrFormat("%.2f M", macs / 1e6);
  const bool speech = d.vocab == 0 && d.seq_len > 0;
  const std::string input =
      speech
          ? absl::StrCat(d.input_shape[0], "x", d.input_shape[1], "x",
                         d.input_shape[2], " (", d.seq_len, " frames of ",
                         d.input_shape[2],
                         " log-mel bands + the transcript row)\n",
                         "classes      ", d.num_classes,
                         " (CTC blank + 28 characters)\n")
      : d.vocab > 0
          ? absl::StrCat(d.input_shape[2], " token ids (",
                         d.input_shape[2] > d.seq_len + 1
                             ? absl::StrCat(d.input_shape[2] / d.seq_len,
                                            " sentences of ", d.seq_len,
                                            " words: memory and question")
                             : absl::StrCat("sequence length ", d.seq_len),
                         d.input_shape[2] == d.seq_len + 1 ? " + 1 target"
                                                           : "",
                         ")",
                         d.gen_tokens > 0
                             ? absl::StrCat(", ", d.gen_tokens,
                                            " generated in inference")
                             : "",
                         "\n", "vocabulary   ", d.vocab, " tokens\n")
          : absl::StrCat(d.input_shape[0], "x", d.input_shape[1], "x",
                         d.input_shape[2], " (channels x height x width)\n",
                         "classes      ", d.num_classes, "\n");
  return absl::StrCat(
      "model        ", d.name, "\n",
      "input        ", input,
      "parameters   ", WithThousands(d.params),
      absl::StrFormat(" (%.2f M), ", d.params / 1e6),
      WithThousands(d.trainable_params), " trainable\n",
      "forward MACs ", WithThousands(d.forward_macs), " (", macs_short,
      ") per forward pass at batch size 1\n",
      "convention   MACs = multiply-accumulates of every Conv2d and Linear "
      "layer (torchvision's \"GFLOPS\" column; FLOPs = 2 x MACs in the "
      "other convention)",
      d.vocab > 0 ? ", plus LSTM/GRU gate and attention matrix products"
      : speech    ? ", plus GRU gate matrix products"
                  : "",
      "\n");
}

}  // namespace powersweep
