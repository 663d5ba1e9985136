#include "agent/run/run_executor.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/run/batcher.h"
#include "agent/run/mode_readback.h"
#include "agent/run/run_spec_bounds.h"
#include "agent/telemetry/baseload.h"
#include "agent/telemetry/energy.h"
#include "agent/telemetry/host_load.h"
#include "agent/telemetry/proc_readers.h"
#include "agent/telemetry/sampler.h"
#include "agent/util/state_dir.h"
#include "common/log.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

// The machine's busy CPU seconds (agent/telemetry/host_load.h) when
// `measured`: runs whose workload's CPU time the agent sees (not simulated,
// not in a container); nullopt otherwise or when /proc/stat cannot be read.
std::optional<double> MachineBusySeconds(const std::string& proc_root,
                                         bool measured) {
  if (!measured) return std::nullopt;
  ProcStatReader reader(proc_root);
  absl::StatusOr<std::map<int, CpuTimes>> cores = reader.Read();
  if (!cores.ok()) return std::nullopt;
  return BusySeconds(*cores, sysconf(_SC_CLK_TCK));
}

}  // namespace

RunExecutor::RunExecutor(RunExecutorConfig config, const Catalog* catalog,
                         Platform* platform, Clock* clock,
                         RunRuntimeFactory runtimes)
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
  for (Runtime* r : runtimes_running_) r->Cancel(reason);
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

// One run's state, from Prepare to BuildResult.
struct RunExecutor::Run {
  Run(const v1::RunSpec& spec, RunSink* sink, Clock* clock,
      const RunExecutorConfig& config)
      : spec(spec),
        sink(sink),
        clock(clock),
        batcher(spec.run_id(), spec.attempt(), clock, config.batch_interval_s,
                config.max_records_per_batch,
                [sink](const v1::DataBatch& b) { sink->OnBatch(b); }),
        on_sample(config.on_sample) {}

  // A workload record of tenant `tenant` (the runtimes' reader threads).
  void OnEvent(int tenant, const v1::WorkloadEvent& e);
  // A telemetry sample (the sampler's or the simulated run's thread).
  void OnSample(const v1::TelemetrySample& s) {
    energy.AddSample(s);
    batcher.AddSample(s);
    if (on_sample) on_sample(s);
  }

  const v1::RunSpec& spec;
  RunSink* const sink;
  Clock* const clock;
  // Declared before the runtimes: their threads feed these until the
  // runtimes are destroyed.
  Batcher batcher;
  const std::function<void(const v1::TelemetrySample&)> on_sample;
  EnergyAccumulator energy;
  absl::Mutex events_mu;
  std::vector<v1::BuildProvenance> provenance ABSL_GUARDED_BY(events_mu);
  std::vector<int64_t> minibatches ABSL_GUARDED_BY(events_mu);
  std::vector<bool> got_finished ABSL_GUARDED_BY(events_mu);
  // Prepare.
  bool baseload = false;
  v1::RunConditions conditions;
  // In a container the idle device is measured with an idle container
  // running (`powersweep-workload idle` in the workload image).
  bool idle_container = false;
  int tenants = 1;
  RuntimeSpec rspec;  // but stderr_log_path, set per tenant
  v1::AppliedPowerMode applied;
  // StartTenants.
  std::vector<std::unique_ptr<Runtime>> runtimes;
  SimulatedRun* simulated = nullptr;
  std::vector<CountedRun*> counted;
  double agent_cpu_start_s = 0;
  // The machine's busy CPU seconds at the start (host_load.h); unset for
  // simulated and container runs, or when /proc/stat cannot be read.
  std::optional<double> busy_start_s;
  std::optional<double> busy_end_s;
  // Both set before the runtimes' threads start. A simulated run's records
  // are already on the run clock (no process start-up to offset).
  int64_t start_ns = 0;
  bool records_on_run_clock = false;
  // Supervise.
  std::vector<ExitStatus> exits;
  int64_t end_ns = 0;
  double sampler_cpu_s = 0;
  double gpu_counter_energy_j = 0;  // Platform::StopRunEnergyCounter
  double agent_cpu_s = 0;
  // Kernel event traces (spec.traces): started after the runtimes,
  // stopped once every tenant has been reaped.
  std::unique_ptr<TraceSession> trace;
  v1::RunTraces traces;
};

