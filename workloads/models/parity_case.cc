#include "workloads/models/parity_case.h"

#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "workloads/models/inception_v3.h"
#include "workloads/models/model.h"
#include "workloads/models/state_export.h"
#include "workloads/torch_status.h"

namespace powersweep {
namespace {

absl::Status WriteMeta(const ParityCase& c, const ModelDescription& d,
                       const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  out << "model " << d.name << "\n"
      << "channels " << d.input_shape[0] << "\n"
      << "input_size " << d.input_shape[1] << "\n"
      << "classes " << d.num_classes << "\n"
      << "params " << d.params << "\n"
      << "trainable_params " << d.trainable_params << "\n"
      << "forward_macs " << d.forward_macs << "\n"
      << "seed " << c.seed << "\n"
      << "batch " << c.batch << "\n"
      << "seq_len " << d.seq_len << "\n"
      << "vocab " << d.vocab << "\n";
  out.close();
  if (!out) return absl::InternalError(absl::StrCat(path, ": cannot write"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ModelDescription> WriteParityCase(const ParityCase& c,
                                                 const std::string& dir) {
  if (c.batch < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("--batch: ", c.batch, " is too small (at least 2, ",
                     "for the training-mode batch norm passes)"));
  }
  torch::manual_seed(c.seed);
  absl::StatusOr<std::shared_ptr<Model>> built = MakeModel(c.model, c.options);
  if (!built.ok()) return built.status();
  Model& model = **built;
  absl::StatusOr<ModelDescription> d = DescribeBuiltModel(model);
  if (!d.ok()) return d.status();
  const auto& s = d->input_shape;
  absl::Status st = CatchTorchErrors("parity case", [&]() -> absl::Status {
    torch::NoGradGuard no_grad;
    const bool tokens = d->vocab > 0;
    model.train();
    for (int i = 0; i < 2; ++i) {
      model.forward(tokens ? model.SyntheticBatch(c.batch).first
                           : torch::randn({c.batch, s[0], s[1], s[2]}) * 2 +
                                 0.5);
    }
    model.eval();
    torch::Tensor input = tokens ? model.SyntheticBatch(c.batch).first
                                 : torch::randn({c.batch, s[0], s[1], s[2]});
    torch::Tensor output = model.forward(input);
    absl::Status w = ExportModuleState(model, dir + "/state");
    if (w.ok()) w = WriteNpy(input, dir + "/input.npy");
    if (w.ok()) w = WriteNpy(output, dir + "/output.npy");
    if (w.ok()) w = WriteMeta(c, *d, dir + "/meta.txt");
    if (auto* inception = dynamic_cast<InceptionV3*>(&model); w.ok() && inception) {
      // Last, since a training-mode pass moves the running statistics.
      model.train();
      torch::Tensor aux = inception->ForwardWithAux(input).second;
      model.eval();
      w = WriteNpy(aux, dir + "/aux_output.npy");
    }
    return w;
  });
  if (!st.ok()) return st;
  return d;
}

}  // namespace powersweep
