// RunExecutor: runs one RunSpec end to end on this agent.
//
// Execute(spec, sink): validates the spec against the agent's catalog and
// builds the workload argv from validated fields only; applies the power
// mode (Platform::Apply); starts the workload (Runtime) pinned to the run's
// CPUs and the Sampler at spec.telemetry_hz; reports RunStarted; groups the
// workload's minibatch records and the telemetry samples into numbered
// DataBatches (Batcher); restores the platform; reports RunFinished with the
// RunResult and the number of batches. Every Execute ends with exactly one
// OnRunFinished (a run rejected before it starts sends no RunStarted and
// no batches). A workload that exits 0 without a `finished` record failed.
// A baseload run (TASK_BASELOAD) starts no process: BaseloadRuntime waits
// workload.duration_s while the sampler runs.
// Co-located tenants (spec.tenants > 1): that many runtimes start together
// on the run's CPUs, each with its own stderr log; every minibatch record
// carries its tenant; the run is ok only when every tenant is, and the
// result has one TenantResult per tenant. Telemetry is the device's, once.
// Every sample carries the kernel counters (/proc/vmstat) and, summed over
// the tenants whose runtime is a CountedRun (containers), their own. The result carries the
// energy integrated from the samples (agent/telemetry/energy.h), its phase
// split, and the agent process's CPU time over the run's wall time.
// A knob that reads back different from what was requested, without a
// note of the platform explaining it, fails the run (the platform is
// restored) with the knob and both values (agent/run/mode_readback.h).
// A run with RunSpec.traces gets its kernel event traces in
// RunResult.traces (config.tracer; agent/trace/tracer.h).
// Right after the mode is applied the board is read (and, with a settle
// block, waited on until it has cooled; agent/run/settle.h): the result's
// RunConditions.
//
// Thread safety: Execute runs one run at a time (callers serialize it);
// Cancel and ActiveRunId may be called from any thread. Sink methods are
// called from the executor's, the runtime reader's and the sampler's
// threads, never concurrently for batches of one run (emitted in order).
#ifndef POWERSWEEP_AGENT_RUN_RUN_EXECUTOR_H_
#define POWERSWEEP_AGENT_RUN_RUN_EXECUTOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "agent/run/catalog.h"
#include "agent/run/settle.h"
#include "agent/platform/platform.h"
#include "agent/runtime/run_sink.h"
#include "agent/runtime/runtime.h"
#include "agent/runtime/simulated_run.h"
#include "agent/trace/tracer.h"
#include "common/clock.h"
#include "powersweep/v1/agent_gateway.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

struct RunExecutorConfig {
  std::string workload_bin;
  // Per-run workload logs go here; checked (and created 0700) by
  // PrepareStateDir before each run (agent/util/state_dir.h).
  std::string work_dir;
  double batch_interval_s = 1.0;
  int max_records_per_batch = 200;
  double cancel_grace_s = 5.0;
  std::string proc_root = "/proc";
  // Called when a run's power mode did not read back as requested
  // (mode_readback.h) with the problem; the run fails with it. The agent
  // marks itself unhealthy (HealthChecker::MarkUnhealthy). May be empty.
  std::function<void(const std::string&)> on_mode_mismatch;
  // Called with every telemetry sample of a run, as it is taken (on the
  // sampler's or the simulated run's thread), e.g. to keep the latest for
  // the agent's /metrics page. Must be cheap and not block. May be empty.
  std::function<void(const v1::TelemetrySample&)> on_sample;
  // Collects the kernel event traces a run asks for (RunSpec.traces;
  // agent/trace/tracer.h): started once the workload's processes run,
  // stopped when they have ended, its RunTraces in the result. Null: every
  // requested trace is missing ("this agent has no kernel tracer"). Twins'
  // runs get every trace as missing whatever this is.
  std::shared_ptr<Tracer> tracer;
};

// The workload command line for `spec` (see docs/ARCHITECTURE.md), or
// InvalidArgument naming the RunSpec field that is not acceptable.
// `run_cpus` is used for --threads when workload.threads is 0.
absl::StatusOr<std::vector<std::string>> BuildWorkloadArgv(
    const std::string& workload_bin, const Catalog& catalog,
    const v1::RunSpec& spec, int run_cpus);

class RunExecutor {
 public:
  // All pointers must outlive the executor.
  RunExecutor(RunExecutorConfig config, const Catalog* catalog,
              Platform* platform, Clock* clock, RunRuntimeFactory runtimes);
  RunExecutor(RunExecutorConfig config, const Catalog* catalog,
              Platform* platform, Clock* clock, RuntimeFactory runtimes)
      : RunExecutor(std::move(config), catalog, platform, clock,
                    NativeOnly(std::move(runtimes))) {}

  v1::RunFinished Execute(const v1::RunSpec& spec, RunSink* sink);
  // Cancels the run if `run_id` is the active one (0 = whatever runs).
  void Cancel(int64_t run_id, const std::string& reason);
  int64_t ActiveRunId() const;
  // What this executor runs (models, data sets, container runs).
  const Catalog& catalog() const { return *catalog_; }

 private:
  struct Run;
  v1::RunFinished Fail(const v1::RunSpec& spec, const std::string& reason,
                       RunSink* sink);
  // Execute's steps. Prepare: bounds, state dir, argv, the power mode (on
  // an error after Apply, restored). StartTenants: the runtimes, started
  // and attached, and RunStarted (on an error the caller restores).
  // Supervise: telemetry until every tenant is reaped; restores. BuildResult:
  // the RunFinished. StartTraces: the run's kernel trace session, once its
  // processes run (StartTenants).
  absl::Status Prepare(Run* run);
  absl::Status StartTenants(Run* run);
  void StartTraces(Run* run);
  void Supervise(Run* run);
  v1::RunFinished BuildResult(Run& run);

  const RunExecutorConfig config_;
  const Catalog* const catalog_;
  Platform* const platform_;
  Clock* const clock_;
  const RunRuntimeFactory runtimes_;
  // Only Execute's thread touches it.
  IdleReference idle_reference_;

  mutable absl::Mutex mu_;
  int64_t active_run_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<Runtime*> runtimes_running_ ABSL_GUARDED_BY(mu_);
  bool cancel_requested_ ABSL_GUARDED_BY(mu_) = false;
  std::string cancel_reason_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_RUN_EXECUTOR_H_
