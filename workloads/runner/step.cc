#include "workloads/runner/step.h"

#include <utility>

namespace powersweep {
namespace {

constexpr double kLearningRate = 0.01;
constexpr double kMomentum = 0.9;

class TrainStep : public Step {
 public:
  TrainStep(std::shared_ptr<Model> model, torch::Device device)
      : model_(std::move(model)),
        device_(device),
        optimizer_(
            model_->parameters(),
            torch::optim::SGDOptions(kLearningRate).momentum(kMomentum)) {
    model_->train();
  }

  double Run(const Minibatch& mb) override {
    optimizer_.zero_grad();
    torch::Tensor loss =
        model_->Loss(mb.images.to(device_), mb.labels.to(device_));
    loss.backward();
    optimizer_.step();
    return loss.item<double>();
  }

 private:
  std::shared_ptr<Model> model_;
  torch::Device device_;
  torch::optim::SGD optimizer_;
};

class InferStep : public Step {
 public:
  InferStep(std::shared_ptr<Model> model, torch::Device device)
      : model_(std::move(model)), device_(device) {
    model_->eval();
  }

  double Run(const Minibatch& mb) override {
    torch::NoGradGuard no_grad;
    return model_->Loss(mb.images.to(device_), mb.labels.to(device_))
        .item<double>();
  }

 private:
  std::shared_ptr<Model> model_;
  torch::Device device_;
};

}  // namespace

std::unique_ptr<Step> MakeStep(v1::Task task, std::shared_ptr<Model> model,
                               torch::Device device) {
  if (task == v1::TASK_INFER)
    return std::make_unique<InferStep>(std::move(model), device);
  return std::make_unique<TrainStep>(std::move(model), device);
}

}  // namespace powersweep
