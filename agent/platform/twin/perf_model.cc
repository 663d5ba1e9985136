#include "agent/platform/twin/perf_model.h"

#include <algorithm>
#include <limits>

namespace powersweep {
namespace {

double SoftMax(double a, double b) {
  return std::max(a, b) + kOverlap * std::min(a, b);
}

}  // namespace

PerfModel::PerfModel(const TwinClass* cls, InstanceVariation variation)
    : cls_(cls), variation_(variation) {}

double PerfModel::HostSeconds(double cycles,
                              const OperatingPoint& op) const {
  const double core_s = cycles / (op.cpu_khz * 1e3 * cls_->perf.cpu_ipc);
  if (op.mem_hz <= 0) return core_s;
  const double dram_s =
      kHostEmcCyclesPerCycle * cycles / static_cast<double>(op.mem_hz);
  return SoftMax(core_s, dram_s);
}

MinibatchTiming PerfModel::Compose(const OperatingPoint& op,
                                   const TwinWorkloadShape& w, double cold,
                                   double compute_noise, double fetch_noise,
                                   bool first) const {
  const TwinPerfConstants& k = cls_->perf;
  const ModelCost& c = w.cost;
  const DatasetCost& d = w.dataset;
  const double b = std::max(1, w.batch_size);
  const double pass = w.train ? 3 : 1;  // backward ~ 2x forward
  const double gpu_hz = static_cast<double>(op.gpu_hz);
  const double mem_hz = static_cast<double>(op.mem_hz);
  const double speed = variation_.speed;
  const double kernels = w.train ? c.train_kernels : c.infer_kernels;

  // Depthwise MACs count as 1 / kDepthwiseEfficiency dense ones.
  // Training also runs the training-only heads (Inception's auxiliary
  // classifier).
  const double dense_macs = c.forward_macs - c.depthwise_macs +
                            (w.train ? c.train_only_macs : 0);
  // Plus the work beyond forward (+ backward): dqn's next-state pass,
  // gpt2_small's generated tokens (model_cost.h).
  const double flops =
      b * 2 * (dense_macs + c.depthwise_macs / kDepthwiseEfficiency) * pass +
      b * 2 * (w.train ? c.train_extra_macs : c.infer_extra_macs);
  // Occupancy: the batch that half-fills the GPU shrinks with the work per
  // kernel (LeNet-5: 64 samples). A cost without kernel counts keeps 64.
  double half_batch = kGpuHalfBatch;
  if (c.forward_kernels > 0 && c.forward_macs > 0) {
    half_batch *= kOccupancyMacsPerKernel / (c.forward_macs / c.forward_kernels);
  }
  const double eff = k.gpu_efficiency * b / (b + half_batch);
  const double t_flops = flops / (gpu_hz * k.gpu_flops_per_cycle * eff);
  // Activations written once and read once (x2), in float32, three times in
  // training; each parameter kParamAccessesTrain times in training (the
  // optimizer's passes included), once in inference.
  const double activations =
      c.activations + (w.train ? c.train_only_activations : 0);
  const double bytes =
      b * (c.input_values + activations) * 4 * 2 * pass +
      c.params * 4 * (w.train ? kParamAccessesTrain : c.infer_weight_reads);
  const double t_mem = bytes / (mem_hz * k.mem_bytes_per_cycle * k.mem_efficiency);
  const double t_kern = kernels * k.gpu_kernel_cycles / gpu_hz;

  MinibatchTiming t;
  t.gpu_s = (SoftMax(t_flops, t_mem) + t_kern) / speed * compute_noise;
  t.mem_s = t_mem / speed * compute_noise;
  t.launch_s = HostSeconds(kernels * kLaunchCycles + kSyncCycles, op) / speed *
               compute_noise;
  t.compute_s = SoftMax(t.launch_s, t.gpu_s);
  const double sample_cycles = kFetchCyclesPerSample +
                               d.transform_cycles_per_value * c.input_values +
                               d.decode_cycles_per_sample;
  t.fetch_s = HostSeconds(b * sample_cycles + kFetchCyclesPerBatch, op) /
              speed * fetch_noise;
  if (!d.LoadedAtStart()) {
    const double file = d.FileBytesPerSample(w.train);
    // Files in the page cache are copied by the loader; the others wait for
    // the storage device, which the workers share.
    t.fetch_s += b * (1 - cold) * file / kPageCacheBytesPerS / speed * fetch_noise;
    t.io_s = b * cold * (file / k.storage_bytes_per_s + k.storage_file_latency_s) *
             fetch_noise;
  }
  t.record_s = HostSeconds(kRecordCycles, op) / speed;

  const int free_cores = op.cores - 1;
  const int workers = std::max(0, w.loader_workers);
  if (workers > 0 && !w.preload && !d.Synthetic()) {
    // The training thread takes each batch over from a worker process into
    // the buffer the GPU reads (float32 input tensor); nothing overlaps it.
    t.handover_s = HostSeconds(kHandoverBatchCycles +
                                   kHandoverCyclesPerByte * b *
                                       c.input_values * 4,
                               op) /
                   speed * fetch_noise;
  }
  if (w.preload || d.Synthetic()) {
    // Built before timing (synthetic data: one batch reused): the loop only
    // takes the next one.
    t.fetch_s = 0;
    t.io_s = 0;
    t.stall_s = HostSeconds(kHandoverCycles, op) / speed * fetch_noise;
  } else if (workers == 0 || free_cores <= 0) {
    // Fetched on the compute thread (or workers share its only core).
    t.stall_s =
        (t.fetch_s + t.io_s) * (1 + kOversubscription * workers) + t.handover_s;
  } else {
    const int parallel = std::min(workers, free_cores);
    const int extra = std::max(0, workers - free_cores);
    const double per_batch = std::max(
        t.fetch_s / parallel * (1 + kOversubscription * extra), t.io_s);
    // The workers fetch the next batch while the training thread takes this
    // one over and computes.
    t.stall_s = first ? t.fetch_s + t.io_s + t.handover_s
                      : t.handover_s + std::max(0.0, per_batch - t.compute_s -
                                                         t.handover_s);
  }
  t.e2e_s = t.stall_s + t.compute_s + t.record_s;
  return t;
}

MinibatchTiming PerfModel::Expected(const OperatingPoint& op,
                                    const TwinWorkloadShape& w, int64_t epoch,
                                    double cached_at_start) const {
  return Compose(op, w, ColdFraction(w, epoch, cached_at_start), 1.0, 1.0,
                 false);
}

MinibatchTiming PerfModel::Draw(const OperatingPoint& op,
                                const TwinWorkloadShape& w, int64_t index,
                                TwinRng* rng, double cached_at_start) const {
  const double compute_noise = rng->LogNormalUnitMean(kNoiseSigma);
  const double fetch_noise = rng->LogNormalUnitMean(kNoiseSigma);
  const int64_t epoch = index / BatchesPerEpoch(w);
  return Compose(op, w, ColdFraction(w, epoch, cached_at_start), compute_noise,
                 fetch_noise, index == 0);
}

double PerfModel::StartupSeconds(const OperatingPoint& op,
                                 const TwinWorkloadShape& w,
                                 double cached_at_start) const {
  const TwinPerfConstants& k = cls_->perf;
  const DatasetCost& d = w.dataset;
  const DatasetSplit& split = d.Split(w.train);
  const double samples = static_cast<double>(split.samples);
  double read = 0;
  double decode = 0;
  double preload = 0;
  if (d.Synthetic()) {
    // One random minibatch drawn in memory.
    const double values = std::max(1, w.batch_size) * w.cost.input_values;
    decode = HostSeconds(values * kSyntheticCyclesPerValue, op);
    return (decode + k.cuda_init_s) / variation_.speed;
  }
  if (w.preload) {
    // The loader builds the minibatches as it would in epoch 0.
    TwinWorkloadShape loading = w;
    loading.preload = false;
    const MinibatchTiming t = Compose(
        op, loading, ColdFraction(loading, 0, cached_at_start), 1.0, 1.0, false);
    const int free_cores = op.cores - 1;
    const int workers = std::max(0, w.loader_workers);
    double per_batch = t.fetch_s + t.io_s;
    if (workers > 0 && free_cores > 0) {
      const int parallel = std::min(workers, free_cores);
      const int extra = std::max(0, workers - free_cores);
      per_batch = std::max(t.fetch_s / parallel * (1 + kOversubscription * extra),
                           t.io_s);
    }
    // Compose divided the fetch by the speed; the total is divided below.
    preload = static_cast<double>(std::max<int64_t>(1, w.preload_minibatches)) *
              per_batch * variation_.speed;
  }
  if (d.LoadedAtStart()) {
    const double cached = std::min(1.0, std::max(0.0, cached_at_start));
    read = split.storage_bytes * (1 - cached) / k.storage_bytes_per_s +
           split.storage_bytes * cached / kPageCacheBytesPerS;
    decode = HostSeconds(samples * d.record_bytes * d.load_cycles_per_byte, op);
  } else {
    decode = HostSeconds(samples * kListCyclesPerFile, op);
  }
  return (read + decode + preload + k.cuda_init_s) / variation_.speed;
}

int64_t PerfModel::BatchesPerEpoch(const TwinWorkloadShape& w) const {
  // Synthetic data has no epochs (the workload's SyntheticSource).
  if (w.dataset.Synthetic()) return std::numeric_limits<int64_t>::max();
  const int64_t samples = w.dataset.Split(w.train).samples;
  return std::max<int64_t>(1, samples / std::max(1, w.batch_size));
}

bool PerfModel::FitsInPageCache(const TwinWorkloadShape& w) const {
  return w.dataset.Split(w.train).storage_bytes <=
         kPageCacheShare * static_cast<double>(cls_->memory_bytes);
}

double PerfModel::ColdFraction(const TwinWorkloadShape& w, int64_t epoch,
                               double cached_at_start) const {
  if (w.dataset.LoadedAtStart()) return 0;
  if (w.drop_page_cache) return 1;
  if (epoch == 0) return 1 - std::min(1.0, std::max(0.0, cached_at_start));
  return FitsInPageCache(w) ? 0 : 1;
}

double PerfModel::ResidentFraction(const TwinWorkloadShape& w, int64_t epoch,
                                   double cached_at_start) const {
  if (w.drop_page_cache) return 0;
  if (w.dataset.LoadedAtStart()) return FitsInPageCache(w) ? 1 : 0;
  if (w.preload && epoch == 0) {
    if (!FitsInPageCache(w)) return 0;
    const double split = std::max<int64_t>(1, w.dataset.Split(w.train).samples);
    const double read = static_cast<double>(w.preload_minibatches) *
                        std::max(1, w.batch_size) / split;
    return std::min(1.0, std::max(0.0, cached_at_start) + read);
  }
  return 1 - ColdFraction(w, epoch, cached_at_start);
}

PhaseLoad PerfModel::LoadOf(const MinibatchTiming& t, const OperatingPoint& op,
                            const TwinWorkloadShape& w) const {
  PhaseLoad load;
  load.core_util.assign(std::max(1, op.cores), kBackgroundUtil);
  const double e2e = std::max(t.e2e_s, 1e-12);
  const int free_cores = op.cores - 1;
  const int workers = std::max(0, w.loader_workers);
  const bool serial = workers == 0 || free_cores <= 0;
  // The compute thread spins in cudaDeviceSynchronize: busy while computing
  // and taking batches over; while it fetches itself, busy except when
  // waiting for storage.
  const double own = t.fetch_s + t.handover_s;
  const double cpu_share = t.io_s > 0 ? own / (own + t.io_s) : 1.0;
  const double main_busy = t.compute_s + t.record_s +
                           (serial ? t.stall_s * cpu_share : t.handover_s);
  load.core_util[0] = std::min(1.0, main_busy / e2e);
  if (!serial) {
    const int parallel = std::min(workers, free_cores);
    const double per_core = std::min(1.0, t.fetch_s / (parallel * e2e));
    for (int i = 1; i <= parallel; ++i) {
      load.core_util[i] = std::max(kBackgroundUtil, per_core);
    }
  }
  load.gpu_util = std::min(1.0, t.gpu_s / e2e);
  load.mem_util = std::min(1.0, t.mem_s / e2e);
  return load;
}

PhaseLoad PerfModel::StartupLoad(const OperatingPoint& op) const {
  PhaseLoad load = IdleLoad(op);
  load.core_util[0] = 1.0;  // reading and gunzip on one thread
  load.mem_util = 0.05;
  return load;
}

PhaseLoad PerfModel::IdleLoad(const OperatingPoint& op) const {
  PhaseLoad load;
  load.core_util.assign(std::max(1, op.cores), kBackgroundUtil);
  load.gpu_util = 0;
  load.mem_util = 0.02;
  return load;
}

}  // namespace powersweep
