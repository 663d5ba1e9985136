#include "workloads/runner/step.h"

#include <utility>

namespace powersweep {
namespace {

constexpr double kLearningRate = 0.01;
constexpr double kMomentum = 0.9;

class TrainStep : public Step {
 public:
  explicit TrainStep(std::shared_ptr<Model> model)
      : model_(std::move(model)),
        optimizer_(
            model_->parameters(),
            torch::optim::SGDOptions(kLearningRate).momentum(kMomentum)) {
    model_->train();
  }

  double Run(const Minibatch& mb) override {
    optimizer_.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(
        model_->forward(mb.images), mb.labels);
    loss.backward();
    optimizer_.step();
    return loss.item<double>();
  }

 private:
  std::shared_ptr<Model> model_;
  torch::optim::SGD optimizer_;
};

class InferStep : public Step {
 public:
  explicit InferStep(std::shared_ptr<Model> model) : model_(std::move(model)) {
    model_->eval();
  }

  double Run(const Minibatch& mb) override {
    torch::NoGradGuard no_grad;
    torch::Tensor logits = model_->forward(mb.images);
    return torch::nn::functional::cross_entropy(logits, mb.labels)
        .item<double>();
  }

 private:
  std::shared_ptr<Model> model_;
};

}  // namespace

std::unique_ptr<Step> MakeStep(v1::Task task, std::shared_ptr<Model> model) {
  if (task == v1::TASK_INFER)
    return std::make_unique<InferStep>(std::move(model));
  return std::make_unique<TrainStep>(std::move(model));
}

}  // namespace powersweep
