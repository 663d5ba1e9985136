// PerfModel: how long a minibatch takes on a twin of a Jetson class at an
// operating point (cores, CPU, GPU and memory frequency), and how busy it
// keeps the CPU cores, the GPU and the memory, for a model (ModelCost) on a
// data set (DatasetCost). docs/twin-model.md gives the equations and the
// source of every constant; in short:
//
//   eff       = gpu_efficiency * B / (B + 64 * ref / (macs / fwd_kernels))
//   gpu_s     = softmax(flops / (f_gpu * flops_per_cycle * eff),
//                       bytes / (f_mem * bytes_per_cycle * mem_eff))
//               + kernels * gpu_kernel_cycles / f_gpu
//   launch_s  = (kernels * kLaunchCycles + kSyncCycles) / (f_cpu * ipc)
//   compute_s = softmax(launch_s, gpu_s) / speed
//   fetch_s   = (B * (1432 + per_value * values + decode) + 25000)
//               / (f_cpu * ipc) / speed  (+ page-cache copies)  (one worker)
//   io_s      = B * cold * (file / storage_bw + file_latency)  (image folders)
//   stall_s   = fetch_s + io_s                      (no workers or 1 core)
//             = max(0, max(fetch_s / min(W, cores-1), io_s) - compute_s)
//   e2e_s     = stall_s + compute_s + record_s
// with softmax(a, b) = max(a, b) + kOverlap * min(a, b) (imperfect overlap)
// and `cold` the fraction of the minibatch's files read from storage:
// image folders read from storage in epoch 0 (unless an earlier run left
// the split in the page cache) and again in later epochs when the split does
// not fit the page cache (kPageCacheShare of RAM) or pages are dropped
// between epochs. Sets loaded at start (IDX, CIFAR) cost only at start-up.
// A preloaded (inference) run builds its minibatches at start-up and then
// stalls only for the hand-over.
//
// Immutable after construction; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_PERF_MODEL_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_PERF_MODEL_H_

#include <cstdint>
#include <vector>

#include "agent/platform/twin/dataset_cost.h"
#include "agent/platform/twin/model_cost.h"
#include "agent/platform/twin/twin_class.h"
#include "agent/platform/twin/twin_random.h"

namespace powersweep {

// Model constants (docs/twin-model.md, "Performance model").
inline constexpr double kLaunchCycles = 25000;         // per kernel
inline constexpr double kSyncCycles = 40000;           // per minibatch
// Per sample on the loader besides the per-value and decode work of the
// data set (DatasetCost): with 2 cycles per value, a 784-value sample costs
// the calibrated 3,000 cycles.
inline constexpr double kFetchCyclesPerSample = 1432;
inline constexpr double kFetchCyclesPerBatch = 25000;
inline constexpr double kRecordCycles = 20000;
inline constexpr double kOverlap = 0.1;
inline constexpr double kGpuHalfBatch = 64;
// GPU occupancy reference: LeNet-5's forward MACs per forward kernel. A
// network with k times this work per kernel half-fills the GPU at 64 / k
// samples.
inline constexpr double kOccupancyMacsPerKernel = 416520.0 / 11;
inline constexpr double kOversubscription = 0.05;      // per extra worker
inline constexpr double kNoiseSigma = 0.02;            // lognormal
inline constexpr double kPageCacheBytesPerS = 4e9;
// Share of the board's RAM the page cache can give a data set while a
// training process, its loader workers and the OS run (assumed; with it the
// 8 GB Xavier NX cannot keep GLD23k's 2.83 GB and the 32 GB AGX can, as
// the SIGMETRICS study measured).
inline constexpr double kPageCacheShare = 0.25;
// Listing an image folder at start-up, per file (readdir, stat, path).
inline constexpr double kListCyclesPerFile = 20000;
// Handing a preloaded minibatch to the compute thread (assumed).
inline constexpr double kHandoverCycles = 2000;
inline constexpr double kBackgroundUtil = 0.01;

struct TwinWorkloadShape {
  ModelCost cost;       // the model at the data set's input
  DatasetCost dataset;  // the split read follows `train`
  bool train = true;
  int batch_size = 64;
  int loader_workers = 0;
  // Drop the data set's pages before every epoch (every epoch reads
  // storage, epoch 0 included).
  bool drop_page_cache = false;
  // Inference from memory: `preload_minibatches` (>= 1) minibatches are
  // built before timing starts (start-up); the timed loop only takes them
  // (stall = hand-over, no fetch, no storage).
  bool preload = false;
  int64_t preload_minibatches = 0;
};

struct MinibatchTiming {
  double launch_s = 0;   // compute thread launching kernels
  double gpu_s = 0;      // GPU busy
  double mem_s = 0;      // DRAM-bound share of the GPU time
  double compute_s = 0;
  double fetch_s = 0;    // one minibatch on one worker (CPU)
  double io_s = 0;       // storage reads of the minibatch (the device)
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

