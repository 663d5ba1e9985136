#include "agent/run_executor.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/batcher.h"
#include "agent/telemetry/baseload.h"
#include "agent/telemetry/energy.h"
#include "agent/telemetry/sampler.h"
#include "common/log.h"

namespace powersweep {

RunExecutor::RunExecutor(RunExecutorConfig config, const Catalog* catalog,
                         Platform* platform, Clock* clock,
                         RuntimeFactory runtimes)
    : config_(std::move(config)),
      catalog_(catalog),
      platform_(platform),
      clock_(clock),
      runtimes_(std::move(runtimes)) {}

int64_t RunExecutor::ActiveRunId() const {
  absl::MutexLock lock(&mu_);
  return active_run_id_;
}

void RunExecutor::Cancel(int64_t run_id, const std::string& reason) {
  absl::MutexLock lock(&mu_);
  if (active_run_id_ == 0 || (run_id != 0 && run_id != active_run_id_)) return;
  cancel_requested_ = true;
  cancel_reason_ = reason;
  if (runtime_ != nullptr) runtime_->Cancel(reason);
}

v1::RunFinished RunExecutor::Fail(const v1::RunSpec& spec,
                                  const std::string& reason, RunSink* sink) {
  PS_LOG(WARNING) << "run " << spec.run_id() << " failed: " << reason;
  v1::RunFinished finished;
  finished.set_attempt(spec.attempt());
  finished.mutable_result()->set_run_id(spec.run_id());
  finished.mutable_result()->set_ok(false);
  finished.mutable_result()->set_reason(reason);
  finished.set_batches(0);
  {
    absl::MutexLock lock(&mu_);
    active_run_id_ = 0;
  }
  sink->OnRunFinished(finished);
  return finished;
}

v1::RunFinished RunExecutor::Execute(const v1::RunSpec& spec, RunSink* sink) {
  {
    absl::MutexLock lock(&mu_);
    active_run_id_ = spec.run_id();
    cancel_requested_ = false;
    cancel_reason_.clear();
  }
  PS_LOG(INFO) << "run " << spec.run_id() << ": starting";
  // A baseload run measures the idle device: no workload process.
  const bool baseload = spec.workload().task() == v1::TASK_BASELOAD;
  absl::StatusOr<std::vector<std::string>> argv = std::vector<std::string>{};
  if (baseload) {
    absl::Status valid = ValidateBaseload(spec);
    if (!valid.ok()) argv = valid;
  } else {
    argv = BuildWorkloadArgv(config_.workload_bin, *catalog_, spec,
                             static_cast<int>(platform_->RunCpus().size()));
  }
  if (!argv.ok()) return Fail(spec, std::string(argv.status().message()), sink);
  absl::StatusOr<v1::AppliedPowerMode> applied =
      platform_->Apply(spec.power_mode());
  if (!applied.ok()) {
    return Fail(spec, std::string(applied.status().message()), sink);
  }
  const std::vector<int> cpus = platform_->RunCpus();
  // --threads follows the cores of the applied mode.
  if (!baseload) {
    argv = BuildWorkloadArgv(config_.workload_bin, *catalog_, spec,
                             static_cast<int>(cpus.size()));
  }

  std::error_code ec;
  std::filesystem::create_directories(config_.work_dir, ec);
  RuntimeSpec rspec;
  rspec.argv = *argv;
  rspec.cpus = cpus;
  rspec.stderr_log_path =
      absl::StrCat(config_.work_dir, "/run-", spec.run_id(), "-attempt-",
                   spec.attempt(), ".log");
  rspec.timeout_s = spec.timeout_s();
  rspec.grace_s = config_.cancel_grace_s;

  Batcher batcher(spec.run_id(), spec.attempt(), clock_,
                  config_.batch_interval_s,
                  config_.max_records_per_batch,
                  [sink](const v1::DataBatch& b) { sink->OnBatch(b); });
  EnergyAccumulator energy;
  // Both set before the runtime's threads start. A simulated run's records
  // are already on the run clock (no process start-up to offset).
  int64_t run_start_ns = 0;
  bool records_on_run_clock = false;
  absl::Mutex events_mu;
  v1::BuildProvenance provenance;
  bool got_finished = false;
  auto on_event = [&](const v1::WorkloadEvent& e) {
    switch (e.event_case()) {
      case v1::WorkloadEvent::kStarted: {
        absl::MutexLock lock(&events_mu);
        provenance = e.started();
        break;
      }
      case v1::WorkloadEvent::kMinibatch:
        energy.AddRecord(
            e.minibatch(),
            records_on_run_clock
                ? e.minibatch().t_start_s() + e.minibatch().e2e_s()
                : (clock_->MonotonicNanos() - run_start_ns) * 1e-9);
        batcher.AddRecord(e.minibatch());
        break;
      case v1::WorkloadEvent::kFinished: {
        absl::MutexLock lock(&events_mu);
        got_finished = true;
        break;
      }
      default:
        break;
    }
  };

  std::unique_ptr<Runtime> runtime;
  if (baseload) {
    runtime = std::make_unique<BaseloadRuntime>(clock_,
                                                spec.workload().duration_s());
  } else {
    runtime = runtimes_();
  }
  SimulatedRun* simulated = dynamic_cast<SimulatedRun*>(runtime.get());
  records_on_run_clock = simulated != nullptr;
  if (simulated != nullptr) {
    simulated->SetTelemetry(spec.telemetry_hz(),
                            [&batcher, &energy](const v1::TelemetrySample& s) {
                              energy.AddSample(s);
                              batcher.AddSample(s);
                            });
  }
  const double agent_cpu_start_s = ProcessCpuSeconds();
  const int64_t start_ns = clock_->MonotonicNanos();
  run_start_ns = start_ns;
  absl::Status started = runtime->Start(rspec, on_event);
  if (!started.ok()) {
    platform_->Restore();
    return Fail(spec,
                absl::StrCat("cannot start the workload: ", started.message()),
                sink);
  }
  {
    absl::MutexLock lock(&mu_);
    runtime_ = runtime.get();
    if (cancel_requested_) runtime_->Cancel(cancel_reason_);
  }
  if (runtime->Pid() > 0) {
    absl::Status attached = platform_->AttachWorkload(runtime->Pid());
    if (!attached.ok()) runtime->Cancel(std::string(attached.message()));
  }
  v1::RunStarted rs;
  rs.set_run_id(spec.run_id());
  *rs.mutable_applied_mode() = *applied;
  rs.set_started_unix_ms(absl::ToUnixMillis(clock_->Now()));
  sink->OnRunStarted(rs);

  Sampler sampler(platform_, clock_);
  SamplerOptions sopts;
  sopts.hz = simulated != nullptr ? 0 : spec.telemetry_hz();
  sopts.cpus = cpus;
  sopts.pid = runtime->Pid();
  sopts.run_start_mono_ns = start_ns;
  sopts.proc_root = config_.proc_root;
  sampler.Start(sopts, [&batcher, &energy](const v1::TelemetrySample& s) {
    energy.AddSample(s);
    batcher.AddSample(s);
  });

  ExitStatus exit = runtime->Wait();
  const double sampler_cpu_s = sampler.Stop();
  const double agent_cpu_s = ProcessCpuSeconds() - agent_cpu_start_s;
  batcher.Flush();
  platform_->Restore();
  {
    absl::MutexLock lock(&mu_);
    runtime_ = nullptr;
    active_run_id_ = 0;
  }

  v1::RunFinished finished;
  finished.set_attempt(spec.attempt());
  v1::RunResult* r = finished.mutable_result();
  r->set_run_id(spec.run_id());
  r->set_exit_code(exit.exit_code);
  r->set_term_signal(exit.term_signal);
  std::string reason = exit.FailureReason();
  {
    absl::MutexLock lock(&events_mu);
    *r->mutable_provenance() = provenance;
    if (reason.empty() && !got_finished) {
      reason = "workload exited with code 0 but sent no finished record";
      if (exit.bad_record_lines > 0) {
        absl::StrAppend(&reason, " (", exit.bad_record_lines,
                        " record lines did not parse)");
      }
    }
  }
  r->set_ok(reason.empty());
  r->set_reason(reason);
  *r->mutable_applied_mode() = *applied;
  r->set_duration_s((clock_->MonotonicNanos() - start_ns) * 1e-9);
  FillRunEnergy(energy.Result(), baseload, agent_cpu_s, r->duration_s(), r);
  if (simulated != nullptr) {
    r->set_duration_s(simulated->SimulatedDurationS());
    r->set_energy_j(simulated->EnergyJ());
    r->set_energy_provenance(v1::PROVENANCE_SIMULATED);
  }
  r->set_sampler_cpu_s(sampler_cpu_s);
  finished.set_batches(batcher.batches());
  PS_LOG(INFO) << "run " << spec.run_id() << ": "
               << (r->ok() ? "ok" : "failed: " + reason) << ", "
               << finished.batches() << " batches";
  sink->OnRunFinished(finished);
  return finished;
}

}  // namespace powersweep