void RunExecutor::Run::OnEvent(int tenant, const v1::WorkloadEvent& e) {
  switch (e.event_case()) {
    case v1::WorkloadEvent::kStarted: {
      absl::MutexLock lock(&events_mu);
      provenance[tenant] = e.started();
      break;
    }
    case v1::WorkloadEvent::kMinibatch: {
      // Copied only to label a co-located tenant.
      v1::MinibatchRecord labelled;
      if (tenants > 1) {
        labelled = e.minibatch();
        labelled.set_tenant(tenant);
      }
      const v1::MinibatchRecord& record =
          tenants > 1 ? labelled : e.minibatch();
      energy.AddRecord(record,
                       records_on_run_clock
                           ? record.t_start_s() + record.e2e_s()
                           : (clock->MonotonicNanos() - start_ns) * 1e-9);
      {
        absl::MutexLock lock(&events_mu);
        ++minibatches[tenant];
      }
      batcher.AddRecord(record);
      break;
    }
    case v1::WorkloadEvent::kFinished: {
      absl::MutexLock lock(&events_mu);
      got_finished[tenant] = true;
      break;
    }
    default:
      break;
  }
}

v1::RunFinished RunExecutor::Execute(const v1::RunSpec& spec, RunSink* sink) {
  {
    absl::MutexLock lock(&mu_);
    active_run_id_ = spec.run_id();
    cancel_requested_ = false;
    cancel_reason_.clear();
  }
  PS_LOG(INFO) << "run " << spec.run_id() << ": starting";
  Run run(spec, sink, clock_, config_);
  absl::Status prepared = Prepare(&run);
  if (!prepared.ok()) return Fail(spec, std::string(prepared.message()), sink);
  absl::Status started = StartTenants(&run);
  if (!started.ok()) {
    platform_->Restore();
    return Fail(spec, std::string(started.message()), sink);
  }
  Supervise(&run);
  v1::RunFinished finished = BuildResult(run);
  PS_LOG(INFO) << "run " << spec.run_id() << ": "
               << (finished.result().ok()
                       ? std::string("ok")
                       : "failed: " + finished.result().reason())
               << ", " << finished.batches() << " batches";
  sink->OnRunFinished(finished);
  return finished;
}

absl::Status RunExecutor::Prepare(Run* run) {
  const v1::RunSpec& spec = run->spec;
  // Nothing below may see a value outside the agent's own bounds (the
  // controller is not trusted to have checked them).
  PS_RETURN_IF_ERROR(CheckRunSpecBounds(spec));
  // The logs go to the state dir: recreated 0700 if it was removed,
  // refused if someone else could have prepared it (agent/util/state_dir.h).
  if (!config_.work_dir.empty()) {
    PS_RETURN_IF_ERROR(PrepareStateDir(config_.work_dir, "--work_dir"));
  }
  // A baseload run measures the idle device: no workload process.
  run->baseload = spec.workload().task() == v1::TASK_BASELOAD;
  run->idle_container =
      run->baseload && spec.runtime() == v1::RUNTIME_CONTAINER;
  std::vector<std::string> argv;
  if (run->baseload) {
    PS_RETURN_IF_ERROR(ValidateBaseload(spec));
    if (run->idle_container && !catalog_->containers) {
      return absl::InvalidArgumentError(
          "runtime: container runs are not available on this agent (no "
          "container engine; start it with --container_images and a running "
          "Docker engine)");
    }
    if (run->idle_container) {
      argv = {config_.workload_bin, "idle", "--duration-s",
              absl::StrCat(spec.workload().duration_s()), "--records-fd",
              absl::StrCat(kRecordsFd)};
    }
  } else {
    // Validation before anything is applied; --threads follows the cores
    // of the applied mode below.
    PS_RETURN_IF_ERROR(
        (BuildWorkloadArgv(
             config_.workload_bin, *catalog_, spec,
             std::max<int>(1, static_cast<int>(platform_->RunCpus().size()))))
            .status());
  }
  PS_ASSIGN_OR_RETURN(v1::AppliedPowerMode applied,
                      platform_->Apply(spec.power_mode()));
  if (const std::string problem = ModeReadBackProblem(applied);
      !problem.empty()) {
    platform_->Restore();
    const std::string reason =
        absl::StrCat("the power mode did not read back: ", problem);
    if (config_.on_mode_mismatch) config_.on_mode_mismatch(reason);
    return absl::FailedPreconditionError(reason);
  }
  run->applied = applied;
  // In the run's mode: what the board idles at, after cooling if asked.
  run->conditions = SettleBoard(spec.settle(), platform_, clock_,
                                &idle_reference_, [this] {
                                  absl::MutexLock lock(&mu_);
                                  return cancel_requested_;
                                });
  if (!run->conditions.settle_outcome().empty()) {
    PS_LOG(INFO) << "run " << spec.run_id() << ": settle "
                 << run->conditions.settle_outcome() << " after "
                 << run->conditions.settle_waited_s() << "s";
  }
  const std::vector<int> cpus = platform_->RunCpus();
  if (!run->baseload) {
    absl::StatusOr<std::vector<std::string>> built =
        BuildWorkloadArgv(config_.workload_bin, *catalog_, spec,
                          static_cast<int>(cpus.size()));
    if (!built.ok()) {
      platform_->Restore();
      return built.status();
    }
    argv = *std::move(built);
  }
  run->tenants = run->baseload ? 1 : std::max(1, spec.tenants());
  run->rspec.argv = std::move(argv);
  run->rspec.cpus = cpus;
  run->rspec.timeout_s = spec.timeout_s();
  run->rspec.grace_s = config_.cancel_grace_s;
  {
    absl::MutexLock lock(&run->events_mu);
    run->provenance.resize(run->tenants);
    run->minibatches.assign(run->tenants, 0);
    run->got_finished.assign(run->tenants, false);
  }
  return absl::OkStatus();
}

