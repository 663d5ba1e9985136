// Sweep submission: fill defaults, validate every cell, expand the matrix
// into runs, and store the sweep with all its runs in one transaction.
// Nothing is stored when validation fails.
//
// Thread-safe if the Store is.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_SUBMITTER_H_
#define POWERSWEEP_CONTROLLER_SWEEP_SUBMITTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "powersweep/v1/control.pb.h"
#include "powersweep/v1/sweep.pb.h"
#include "storage/store.h"

namespace powersweep {

// The controller's default --max_sweep_runs.
inline constexpr int64_t kDefaultMaxSweepRuns = 200000;

class SweepSubmitter {
 public:
  // A sweep that expands to more than `max_runs` runs is refused.
  SweepSubmitter(Store* store, Clock* clock,
                 int64_t max_runs = kDefaultMaxSweepRuns);

  // `known_devices`: devices the controller knows (connected or from the
  // store); used to check host core counts and runtimes offered.
  // Errors: InvalidArgument naming the field and the reason, e.g.
  // "batch_sizes[1]: must be positive, got 0"; one problem per line, at
  // most kMaxProblemLines of them, then "... and N more problems"
  // (problem_list.h). ResourceExhausted naming --max_sweep_runs when the
  // sweep expands to more runs than allowed (checked before expanding;
  // nothing is stored).
  absl::StatusOr<v1::SubmitSweepResponse> Submit(
      const v1::SweepSpec& spec,
      const std::vector<v1::DeviceStatus>& known_devices);

 private:
  Store* store_;
  Clock* clock_;
  int64_t max_runs_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_SUBMITTER_H_