  // Steady state of `epoch` (default: epochs 1+), no noise. `op` knobs must
  // be resolved (non-zero). `cached_at_start`: the fraction (0..1) of the
  // split in the page cache when the run started (an earlier run read it;
  // matters for epoch 0 of image folders and the start-up read of the
  // others).
  MinibatchTiming Expected(const OperatingPoint& op, const TwinWorkloadShape& w,
                           int64_t epoch = 1,
                           double cached_at_start = 0) const;
  // Minibatch `index` of a run: compute and fetch (and storage) times each
  // multiplied by lognormal noise (mean 1, sigma kNoiseSigma); minibatch 0
  // waits for its whole fetch (nothing prefetched yet).
  MinibatchTiming Draw(const OperatingPoint& op, const TwinWorkloadShape& w,
                       int64_t index, TwinRng* rng,
                       double cached_at_start = 0) const;
  // From run start to the first minibatch: sets loaded at start read their
  // files (the uncached part from storage) and decode them; image folders
  // are listed; preloaded minibatches are built (as the loader would, epoch
  // 0); then CUDA initialisation.
  double StartupSeconds(const OperatingPoint& op, const TwinWorkloadShape& w,
                        double cached_at_start) const;
  int64_t BatchesPerEpoch(const TwinWorkloadShape& w) const;
  // Whether the split read fits this class's page cache (kPageCacheShare of
  // its RAM).
  bool FitsInPageCache(const TwinWorkloadShape& w) const;
  // Fraction of an `epoch`'s files read from storage: 0 for sets loaded at
  // start; for image folders 1 when pages are dropped before every epoch,
  // else 1 - cached_at_start in epoch 0, and in later epochs 1 when the
  // split does not fit the page cache (a scan larger than an LRU cache
  // keeps nothing), else 0.
  double ColdFraction(const TwinWorkloadShape& w, int64_t epoch,
                      double cached_at_start) const;
  // Fraction of the split's file pages resident when `epoch` starts (after
  // any drop), as the workload reports it on the epoch's first minibatch:
  // 0 after a drop; sets loaded at start were just read (1 if they fit);
  // image folders 1 - ColdFraction, except that a preloaded run has read
  // its preloaded minibatches' files before timing.
  double ResidentFraction(const TwinWorkloadShape& w, int64_t epoch,
                          double cached_at_start) const;

  PhaseLoad LoadOf(const MinibatchTiming& t, const OperatingPoint& op,
                   const TwinWorkloadShape& w) const;
  PhaseLoad StartupLoad(const OperatingPoint& op) const;
  PhaseLoad IdleLoad(const OperatingPoint& op) const;

  const TwinClass& twin_class() const { return *cls_; }
  const InstanceVariation& variation() const { return variation_; }

 private:
  MinibatchTiming Compose(const OperatingPoint& op, const TwinWorkloadShape& w,
                          double cold, double compute_noise, double fetch_noise,
                          bool first) const;

  const TwinClass* const cls_;
  const InstanceVariation variation_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_PERF_MODEL_H_