absl::Status RunExecutor::StartTenants(Run* run) {
  const v1::RunSpec& spec = run->spec;
  const int tenants = run->tenants;
  for (int t = 0; t < tenants; ++t) {
    if (run->baseload && !run->idle_container) {
      run->runtimes.push_back(std::make_unique<BaseloadRuntime>(
          clock_, spec.workload().duration_s()));
      continue;
    }
    PS_ASSIGN_OR_RETURN(std::unique_ptr<Runtime> made, runtimes_(spec, t));
    run->runtimes.push_back(std::move(made));
  }
  run->simulated = dynamic_cast<SimulatedRun*>(run->runtimes[0].get());
  if (run->simulated != nullptr && tenants > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("tenants: ", tenants,
                     " requested, but a twin simulates one tenant per run"));
  }
  run->records_on_run_clock = run->simulated != nullptr;
  if (run->simulated != nullptr) {
    run->simulated->SetTelemetry(
        spec.telemetry_hz(),
        [run](const v1::TelemetrySample& s) { run->OnSample(s); });
  }
  run->agent_cpu_start_s = ProcessCpuSeconds();
  run->busy_start_s = MachineBusySeconds(
      config_.proc_root, run->simulated == nullptr &&
                             run->spec.runtime() != v1::RUNTIME_CONTAINER);
  run->start_ns = clock_->MonotonicNanos();
  for (int t = 0; t < tenants; ++t) {
    RuntimeSpec rspec = run->rspec;
    rspec.stderr_log_path = absl::StrCat(
        config_.work_dir, "/run-", spec.run_id(), "-attempt-", spec.attempt(),
        tenants > 1 ? absl::StrCat("-tenant-", t) : "", ".log");
    absl::Status started = run->runtimes[t]->Start(
        rspec, [run, t](const v1::WorkloadEvent& e) { run->OnEvent(t, e); });
    if (!started.ok()) {
      for (int u = 0; u < t; ++u) {
        run->runtimes[u]->Cancel("another tenant could not start");
        run->runtimes[u]->Wait();
      }
      return absl::Status(
          started.code(),
          absl::StrCat("cannot start the workload",
                       tenants > 1 ? absl::StrCat(" (tenant ", t, ")") : "",
                       ": ", started.message()));
    }
  }
  {
    absl::MutexLock lock(&mu_);
    for (auto& r : run->runtimes) runtimes_running_.push_back(r.get());
    if (cancel_requested_) {
      for (Runtime* r : runtimes_running_) r->Cancel(cancel_reason_);
    }
  }
  for (auto& r : run->runtimes) {
    if (r->Pid() <= 0) continue;
    absl::Status attached = platform_->AttachWorkload(r->Pid());
    if (!attached.ok()) r->Cancel(std::string(attached.message()));
  }
  for (auto& r : run->runtimes) {
    if (auto* c = dynamic_cast<CountedRun*>(r.get())) {
      run->counted.push_back(c);
    }
  }
  if (spec.traces_size() > 0) StartTraces(run);
  v1::RunStarted rs;
  rs.set_run_id(spec.run_id());
  *rs.mutable_applied_mode() = run->applied;
  rs.set_started_unix_ms(absl::ToUnixMillis(clock_->Now()));
  run->sink->OnRunStarted(rs);
  return absl::OkStatus();
}

