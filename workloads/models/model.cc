#include "workloads/models/model.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "workloads/models/alexnet.h"
#include "workloads/models/deepspeech2.h"
#include "workloads/models/dqn.h"
#include "workloads/models/gpt2.h"
#include "workloads/models/inception_v3.h"
#include "workloads/models/lenet5.h"
#include "workloads/models/lstm_lm.h"
#include "workloads/models/memnet.h"
#include "workloads/models/mobilebert.h"
#include "workloads/models/mobilenet_v3.h"
#include "workloads/models/resnet.h"
#include "workloads/models/seq2seq.h"
#include "workloads/models/squeezenet.h"
#include "workloads/models/vae.h"
#include "workloads/models/vgg.h"
#include "workloads/torch_status.h"

namespace powersweep {

torch::Tensor Model::Loss(const torch::Tensor& input,
                          const torch::Tensor& labels) {
  return torch::nn::functional::cross_entropy(forward(input), labels);
}

std::pair<torch::Tensor, torch::Tensor> Model::SyntheticBatch(int64_t n) {
  const auto s = input_shape();
  return {torch::randn({n, s[0], s[1], s[2]}),
          torch::randint(num_classes(), {n}, torch::kLong)};
}

absl::StatusOr<std::shared_ptr<Model>> MakeModel(const std::string& name,
                                                 const ModelOptions& options) {
  absl::StatusOr<ResolvedModel> resolved = ResolveModelOptions(name, options);
  if (!resolved.ok()) return resolved.status();
  std::shared_ptr<Model> model;
  absl::Status st = CatchTorchErrors(
      absl::StrCat("building ", resolved->name), [&]() -> absl::Status {
        const ResolvedModel& r = *resolved;
        if (r.name == "alexnet") {
          model = std::make_shared<AlexNet>(r);
        } else if (r.name == "inception_v3") {
          model = std::make_shared<InceptionV3>(r);
        } else if (r.name == "deepspeech2") {
          model = std::make_shared<DeepSpeech2>(r);
        } else if (r.name == "dqn") {
          model = std::make_shared<Dqn>(r);
        } else if (r.name == "gpt2_small") {
          model = std::make_shared<Gpt2Small>(r);
        } else if (r.name == "lenet5") {
          model = std::make_shared<LeNet5>(r);
        } else if (r.name == "lstm_lm") {
          model = std::make_shared<LstmLm>(r);
        } else if (r.name == "memnet") {
          model = std::make_shared<MemNet>(r);
        } else if (r.name == "mobilebert") {
          model = std::make_shared<MobileBert>(r);
        } else if (r.name == "mobilenetv3") {
          model = std::make_shared<MobileNetV3Large>(r);
        } else if (r.name == "resnet18") {
          model = std::make_shared<ResNet>(r, ResNet::Depth::k18);
        } else if (r.name == "resnet50") {
          model = std::make_shared<ResNet>(r, ResNet::Depth::k50);
        } else if (r.name == "seq2seq") {
          model = std::make_shared<Seq2Seq>(r, Seq2Seq::Cell::kGru);
        } else if (r.name == "seq2seq_lstm") {
          model = std::make_shared<Seq2Seq>(r, Seq2Seq::Cell::kLstm);
        } else if (r.name == "vae") {
          model = std::make_shared<Vae>(r);
        } else if (r.name == "vgg11") {
          model = std::make_shared<Vgg>(r, Vgg::Config::kA);
        } else if (r.name == "squeezenet1_1") {
          model = std::make_shared<SqueezeNet11>(r);
        } else if (r.name == "vgg19") {
          model = std::make_shared<Vgg>(r, Vgg::Config::kE);
        } else {
          return absl::InternalError(
              absl::StrCat("model '", r.name, "' is in the catalog but ",
                           "MakeModel cannot build it"));
        }
        return absl::OkStatus();
      });
  if (!st.ok()) return st;
  return model;
}

}  // namespace powersweep
