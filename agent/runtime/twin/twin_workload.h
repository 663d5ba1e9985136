// TwinWorkload: the run a twin simulates, read from the workload command
// line the run executor built (docs/ARCHITECTURE.md, "Workload command
// line"), so the twin sees exactly what a real workload would.
//
// Pure function; thread-safe.
#ifndef POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_WORKLOAD_H_
#define POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace powersweep {

struct TwinWorkload {
  std::string model;
  bool train = true;
  int batch_size = 0;
  int workers = 0;
  int epochs = 0;
  int64_t minibatches = 0;
  double duration_s = 0;
  uint64_t seed = 0;
  int threads = 0;
};

// InvalidArgument naming the flag when argv is not "BIN run --flag value
// ..." with a known task, positive batch size and a stop condition.
absl::StatusOr<TwinWorkload> ParseTwinWorkload(
    const std::vector<std::string>& argv);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_WORKLOAD_H_
