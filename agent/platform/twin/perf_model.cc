#include "agent/platform/twin/perf_model.h"

#include <algorithm>

namespace powersweep {
namespace {

double SoftMax(double a, double b) {
  return std::max(a, b) + kOverlap * std::min(a, b);
}

}  // namespace

PerfModel::PerfModel(const TwinClass* cls, InstanceVariation variation)
    : cls_(cls), variation_(variation) {}

MinibatchTiming PerfModel::Compose(const OperatingPoint& op,
                                   const TwinWorkloadShape& w,
                                   double compute_noise, double fetch_noise,
                                   bool first) const {
  const TwinPerfConstants& k = cls_->perf;
  const ModelCost& c = w.cost;
  const double b = std::max(1, w.batch_size);
  const double pass = w.train ? 3 : 1;  // backward ~ 2x forward
  const double cpu_hz = op.cpu_khz * 1e3 * k.cpu_ipc;
  const double gpu_hz = static_cast<double>(op.gpu_hz);
  const double mem_hz = static_cast<double>(op.mem_hz);
  const double speed = variation_.speed;
  const double kernels = w.train ? c.train_kernels : c.infer_kernels;

  const double flops = b * c.ForwardFlops() * pass;
  const double eff = k.gpu_efficiency * b / (b + kGpuHalfBatch);
  const double t_flops = flops / (gpu_hz * k.gpu_flops_per_cycle * eff);
  // Activations written once and read once (x2), in float32; training
  // touches them three times and the weights five times (forward,
  // backward, gradient write, optimizer read and write).
  const double bytes = b * (c.input_values + c.activations) * 4 * 2 * pass +
                       c.params * 4 * (w.train ? 5 : 1);
  const double t_mem = bytes / (mem_hz * k.mem_bytes_per_cycle * k.mem_efficiency);
  const double t_kern = kernels * k.gpu_kernel_cycles / gpu_hz;

  MinibatchTiming t;
  t.gpu_s = (SoftMax(t_flops, t_mem) + t_kern) / speed * compute_noise;
  t.mem_s = t_mem / speed * compute_noise;
  t.launch_s =
      (kernels * kLaunchCycles + kSyncCycles) / cpu_hz / speed * compute_noise;
  t.compute_s = SoftMax(t.launch_s, t.gpu_s);
  t.fetch_s = (b * kFetchCyclesPerSample + kFetchCyclesPerBatch) / cpu_hz /
              speed * fetch_noise;
  t.record_s = kRecordCycles / cpu_hz / speed;

  const int free_cores = op.cores - 1;
  const int workers = std::max(0, w.loader_workers);
  if (workers == 0 || free_cores <= 0) {
    // Fetched on the compute thread (or workers share its only core).
    t.stall_s = t.fetch_s * (1 + kOversubscription * workers);
  } else {
    const int parallel = std::min(workers, free_cores);
    const int extra = std::max(0, workers - free_cores);
    const double per_batch =
        t.fetch_s / parallel * (1 + kOversubscription * extra);
    t.stall_s = first ? t.fetch_s : std::max(0.0, per_batch - t.compute_s);
  }
  t.e2e_s = t.stall_s + t.compute_s + t.record_s;
  return t;
}

MinibatchTiming PerfModel::Expected(const OperatingPoint& op,
                                    const TwinWorkloadShape& w) const {
  return Compose(op, w, 1.0, 1.0, false);
}

MinibatchTiming PerfModel::Draw(const OperatingPoint& op,
                                const TwinWorkloadShape& w, int64_t index,
                                TwinRng* rng) const {
  const double compute_noise = rng->LogNormalUnitMean(kNoiseSigma);
  const double fetch_noise = rng->LogNormalUnitMean(kNoiseSigma);
  return Compose(op, w, compute_noise, fetch_noise, index == 0);
}

double PerfModel::StartupSeconds(const OperatingPoint& op,
                                 const TwinWorkloadShape& w,
                                 bool page_cache_warm) const {
  const TwinPerfConstants& k = cls_->perf;
  const ModelCost& c = w.cost;
  const double file = w.train ? c.train_file_bytes : c.infer_file_bytes;
  const double samples = w.train ? c.train_samples : c.infer_samples;
  const double read =
      file / (page_cache_warm ? kPageCacheBytesPerS : k.storage_bytes_per_s);
  const double gunzip = samples * (c.input_values + 1) * kGunzipCyclesPerByte /
                        (op.cpu_khz * 1e3 * k.cpu_ipc);
  return (read + gunzip + k.cuda_init_s) / variation_.speed;
}

int64_t PerfModel::BatchesPerEpoch(const TwinWorkloadShape& w) const {
  const double samples = w.train ? w.cost.train_samples : w.cost.infer_samples;
  return std::max<int64_t>(
      1, static_cast<int64_t>(samples) / std::max(1, w.batch_size));
}

PhaseLoad PerfModel::LoadOf(const MinibatchTiming& t, const OperatingPoint& op,
                            const TwinWorkloadShape& w) const {
  PhaseLoad load;
  load.core_util.assign(std::max(1, op.cores), kBackgroundUtil);
  const double e2e = std::max(t.e2e_s, 1e-12);
  const int free_cores = op.cores - 1;
  const int workers = std::max(0, w.loader_workers);
  const bool serial = workers == 0 || free_cores <= 0;
  // The compute thread spins in cudaDeviceSynchronize: busy while computing.
  const double main_busy = t.compute_s + t.record_s + (serial ? t.stall_s : 0);
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
