// StopCondition: when a run ends. Each limit is off when <= 0; at least one
// should be on (RunConfig validation ensures it). Check() is called after
// every minibatch and returns the reason of the first limit reached, in
// the order "minibatches", "epochs", "duration" when several are reached by
// the same minibatch; "" to keep going. The duration limit is checked
// between minibatches, so a run overshoots it by at most one minibatch.
// Immutable after construction; thread-compatible.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_STOP_CONDITION_H_
#define POWERSWEEP_WORKLOADS_RUNNER_STOP_CONDITION_H_

#include <cstdint>
#include <string>

namespace powersweep {

class StopCondition {
 public:
  StopCondition(int64_t epochs, int64_t minibatches, double duration_s)
      : epochs_(epochs), minibatches_(minibatches), duration_s_(duration_s) {}

  // minibatches_done counts minibatches finished so far; epochs_completed
  // the whole epochs among them; elapsed_s the time since timing started.
  std::string Check(int64_t minibatches_done, int64_t epochs_completed,
                    double elapsed_s) const;

 private:
  int64_t epochs_;
  int64_t minibatches_;
  double duration_s_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_STOP_CONDITION_H_
