// RunConfig: everything one workload run needs, as given on the command
// line (see docs/ARCHITECTURE.md "Workload command line and records").
//
// ValidateRunConfig checks the values alone (no files are opened except
// that records_fd must be an open descriptor) and returns kInvalidArgument
// naming the command-line flag and the reason, e.g.
// "--batch-size: must be at least 1, got 0". ParseTask maps "train" and
// "infer". Stateless and thread-safe.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_RUN_CONFIG_H_
#define POWERSWEEP_WORKLOADS_RUNNER_RUN_CONFIG_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "powersweep/v1/workload.pb.h"

namespace powersweep {

struct RunConfig {
  std::string model = "lenet5";
  std::string dataset_path;
  ::powersweep::v1::Task task = ::powersweep::v1::TASK_TRAIN;
  int64_t batch_size = 64;
  int workers = 0;     // loader threads; 0 = on the compute thread
  int64_t epochs = 0;  // stop conditions: 0 = off
  int64_t minibatches = 0;
  double duration_s = 0;
  uint64_t seed = 0;
  int threads = 0;  // intra-op threads; 0 = CPUs in the affinity mask
  int records_fd = 1;
  int prefetch_depth = 0;  // 0 = 2 * workers (at least 1)
  ::powersweep::v1::PageCache page_cache = ::powersweep::v1::PAGE_CACHE_KEEP;
  bool preload = false;    // infer only: minibatches built before timing
  int64_t input_size = 0;  // image folders: model input side; 0 = default
  int64_t seq_len = 0;  // sequence models: tokens per sample (deepspeech2:
                        // spectrogram frames); 0 = default
  int64_t vocab = 0;    // lstm_lm, mobilebert: vocabulary; 0 = the data set's
  int64_t gen_tokens = 0;  // gpt2_small: tokens generated; 0 = default
  int64_t preload_limit = 0;  // preload at most this many minibatches; 0 =
                              // the stop condition's count or one epoch
  // Kernel runs (model a kernel of common/kernel_names.h): the shape, a
  // table row or an explicit shape (common/kernel_shape.h), and the untimed
  // iterations before timing.
  std::string kernel_shape;
  int warmup_iterations = 5;
  // Model runs: the first minibatches flagged as warm-up in their records
  // (-1 = none, 0 = the default: kDefaultCudaWarmup on a CUDA device, none
  // on the CPU), and cuDNN's algorithm search (CUDA only).
  int warmup_minibatches = 0;
  bool cudnn_benchmark = false;
};

inline constexpr int kDefaultCudaWarmup = 3;

absl::StatusOr<::powersweep::v1::Task> ParseTask(absl::string_view task);

// "keep" or "drop".
absl::StatusOr<::powersweep::v1::PageCache> ParsePageCache(
    absl::string_view text);

// A kernel run (IsKernelName(config.model)) needs a --kernel-shape that
// parses and no --dataset-path, --epochs or --preload; other runs no
// --kernel-shape.
absl::Status ValidateRunConfig(const RunConfig& config);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_RUN_CONFIG_H_
