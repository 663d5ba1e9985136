// TwinWorkload: the run a twin simulates, read from the workload command
// line the run executor built (docs/ARCHITECTURE.md, "Workload command
// line"), so the twin sees exactly what a real workload would. The data set
// is the --dataset-path value without its "twin:" prefix (a twin agent's
// catalog maps NAME to "twin:NAME"). Flags may be "--flag value" or
// "--flag=value"; a flag followed by another flag (or last) is a boolean;
// flags the twin does not model are ignored.
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
  std::string dataset;
  bool train = true;
  int batch_size = 0;
  int workers = 0;
  int epochs = 0;
  int64_t minibatches = 0;
  double duration_s = 0;
  uint64_t seed = 0;
  int threads = 0;
  int classes = 0;     // --classes; 0 = the data set's
  int input_size = 0;  // --input-size; 0 = the data set's
  int seq_len = 0;     // --seq-len; 0 = the model's default
  int vocab = 0;       // --vocab; 0 = the data set's
  bool drop_page_cache = false;  // --page-cache drop (default keep)
  bool preload = false;          // --preload (infer only)
  int64_t preload_limit = 0;     // --preload-limit; 0 = see twin_runtime.h
  // Kernel runs (--model a kernel name): the --kernel-shape value; then
  // there is no --dataset-path or --batch-size (batch_size is 1).
  std::string kernel_shape;
};

// InvalidArgument naming the flag when argv is not "BIN run --flag value
// ..." with a model, a known task, positive batch size, a stop condition
// and a --dataset-path (for a kernel: a --kernel-shape that parses); --page-cache must be keep or drop, --preload is for
// --task infer only.
absl::StatusOr<TwinWorkload> ParseTwinWorkload(
    const std::vector<std::string>& argv);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_WORKLOAD_H_
