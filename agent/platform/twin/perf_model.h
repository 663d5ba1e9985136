// PerfModel: how long a minibatch takes on a twin of a Jetson class at an
// operating point (cores, CPU, GPU and memory frequency), and how busy it
// keeps the CPU cores, the GPU and the memory. docs/twin-model.md gives the
// equations and the source of every constant; in short:
//
//   gpu_s     = softmax(flops / (f_gpu * flops_per_cycle * eff(B)),
//                       bytes / (f_mem * bytes_per_cycle * mem_eff))
//               + kernels * gpu_kernel_cycles / f_gpu
//   launch_s  = (kernels * kLaunchCycles + kSyncCycles) / (f_cpu * ipc)
//   compute_s = softmax(launch_s, gpu_s) / speed
//   fetch_s   = (B * kFetchCyclesPerSample + kFetchCyclesPerBatch)
//               / (f_cpu * ipc) / speed            (one worker)
//   stall_s   = fetch_s                             (no workers or 1 core)
//             = max(0, fetch_s / min(W, cores-1) - compute_s)  (W workers)
//   e2e_s     = stall_s + compute_s + record_s
// with softmax(a, b) = max(a, b) + kOverlap * min(a, b) (imperfect overlap).
//
// Immutable after construction; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_PERF_MODEL_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_PERF_MODEL_H_

#include <cstdint>
#include <vector>

#include "agent/platform/twin/model_cost.h"
#include "agent/platform/twin/twin_class.h"
#include "agent/platform/twin/twin_random.h"

namespace powersweep {

// Model constants (docs/twin-model.md, "Performance model").
inline constexpr double kLaunchCycles = 25000;         // per kernel
inline constexpr double kSyncCycles = 40000;           // per minibatch
inline constexpr double kFetchCyclesPerSample = 3000;
inline constexpr double kFetchCyclesPerBatch = 25000;
inline constexpr double kRecordCycles = 20000;
inline constexpr double kOverlap = 0.1;
inline constexpr double kGpuHalfBatch = 64;
inline constexpr double kOversubscription = 0.05;      // per extra worker
inline constexpr double kNoiseSigma = 0.02;            // lognormal
inline constexpr double kGunzipCyclesPerByte = 8;
inline constexpr double kPageCacheBytesPerS = 4e9;
inline constexpr double kBackgroundUtil = 0.01;

struct TwinWorkloadShape {
  ModelCost cost;
  bool train = true;
  int batch_size = 64;
  int loader_workers = 0;
};

struct MinibatchTiming {
  double launch_s = 0;   // compute thread launching kernels
  double gpu_s = 0;      // GPU busy
  double mem_s = 0;      // DRAM-bound share of the GPU time
  double compute_s = 0;
  double fetch_s = 0;    // one minibatch on one worker
  double stall_s = 0;
  double record_s = 0;
  double e2e_s = 0;
};

// Mean utilization over an interval: one entry per online core.
struct PhaseLoad {
  std::vector<double> core_util;
  double gpu_util = 0;
  double mem_util = 0;
};

class PerfModel {
 public:
  // `cls` must outlive the model.
  PerfModel(const TwinClass* cls, InstanceVariation variation);

  // Steady state, no noise. `op` knobs must be resolved (non-zero).
  MinibatchTiming Expected(const OperatingPoint& op,
                           const TwinWorkloadShape& w) const;
  // Minibatch `index` of a run: compute and fetch times each multiplied by
  // lognormal noise (mean 1, sigma kNoiseSigma); minibatch 0 waits for its
  // whole fetch (nothing prefetched yet).
  MinibatchTiming Draw(const OperatingPoint& op, const TwinWorkloadShape& w,
                       int64_t index, TwinRng* rng) const;
  // From run start to the first minibatch: read the dataset files (from
  // storage when the page cache is cold), gunzip, CUDA initialisation.
  double StartupSeconds(const OperatingPoint& op, const TwinWorkloadShape& w,
                        bool page_cache_warm) const;
  int64_t BatchesPerEpoch(const TwinWorkloadShape& w) const;

  PhaseLoad LoadOf(const MinibatchTiming& t, const OperatingPoint& op,
                   const TwinWorkloadShape& w) const;
  PhaseLoad StartupLoad(const OperatingPoint& op) const;
  PhaseLoad IdleLoad(const OperatingPoint& op) const;

  const TwinClass& twin_class() const { return *cls_; }
  const InstanceVariation& variation() const { return variation_; }

 private:
  MinibatchTiming Compose(const OperatingPoint& op, const TwinWorkloadShape& w,
                          double compute_noise, double fetch_noise,
                          bool first) const;

  const TwinClass* const cls_;
  const InstanceVariation variation_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_PERF_MODEL_H_
