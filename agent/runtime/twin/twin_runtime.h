// TwinRuntime: runs a workload on a twin (agent/platform/twin) without
// starting a process.
//
// Start reads the run from the workload argv the executor built
// (ParseTwinWorkload; --page-cache, --preload and --preload-limit as the
// workload reads them: a preloaded run builds --preload-limit, else
// --minibatches, else one epoch of minibatches at start-up), costs the
// model on the data set (TwinWorkloadCostFor: an unknown model or data set,
// or a pair that does not fit, fails Start with an error naming it) and
// takes the operating point the platform was last set to. A kernel run
// (--model gemm|conv|rnn --kernel-shape S) is costed by TwinKernelShape
// (agent/platform/twin/kernel_cost.h): one record per iteration, and a
// started event with the kernel's KernelInfo (launches from the formula).
//
// Wait replays the run's TwinSimulation on the Clock and hands its events
// to the callbacks in order: a `started` event (framework "twin-model",
// framework_version kTwinModelVersion, a WorkloadInfo from the costs:
// params, MACs, input, the data set split; storage "simulated"), one
// `minibatch` per minibatch, telemetry samples (SimulatedRun::SetTelemetry),
// `finished`.
//
// Time: an event at simulated time t is delivered at start + t * time_scale
// on the Clock (time_scale 0.01: a 100 s run takes 1 s; 0: as fast as
// possible). Records, samples, the duration and the energy are all in
// simulated seconds. spec.timeout_s is enforced in simulated time (a twin
// run times out where the real device would). Cancel stops the replay
// within one sleep step (<= 20 ms of Clock time).
//
// Page cache: the platform keeps, per data set split, the fraction earlier
// runs left in the page cache; a run starts with it and, when it ends,
// leaves what it read (the whole split for sets loaded at start, the files
// of its minibatches for image folders), or nothing when the split does not
// fit the class's page cache or the run drops pages.
//
// Noise: the stream is seeded from (twin seed, instance, workload seed,
// the run's index on this twin), so repetitions differ and a fleet started
// with the same seed replays the same numbers.
//
// Thread safety: Start, SetTelemetry and Wait from one thread; Cancel from
// any thread. Callbacks run on the thread that calls Wait().
#ifndef POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_RUNTIME_H_
#define POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_RUNTIME_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "agent/platform/twin/twin_platform.h"
#include "agent/runtime/runtime.h"
#include "agent/runtime/simulated_run.h"
#include "agent/runtime/twin/twin_simulation.h"
#include "agent/runtime/twin/twin_workload.h"
#include "common/clock.h"
#include "common/kernel_shape.h"

namespace powersweep {

// 2: the workload suite (ResNet, VGG, MobileNet; CIFAR-10, JPEG sets) (LeNet-5 figures unchanged).
// 3: calibrated on the SIGMETRICS Xavier AGX sensitivities: host work waits
// on DRAM, the worker hand-over stalls, depthwise convolutions, parameter
// traffic of the optimizer (every figure changes).
inline constexpr char kTwinModelVersion[] = "twin-model-3";

struct TwinRuntimeOptions {
  double time_scale = 0.01;  // wall seconds per simulated second, >= 0
  double max_sleep_s = 0.02; // sleep step (cancellation latency)
};

class TwinRuntime : public Runtime, public SimulatedRun {
 public:
  // `platform` and `clock` must outlive the runtime.
  TwinRuntime(TwinPlatform* platform, Clock* clock,
              TwinRuntimeOptions options = {});

  absl::Status Start(const RuntimeSpec& spec,
                     RecordCallback callback) override;
  ExitStatus Wait() override;
  void Cancel(const std::string& reason) override;
  int Pid() const override { return 0; }

  void SetTelemetry(double hz, SampleCallback on_sample) override;
  double SimulatedDurationS() const override;
  double EnergyJ() const override;

 private:
  v1::BuildProvenance Provenance(int threads) const;
  // A kernel run (--kernel-shape): costed by TwinKernelShape.
  absl::Status StartKernel(const RuntimeSpec& spec, const TwinWorkload& w,
                           RecordCallback callback);
  void SetStopAndNoise(const RuntimeSpec& spec, const TwinWorkload& w,
                       TwinSimulationConfig* cfg);

  TwinPlatform* const platform_;
  Clock* const clock_;
  const TwinRuntimeOptions options_;
  RuntimeSpec spec_;
  double CachedAfterRun() const;

  TwinWorkloadShape shape_;  // what Start costed (for the provenance)
  std::optional<KernelShape> kernel_;  // set for kernel runs
  std::string dataset_path_;
  std::string cache_key_;    // the split in the platform's page cache
  double cached_at_start_ = 0;
  RecordCallback callback_;
  SampleCallback on_sample_;
  double telemetry_hz_ = 0;
  int threads_ = 0;
  int64_t start_ns_ = 0;
  std::unique_ptr<TwinSimulation> sim_;
  double duration_s_ = 0;
  double energy_j_ = 0;

  absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::string cancel_reason_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_RUNTIME_H_