void RunExecutor::StartTraces(Run* run) {
  std::vector<v1::Trace> kinds;
  for (int k : run->spec.traces()) kinds.push_back(static_cast<v1::Trace>(k));
  std::vector<int> pids;
  for (auto& r : run->runtimes) {
    if (r->Pid() > 0) pids.push_back(r->Pid());
  }
  std::unique_ptr<Tracer> stand_in;
  Tracer* tracer = config_.tracer.get();
  if (run->simulated != nullptr) {
    stand_in = std::make_unique<UnsupportedTracer>(
        "a twin simulates no kernel: traces are measured on hosts and boards");
    tracer = stand_in.get();
  } else if (tracer == nullptr) {
    stand_in =
        std::make_unique<UnsupportedTracer>("this agent has no kernel tracer");
    tracer = stand_in.get();
  }
  run->trace = tracer->Start(kinds, pids);
}

void RunExecutor::Supervise(Run* run) {
  Sampler sampler(platform_, clock_);
  SamplerOptions sopts;
  sopts.hz = run->simulated != nullptr ? 0 : run->spec.telemetry_hz();
  sopts.cpus = run->rspec.cpus;
  // Every tenant's process: a co-located run reports their sum.
  for (auto& r : run->runtimes) sopts.pids.push_back(r->Pid());
  sopts.run_start_mono_ns = run->start_ns;
  sopts.proc_root = config_.proc_root;
  if (!run->counted.empty()) {
    sopts.workload_counters = [run](v1::KernelCounters* k) {
      for (CountedRun* c : run->counted) {
        std::optional<WorkloadCounters> w = c->ReadCounters();
        if (!w) continue;
        k->set_tenant_pgfault(k->tenant_pgfault() + w->pgfault);
        k->set_tenant_pgmajfault(k->tenant_pgmajfault() + w->pgmajfault);
        k->set_tenant_dirty_bytes(k->tenant_dirty_bytes() + w->dirty_bytes);
        k->set_tenant_writeback_bytes(k->tenant_writeback_bytes() +
                                      w->writeback_bytes);
      }
    };
  }
  platform_->StartRunEnergyCounter();
  sampler.Start(sopts,
                [run](const v1::TelemetrySample& s) { run->OnSample(s); });

  for (auto& r : run->runtimes) run->exits.push_back(r->Wait());
  run->gpu_counter_energy_j = platform_->StopRunEnergyCounter();
  // The run ends when its last tenant is reaped, not after the clean-up.
  run->end_ns = clock_->MonotonicNanos();
  if (run->trace != nullptr) {
    run->traces = run->trace->Stop();
    run->trace.reset();
  }
  run->sampler_cpu_s = sampler.Stop();
  run->agent_cpu_s = ProcessCpuSeconds() - run->agent_cpu_start_s;
  if (run->busy_start_s.has_value()) {
    run->busy_end_s = MachineBusySeconds(config_.proc_root, true);
  }
  run->batcher.Flush();
  platform_->Restore();
  absl::MutexLock lock(&mu_);
  runtimes_running_.clear();
  active_run_id_ = 0;
}

