#include "agent/run_executor.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/batcher.h"
#include "agent/run_spec_bounds.h"
#include "agent/state_dir.h"
#include "agent/telemetry/baseload.h"
#include "agent/telemetry/energy.h"
#include "agent/telemetry/sampler.h"
#include "common/log.h"

namespace powersweep {

RunRuntimeFactory NativeOnly(RuntimeFactory make) {
  return [make = std::move(make)](const v1::RunSpec& spec, int)
             -> absl::StatusOr<std::unique_ptr<Runtime>> {
    if (spec.runtime() == v1::RUNTIME_CONTAINER) {
      return absl::FailedPreconditionError(
          "runtime: this agent has no container engine (start it with "
          "--container_images and a running Docker engine)");
    }
    return make();
  };
}

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

v1::RunFinished RunExecutor::Execute(const v1::RunSpec& spec, RunSink* sink) {
  {
    absl::MutexLock lock(&mu_);
    active_run_id_ = spec.run_id();
    cancel_requested_ = false;
    cancel_reason_.clear();
  }
  PS_LOG(INFO) << "run " << spec.run_id() << ": starting";
  // Nothing below may see a value outside the agent's own bounds (the
  // controller is not trusted to have checked them).
  absl::Status bounded = CheckRunSpecBounds(spec);
  if (!bounded.ok()) return Fail(spec, std::string(bounded.message()), sink);
  // The logs go to the state dir: recreated 0700 if it was removed,
  // refused if someone else could have prepared it (agent/state_dir.h).
  if (!config_.work_dir.empty()) {
    absl::Status dir = PrepareStateDir(config_.work_dir, "--work_dir");
    if (!dir.ok()) return Fail(spec, std::string(dir.message()), sink);
  }
  // A baseload run measures the idle device: no workload process.
  const bool baseload = spec.workload().task() == v1::TASK_BASELOAD;
  absl::StatusOr<std::vector<std::string>> argv = std::vector<std::string>{};
  // In a container the idle device is measured with an idle container
  // running (`powersweep-workload idle` in the workload image).
  const bool idle_container =
      baseload && spec.runtime() == v1::RUNTIME_CONTAINER;
  if (baseload) {
    absl::Status valid = ValidateBaseload(spec);
    if (!valid.ok()) {
      argv = valid;
    } else if (idle_container && !catalog_->containers) {
      argv = absl::InvalidArgumentError(
          "runtime: container runs are not available on this agent (no "
          "container engine; start it with --container_images and a running "
          "Docker engine)");
    } else if (idle_container) {
      argv = std::vector<std::string>{
          config_.workload_bin, "idle", "--duration-s",
          absl::StrCat(spec.workload().duration_s()), "--records-fd",
          absl::StrCat(kRecordsFd)};
    }
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

  const int tenants = baseload ? 1 : std::max(1, spec.tenants());
  RuntimeSpec rspec;
  rspec.argv = *argv;
  rspec.cpus = cpus;
  rspec.timeout_s = spec.timeout_s();
  rspec.grace_s = config_.cancel_grace_s;
  auto log_path = [&](int tenant) {
    return absl::StrCat(config_.work_dir, "/run-", spec.run_id(), "-attempt-",
                        spec.attempt(),
                        tenants > 1 ? absl::StrCat("-tenant-", tenant) : "",
                        ".log");
  };

  Batcher batcher(spec.run_id(), spec.attempt(), clock_,
                  config_.batch_interval_s,
                  config_.max_records_per_batch,
                  [sink](const v1::DataBatch& b) { sink->OnBatch(b); });
  EnergyAccumulator energy;
  // Both set before the runtimes' threads start. A simulated run's records
  // are already on the run clock (no process start-up to offset).
  int64_t run_start_ns = 0;
  bool records_on_run_clock = false;
  absl::Mutex events_mu;
  std::vector<v1::BuildProvenance> provenance(tenants);
  std::vector<int64_t> minibatches(tenants, 0);
  std::vector<bool> got_finished(tenants, false);
  auto on_event = [&](int tenant, const v1::WorkloadEvent& e) {
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
        energy.AddRecord(
            record, records_on_run_clock
                        ? record.t_start_s() + record.e2e_s()
                        : (clock_->MonotonicNanos() - run_start_ns) * 1e-9);
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
  };

  std::vector<std::unique_ptr<Runtime>> runtimes;
  for (int t = 0; t < tenants; ++t) {
    if (baseload && !idle_container) {
      runtimes.push_back(std::make_unique<BaseloadRuntime>(
          clock_, spec.workload().duration_s()));
      continue;
    }
    absl::StatusOr<std::unique_ptr<Runtime>> made = runtimes_(spec, t);
    if (!made.ok()) {
      platform_->Restore();
      return Fail(spec, std::string(made.status().message()), sink);
    }
    runtimes.push_back(*std::move(made));
  }
  SimulatedRun* simulated = dynamic_cast<SimulatedRun*>(runtimes[0].get());
  if (simulated != nullptr && tenants > 1) {
    platform_->Restore();
    return Fail(spec,
                absl::StrCat("tenants: ", tenants, " requested, but a twin "
                             "simulates one tenant per run"),
                sink);
  }
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
  for (int t = 0; t < tenants; ++t) {
    rspec.stderr_log_path = log_path(t);
    absl::Status started = runtimes[t]->Start(
        rspec, [&on_event, t](const v1::WorkloadEvent& e) { on_event(t, e); });
    if (!started.ok()) {
      for (int u = 0; u < t; ++u) {
        runtimes[u]->Cancel("another tenant could not start");
        runtimes[u]->Wait();
      }
      platform_->Restore();
      return Fail(spec,
                  absl::StrCat("cannot start the workload",
                               tenants > 1 ? absl::StrCat(" (tenant ", t, ")")
                                           : "",
                               ": ", started.message()),
                  sink);
    }
  }
  {
    absl::MutexLock lock(&mu_);
    for (auto& r : runtimes) runtimes_running_.push_back(r.get());
    if (cancel_requested_) {
      for (Runtime* r : runtimes_running_) r->Cancel(cancel_reason_);
    }
  }
  for (auto& r : runtimes) {
    if (r->Pid() <= 0) continue;
    absl::Status attached = platform_->AttachWorkload(r->Pid());
    if (!attached.ok()) r->Cancel(std::string(attached.message()));
  }
  v1::RunStarted rs;
  rs.set_run_id(spec.run_id());
  *rs.mutable_applied_mode() = *applied;
  rs.set_started_unix_ms(absl::ToUnixMillis(clock_->Now()));
  sink->OnRunStarted(rs);

  std::vector<CountedRun*> counted;
  for (auto& r : runtimes) {
    if (auto* c = dynamic_cast<CountedRun*>(r.get())) counted.push_back(c);
  }
  Sampler sampler(platform_, clock_);
  SamplerOptions sopts;
  sopts.hz = simulated != nullptr ? 0 : spec.telemetry_hz();
  sopts.cpus = cpus;
  sopts.pid = runtimes[0]->Pid();
  sopts.run_start_mono_ns = start_ns;
  sopts.proc_root = config_.proc_root;
  if (!counted.empty()) {
    sopts.workload_counters = [&counted](v1::KernelCounters* k) {
      for (CountedRun* c : counted) {
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
  sampler.Start(sopts, [&batcher, &energy](const v1::TelemetrySample& s) {
    energy.AddSample(s);
    batcher.AddSample(s);
  });

  std::vector<ExitStatus> exits;
  for (auto& r : runtimes) exits.push_back(r->Wait());
  // The run ends when its last tenant is reaped, not after the clean-up.
  const int64_t end_ns = clock_->MonotonicNanos();
  const double sampler_cpu_s = sampler.Stop();
  const double agent_cpu_s = ProcessCpuSeconds() - agent_cpu_start_s;
  batcher.Flush();
  platform_->Restore();
  {
    absl::MutexLock lock(&mu_);
    runtimes_running_.clear();
    active_run_id_ = 0;
  }

  v1::RunFinished finished;
  finished.set_attempt(spec.attempt());
  v1::RunResult* r = finished.mutable_result();
  r->set_run_id(spec.run_id());
  r->set_exit_code(exits[0].exit_code);
  r->set_term_signal(exits[0].term_signal);
  std::string reason;
  {
    absl::MutexLock lock(&events_mu);
    *r->mutable_provenance() = provenance[0];
    for (int t = 0; t < tenants; ++t) {
      std::string why = exits[t].FailureReason();
      if (why.empty() && !got_finished[t]) {
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
      if (tenants == 1 && counted.empty()) continue;
      v1::TenantResult* tr = r->add_tenants();
      tr->set_tenant(t);
      tr->set_exit_code(exits[t].exit_code);
      tr->set_term_signal(exits[t].term_signal);
      tr->set_reason(why);
      tr->set_cpu_s(exits[t].cpu_s);
      tr->set_max_rss_bytes(exits[t].max_rss_bytes);
      tr->set_minibatches(minibatches[t]);
      if (auto* c = dynamic_cast<CountedRun*>(runtimes[t].get())) {
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
  *r->mutable_applied_mode() = *applied;
  r->set_duration_s((end_ns - start_ns) * 1e-9);
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
