#include "workloads/runner/stop_condition.h"

namespace powersweep {

std::string StopCondition::Check(int64_t minibatches_done,
                                 int64_t epochs_completed,
                                 double elapsed_s) const {
  if (minibatches_ > 0 && minibatches_done >= minibatches_)
    return "minibatches";
  if (epochs_ > 0 && epochs_completed >= epochs_) return "epochs";
  if (duration_s_ > 0 && elapsed_s >= duration_s_) return "duration";
  return "";
}

}  // namespace powersweep