v1::RunFinished RunExecutor::BuildResult(Run& run) {
  const int tenants = run.tenants;
  const std::vector<ExitStatus>& exits = run.exits;
  v1::RunFinished finished;
  finished.set_attempt(run.spec.attempt());
  v1::RunResult* r = finished.mutable_result();
  r->set_run_id(run.spec.run_id());
  r->set_exit_code(exits[0].exit_code);
  r->set_term_signal(exits[0].term_signal);
  std::string reason;
  {
    absl::MutexLock lock(&run.events_mu);
    *r->mutable_provenance() = run.provenance[0];
    double workload_cpu_s = 0;
    for (int t = 0; t < tenants; ++t) workload_cpu_s += exits[t].cpu_s;
    r->set_workload_cpu_s(workload_cpu_s);
    for (int t = 0; t < tenants; ++t) {
      std::string why = exits[t].FailureReason();
      if (why.empty() && !run.got_finished[t]) {
        why = "workload exited with code 0 but sent no finished record";
        if (exits[t].bad_record_lines > 0) {
          absl::StrAppend(&why, " (", exits[t].bad_record_lines,
                          " record lines did not parse)");
        }
      }
      if (reason.empty() && !why.empty()) {
        reason = tenants > 1 ? absl::StrCat("tenant ", t, ": ", why) : why;
        r->set_exit_code(exits[t].exit_code);
        r->set_term_signal(exits[t].term_signal);
      }
      if (tenants == 1 && run.counted.empty()) continue;
      v1::TenantResult* tr = r->add_tenants();
      tr->set_tenant(t);
      tr->set_exit_code(exits[t].exit_code);
      tr->set_term_signal(exits[t].term_signal);
      tr->set_reason(why);
      tr->set_cpu_s(exits[t].cpu_s);
      tr->set_max_rss_bytes(exits[t].max_rss_bytes);
      tr->set_minibatches(run.minibatches[t]);
      if (auto* c = dynamic_cast<CountedRun*>(run.runtimes[t].get())) {
        std::optional<WorkloadCounters> w = c->ReadCounters();
        if (w) {
          tr->set_pgfault(w->pgfault);
          tr->set_pgmajfault(w->pgmajfault);
        }
        tr->set_container(c->ContainerName());
        tr->set_image_id(c->ImageId());
      }
    }
  }
  r->set_ok(reason.empty());
  r->set_reason(reason);
  *r->mutable_applied_mode() = run.applied;
  *r->mutable_conditions() = run.conditions;
  r->set_duration_s((run.end_ns - run.start_ns) * 1e-9);
  FillRunEnergy(run.energy.Result(), run.baseload, run.agent_cpu_s,
                r->duration_s(), r);
  r->set_workload_offset_s(run.energy.WorkloadOffsetS());
  if (run.simulated != nullptr) {
    r->set_duration_s(run.simulated->SimulatedDurationS());
    r->set_energy_j(run.simulated->EnergyJ());
    r->set_energy_provenance(v1::PROVENANCE_SIMULATED);
    r->clear_workload_offset_s();
  }
  r->set_sampler_cpu_s(run.sampler_cpu_s);
  r->set_gpu_counter_energy_j(run.gpu_counter_energy_j);
  // A CUDA run: the GPU's name, compute capability and driver (the
  // workload gave the CUDA and cuDNN versions).
  if (absl::StartsWith(r->provenance().device(), "cuda")) {
    platform_->FillGpuProvenance(r->mutable_provenance()->mutable_gpu());
  }
  if (run.spec.traces_size() > 0) *r->mutable_traces() = run.traces;
  if (auto* vm = run.runtimes.empty() ? nullptr
                 : dynamic_cast<VirtualMachineRun*>(run.runtimes[0].get())) {
    *r->mutable_vm() = vm->VmInfo();
  }
  if (run.busy_start_s.has_value() && run.busy_end_s.has_value()) {
    double workload_cpu_s = 0;
    for (const ExitStatus& e : exits) workload_cpu_s += e.cpu_s;
    const std::optional<double> others =
        OtherCpuCores(*run.busy_start_s, *run.busy_end_s, workload_cpu_s,
                      run.agent_cpu_s, (run.end_ns - run.start_ns) * 1e-9);
    if (others.has_value()) r->set_other_cpu_cores(*others);
  }
  finished.set_batches(run.batcher.batches());
  return finished;
}

}  // namespace powersweep
