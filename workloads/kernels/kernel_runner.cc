#include "workloads/kernels/kernel_runner.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "common/kernel_shape.h"
#include "common/log.h"
#include "workloads/kernels/available_memory.h"
#include "workloads/kernels/kernel_iteration.h"
#include "workloads/kernels/launch_counter.h"
#include "workloads/runner/environment.h"
#include "workloads/runner/stop_condition.h"
#include "workloads/torch_status.h"

namespace powersweep {
namespace {

torch::Device KernelDevice() {
  if (torch::cuda::is_available()) return torch::Device(torch::kCUDA, 0);
  return torch::Device(torch::kCPU);
}

// Warm-up: the first iteration (one-time set-up: allocator, weight
// reorders) uncounted, the others counted; launches per counted iteration.
double WarmUp(KernelIteration& it, int iterations) {
  it.Run();
  const int counted = iterations - 1;
  if (counted <= 0) {
    LaunchCounter counter;
    it.Run();  // at least one counted iteration, untimed
    return static_cast<double>(counter.launches());
  }
  LaunchCounter counter;
  for (int i = 0; i < counted; ++i) it.Run();
  return static_cast<double>(counter.launches()) / counted;
}

absl::StatusOr<v1::WorkloadFinished> RunUnchecked(const RunConfig& config,
                                                  Clock* clock,
                                                  RecordSink* sink) {
  absl::StatusOr<KernelShape> shape =
      ParseKernelShape(config.model, config.kernel_shape);
  if (!shape.ok()) return shape.status();
  const KernelCost cost = KernelCostOf(*shape);
  absl::StatusOr<double> available = AvailableMemoryBytes();
  if (!available.ok()) return available.status();
  if (cost.footprint_bytes > *available) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "--kernel-shape: %s %s needs %.3f GB (operands, results and "
        "workspace) but only %.3f GB of memory are available to this process "
        "(MemAvailable, and the cgroup's limit less its usage); not "
        "allocating: choose a smaller shape",
        config.model, shape->Text(), cost.footprint_bytes / 1e9,
        *available / 1e9));
  }

  const int threads = ResolveThreadCount(config.threads);
  torch::set_num_threads(threads);
  torch::manual_seed(config.seed);
  const torch::Device device = KernelDevice();
  const std::string device_name = device.str();
  std::unique_ptr<KernelIteration> it = KernelIteration::Build(*shape, device);
  const double launches = WarmUp(*it, config.warmup_iterations);

  v1::WorkloadEvent started;
  *started.mutable_started() = CollectProvenance(threads);
  started.mutable_started()->set_device(device_name);
  v1::WorkloadInfo* info = started.mutable_started()->mutable_workload();
  info->set_model(config.model);
  info->set_forward_macs(static_cast<int64_t>(std::llround(cost.flops / 2)));
  info->set_compute_device(device_name);
  v1::KernelInfo* k = info->mutable_kernel();
  k->set_shape(shape->Text());
  if (shape->Text() != config.kernel_shape) k->set_row(config.kernel_shape);
  k->set_flops(cost.flops);
  k->set_bytes(cost.bytes);
  k->set_launches(launches);
  k->set_warmup_iterations(config.warmup_iterations);
  k->set_footprint_bytes(cost.footprint_bytes);
  k->set_memory_available_bytes(*available);
  absl::Status st = sink->Write(started);
  if (!st.ok()) return st;
  PS_LOG(INFO) << absl::StrFormat(
      "%s %s on %s: %.3f GFLOP and %.1f launches per iteration, %d warm-up "
      "iterations, %d threads, seed %d",
      config.model, shape->Text(), device_name, cost.flops / 1e9, launches,
      config.warmup_iterations, threads, config.seed);

  const StopCondition stop(0, config.minibatches, config.duration_s);
  const int64_t start_ns = clock->MonotonicNanos();
  int64_t prev_end_ns = start_ns;
  int64_t done = 0;
  double compute_total = 0;
  std::string reason;
  while (reason.empty()) {
    const int64_t begin_ns = std::max(prev_end_ns, clock->MonotonicNanos());
    it->Run();
    const int64_t end_ns = std::max(begin_ns, clock->MonotonicNanos());
    v1::WorkloadEvent event;
    v1::MinibatchRecord* r = event.mutable_minibatch();
    r->set_index(done);
    r->set_t_start_s((prev_end_ns - start_ns) * 1e-9);
    r->set_compute_s((end_ns - begin_ns) * 1e-9);
    r->set_e2e_s((end_ns - prev_end_ns) * 1e-9);
    r->set_samples(1);
    compute_total += r->compute_s();
    prev_end_ns = end_ns;
    st = sink->Write(event);
    if (!st.ok()) return st;
    ++done;
    reason = stop.Check(done, 0, (clock->MonotonicNanos() - start_ns) * 1e-9);
  }
  v1::WorkloadFinished finished;
  finished.set_minibatches(done);
  finished.set_elapsed_s((clock->MonotonicNanos() - start_ns) * 1e-9);
  finished.set_stop_reason(reason);
  v1::WorkloadEvent event;
  *event.mutable_finished() = finished;
  st = sink->Write(event);
  if (!st.ok()) return st;
  const double mean_s = done > 0 ? compute_total / done : 0;
  PS_LOG(INFO) << absl::StrFormat(
      "finished: %d iterations in %.3f s (stop: %s), %.6f s per iteration, "
      "%.2f GFLOP/s, %.0f launches/s",
      done, finished.elapsed_s(), reason, mean_s,
      mean_s > 0 ? cost.flops / mean_s / 1e9 : 0.0,
      mean_s > 0 ? launches / mean_s : 0.0);
  return finished;
}

}  // namespace

absl::StatusOr<v1::WorkloadFinished> RunKernel(const RunConfig& config,
                                               Clock* clock, RecordSink* sink) {
  absl::StatusOr<v1::WorkloadFinished> result =
      absl::UnknownError("kernel did not run");
  absl::Status st = CatchTorchErrors("kernel", [&] {
    result = RunUnchecked(config, clock, sink);
    return result.status();
  });
  if (!st.ok()) return st;
  return result;
}

}  // namespace powersweep
