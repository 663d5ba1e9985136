// PerfModel: how long a minibatch takes on a twin of a Jetson class at an
// operating point (cores, CPU, GPU and memory frequency), and how busy it
// keeps the CPU cores, the GPU and the memory, for a model (ModelCost) on a
// data set (DatasetCost). docs/twin-model.md gives the equations and the
// source of every constant; in short:
//
//   host(c)   = softmax(c / (f_cpu * ipc), kHostEmcCyclesPerCycle * c / f_mem)
//               (c CPU cycles of work also wait on DRAM: whichever is slower)
//   eff       = gpu_efficiency * B / (B + 64 * ref / (macs / fwd_kernels))
//   t_flops   = B * 2 * pass * (dense_macs + depthwise_macs / kDepthwiseEff)
//               / (f_gpu * flops_per_cycle * eff)
//   gpu_s     = softmax(t_flops, bytes / (f_mem * bytes_per_cycle * mem_eff))
//               + kernels * gpu_kernel_cycles / f_gpu
//   launch_s  = host(kernels * kLaunchCycles + kSyncCycles)
//   compute_s = softmax(launch_s, gpu_s) / speed
//   fetch_s   = host(B * (1432 + per_value * values + decode) + 25000)
//               / speed  (+ page-cache copies)  (one worker)
//   io_s      = B * cold * (file / storage_bw + file_latency)  (image folders)
//   handover  = host(kHandoverBatchCycles + per_byte * B * values * 4)
//               (W > 0: the training thread takes a worker's batch over)
//   stall_s   = fetch_s + io_s (+ handover)     (no workers or 1 core)
//             = handover + max(0, max(fetch_s / min(W, cores-1), io_s)
//                                 - compute_s - handover)
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
// Synthetic data: drawing one random value (torch::randn / randint on one
// core, assumed).
inline constexpr double kSyntheticCyclesPerValue = 10;
// Handing a preloaded minibatch to the compute thread (assumed).
inline constexpr double kHandoverCycles = 2000;
// CPU work and DRAM (calibrated on the SIGMETRICS memory-frequency figures,
// docs/twin-model.md "Calibration"): every cycle of host work (kernel
// launches, the loader, the hand-over) also needs this many EMC cycles of
// DRAM time (cache misses of the dispatcher, queues and copies in the
// memory the CPU shares with the GPU); the work takes the slower of the
// two, softmax-combined. At MAXN on Xavier AGX the DRAM side is 0.73 of the
// core side; at half the memory clock it becomes the bottleneck.
inline constexpr double kHostEmcCyclesPerCycle = 0.86;
// Depthwise convolutions reach this fraction of the FLOP rate of the dense
// layers (no GEMM path: per-channel filters of 9 or 25 taps, bound by
// instruction issue and on-chip loads, not by DRAM). Calibrated on the
// SIGMETRICS MobileNetV3 memory-frequency figure.
inline constexpr double kDepthwiseEfficiency = 0.1;
// DRAM accesses of every parameter in a training minibatch, counted from
// the workload's step (SGD, momentum 0.9): forward read, backward read (for
// the input gradient), gradient write, zero_grad write, buf.mul_ (read,
// write), buf.add_(grad) (2 reads, write), param.add_(buf) (2 reads,
// write). Inference reads each parameter once.
inline constexpr double kParamAccessesTrain = 12;
// The training thread taking a collated minibatch over from a loader
// worker (the study's PyTorch loader runs workers as processes): per batch
// (queue wake-up, tensor rebuild from shared memory, assumed) and per byte
// of the batch's float32 input tensor (copied into the buffer the GPU
// reads; calibrated on the SIGMETRICS Xavier AGX epoch 1+ stall of
// MobileNetV3 on GLD23k). Part of the stall, never overlapped with compute.
// Without workers the training thread collates the batch itself (the
// fetch); preloaded minibatches cost kHandoverCycles.
inline constexpr double kHandoverBatchCycles = 20000;
inline constexpr double kHandoverCyclesPerByte = 1.57;
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
  double handover_s = 0; // training thread taking the batch over (stall)
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

  // Seconds of `cycles` of CPU work (Cortex-A78-equivalent cycles) on one
  // core at `op`: softmax(cycles / (f_cpu * ipc), kHostEmcCyclesPerCycle *
  // cycles / f_mem); the DRAM side is left out when op.mem_hz is 0. Not
  // divided by the instance speed.
  double HostSeconds(double cycles, const OperatingPoint& op) const;

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
