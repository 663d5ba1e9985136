// Step: what the compute thread does with one minibatch.
//
// MakeStep(task, model) returns a TrainStep (model.train(); SGD lr 0.01,
// momentum 0.9; zero_grad, Model::Loss (forward + the model's loss,
// cross-entropy for classifiers), backward, step) or an InferStep
// (model.eval(); Model::Loss under torch::NoGradGuard). Run() returns the minibatch's mean
// loss, read back as a double so the computation has finished when it
// returns (on a GPU this read-back synchronizes the device, so the compute
// time covers the kernels). The model must already be on `device`; each
// minibatch is copied there first (a no-op on the CPU). Run() may throw
// c10::Error: callers use CatchTorchErrors.
// Not thread-safe: owned and used by the compute thread.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_STEP_H_
#define POWERSWEEP_WORKLOADS_RUNNER_STEP_H_

#include <memory>

#include "powersweep/v1/workload.pb.h"
#include "workloads/models/model.h"
#include "workloads/pipeline/minibatch.h"

namespace powersweep {

class Step {
 public:
  virtual ~Step() = default;
  virtual double Run(const Minibatch& mb) = 0;
};

std::unique_ptr<Step> MakeStep(::powersweep::v1::Task task,
                               std::shared_ptr<Model> model,
                               torch::Device device = torch::kCPU);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_STEP_H_
