// Queue order of a sweep's runs on boards whose power modes differ in GPU
// power gating (Thor's 90W/70W, Orin NX's 10W/15W): a board switches
// between such modes only through a reboot, so the runs of one gating mask
// are queued together, in the order the masks first appear; runs of a
// mode without a known mask (custom modes, presets without a mask) keep
// their place in the first group. Otherwise the expansion order is kept
// (a stable reordering: sweeps of classes without masks are unchanged).
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_GATING_ORDER_H_
#define POWERSWEEP_CONTROLLER_SWEEP_GATING_ORDER_H_

#include <string>
#include <vector>

#include "common/power/power_catalog.h"
#include "powersweep/v1/sweep.pb.h"

namespace powersweep {

// Reorders `runs` as above. Returns a line for the submitter's warnings
// when it moved any run ("2 runs of thor modes that need a reboot on a
// board (90W) are queued after the others of their class"), else "".
std::string GroupRunsByGpuGating(std::vector<v1::RunSpec>* runs,
                                 const PowerCatalog& catalog);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_GATING_ORDER_H_
