#include "workloads/runner/step.h"

#include <utility>

#include "common/text_models.h"
#include "workloads/models/own_optimizer.h"
#include "workloads/models/token_generator.h"

namespace powersweep {
namespace {

constexpr double kLearningRate = 0.01;
constexpr double kMomentum = 0.9;

// Tokens each sample of `model` reads (and, in training, predicts): its
// seq_len (memnet: seq_len words in each of its 50 memory slots and the
// question, common/text_models.h); 0 for image models.
int64_t TokensPerSample(const Model& model) {
  const TextModelLimits* t = FindTextModel(model.model_name());
  return model.seq_len() * (t != nullptr ? t->sample_rows : 1);
}

// The model's own optimizer (own_optimizer.h), else SGD.
std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(Model& model) {
  if (auto* own = dynamic_cast<OwnOptimizer*>(&model)) {
    return own->MakeOptimizer();
  }
  return std::make_unique<torch::optim::SGD>(
      model.parameters(),
      torch::optim::SGDOptions(kLearningRate).momentum(kMomentum));
}

class TrainStep : public Step {
 public:
  TrainStep(std::shared_ptr<Model> model, torch::Device device)
      : model_(std::move(model)),
        device_(device),
        optimizer_(MakeOptimizer(*model_)),
        tokens_per_sample_(TokensPerSample(*model_)) {
    model_->train();
  }

  StepResult Run(const Minibatch& mb) override {
    optimizer_->zero_grad();
    torch::Tensor loss =
        model_->Loss(mb.images.to(device_), mb.labels.to(device_));
    loss.backward();
    optimizer_->step();
    StepResult r;
    r.loss = loss.item<double>();
    r.tokens = mb.samples * tokens_per_sample_;
    return r;
  }

 private:
  std::shared_ptr<Model> model_;
  torch::Device device_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  int64_t tokens_per_sample_;
};

class InferStep : public Step {
 public:
  InferStep(std::shared_ptr<Model> model, torch::Device device)
      : model_(std::move(model)),
        device_(device),
        tokens_per_sample_(TokensPerSample(*model_)) {
    model_->eval();
  }

  StepResult Run(const Minibatch& mb) override {
    torch::NoGradGuard no_grad;
    StepResult r;
    r.loss = model_->Loss(mb.images.to(device_), mb.labels.to(device_))
                 .item<double>();
    r.tokens = mb.samples * tokens_per_sample_;
    return r;
  }

 private:
  std::shared_ptr<Model> model_;
  torch::Device device_;
  int64_t tokens_per_sample_;
};

class GenerateStep : public Step {
 public:
  GenerateStep(std::shared_ptr<Model> model, TokenGenerator* generator,
               torch::Device device, Clock* clock)
      : model_(std::move(model)),
        generator_(generator),
        device_(device),
        clock_(clock) {
    model_->eval();
  }

  StepResult Run(const Minibatch& mb) override {
    torch::NoGradGuard no_grad;
    const int64_t start = clock_->MonotonicNanos();
    int64_t first = start;
    int64_t last = start;
    int64_t count = 0;
    const torch::Tensor loss = generator_->GenerateTimed(
        mb.images.to(device_),
        [&](int64_t i) {
          last = clock_->MonotonicNanos();
          if (i == 0) first = last;
          count = i + 1;
        },
        nullptr);
    StepResult r;
    r.loss = loss.item<double>();
    r.tokens = mb.samples * count;
    if (count >= 1) r.ttft_s = (first - start) * 1e-9;
    if (count >= 2) r.per_token_s = (last - first) * 1e-9 / (count - 1);
    return r;
  }

 private:
  std::shared_ptr<Model> model_;
  TokenGenerator* generator_;
  torch::Device device_;
  Clock* clock_;
};

}  // namespace

std::unique_ptr<Step> MakeStep(v1::Task task, std::shared_ptr<Model> model,
                               torch::Device device, Clock* clock) {
  if (task == v1::TASK_INFER) {
    if (auto* g = dynamic_cast<TokenGenerator*>(model.get())) {
      static RealClock real_clock;
      return std::make_unique<GenerateStep>(
          std::move(model), g, device, clock == nullptr ? &real_clock : clock);
    }
    return std::make_unique<InferStep>(std::move(model), device);
  }
  return std::make_unique<TrainStep>(std::move(model), device);
}

}  // namespace powersweep
