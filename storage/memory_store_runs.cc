// MemoryStore: sweeps, runs and their state transitions.
#include "storage/memory_store.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/status_macros.h"
#include "storage/schema_text.h"

namespace powersweep {
namespace {

// The time as the store keeps it: whole milliseconds.
absl::Time Millis(absl::Time t) {
  return absl::FromUnixMillis(absl::ToUnixMillis(t));
}

// What the runs table's CHECK constraints refuse in SqliteStore.
absl::Status CheckRunSpec(size_t index, const v1::RunSpec& run) {
  const v1::WorkloadSpec& w = run.workload();
  const v1::PowerMode& m = run.power_mode();
  const std::pair<const char*, int64_t> fields[] = {
      {"batch_size", w.batch_size()},   {"loader_workers", w.loader_workers()},
      {"cpu_cores", m.cpu_cores()},     {"cpu_freq_khz", m.cpu_freq_khz()},
      {"gpu_freq_hz", m.gpu_freq_hz()}, {"mem_freq_hz", m.mem_freq_hz()},
      {"repetition", run.repetition()}};
  for (const auto& [name, value] : fields) {
    if (value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("run ", index, " of the sweep: ", name,
                       " must be >= 0, got ", value));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> MemoryStore::CreateSweep(
    const v1::SweepSpec& spec, const std::vector<v1::RunSpec>& runs,
    absl::Time now) {
  for (size_t i = 0; i < runs.size(); ++i) {
    if (absl::Status st = CheckRunSpec(i, runs[i]); !st.ok()) return st;
  }
  const absl::Time at = Millis(now);
  absl::MutexLock lock(&mu_);
  const int64_t sweep_id = next_sweep_id_++;
  Sweep& sweep = sweeps_[sweep_id];
  sweep.spec = spec;
  sweep.created_ms = absl::ToUnixMillis(now);
  for (const v1::RunSpec& input : runs) {
    const int64_t run_id = next_run_id_++;
    Run& run = runs_[run_id];
    run.spec = input;
    run.spec.set_run_id(run_id);
    run.spec.set_sweep_id(sweep_id);
    run.spec.set_attempt(1);
    run.state = v1::RUN_STATE_PENDING;
    run.created_ms = absl::ToUnixMillis(now);
    run.history.push_back(RunStateChange{run_id, v1::RUN_STATE_UNSPECIFIED,
                                         v1::RUN_STATE_PENDING, "", "", at});
    sweep.run_ids.push_back(run_id);
  }
  return sweep_id;
}

absl::StatusOr<v1::SweepSpec> MemoryStore::GetSweepSpec(int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Sweep* sweep, FindSweep(sweep_id));
  return sweep->spec;
}

absl::StatusOr<v1::SweepStatus> MemoryStore::GetSweepStatus(int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Sweep* sweep, FindSweep(sweep_id));
  return StatusOf(sweep_id, *sweep);
}

absl::StatusOr<std::vector<v1::SweepStatus>> MemoryStore::ListSweeps() {
  absl::MutexLock lock(&mu_);
  std::vector<v1::SweepStatus> out;
  for (const auto& [id, sweep] : sweeps_) out.push_back(StatusOf(id, sweep));
  return out;
}

absl::StatusOr<std::vector<v1::RunStatus>> MemoryStore::ListRuns(
    int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Sweep* sweep, FindSweep(sweep_id));
  std::vector<v1::RunStatus> out;
  for (int64_t id : sweep->run_ids) out.push_back(StatusOf(runs_.at(id)));
  return out;
}

absl::StatusOr<v1::RunStatus> MemoryStore::GetRun(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  return StatusOf(*run);
}

absl::StatusOr<std::vector<v1::RunSpec>> MemoryStore::ListPendingRuns(
    int limit) {
  if (limit < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("limit must be >= 0, got ", limit));
  }
  absl::MutexLock lock(&mu_);
  std::vector<v1::RunSpec> out;
  for (const auto& [id, run] : runs_) {
    if (static_cast<int>(out.size()) >= limit) break;
    if (run.state == v1::RUN_STATE_PENDING) out.push_back(run.spec);
  }
  return out;
}

absl::StatusOr<std::vector<v1::RunSpec>> MemoryStore::ListPendingRunsFor(
    const PendingFilter& f, int limit) {
  if (limit < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("limit must be >= 0, got ", limit));
  }
  std::vector<v1::RunSpec> out;
  if (f.runtimes.empty() || limit == 0) return out;
  // Compared as stored (the text forms), as SqliteStore's query does.
  std::set<std::string> runtimes;
  for (v1::Runtime r : f.runtimes) runtimes.insert(RuntimeText(r));
  const std::set<std::string> models(f.models.begin(), f.models.end());
  const std::set<std::string> datasets(f.datasets.begin(), f.datasets.end());
  const std::set<std::string> kernels(f.kernels.begin(), f.kernels.end());
  const std::set<int64_t> exclude(f.exclude.begin(), f.exclude.end());
  const std::set<std::string> device_ids(f.device_ids.begin(),
                                         f.device_ids.end());
  absl::MutexLock lock(&mu_);
  for (const auto& [id, run] : runs_) {
    if (static_cast<int>(out.size()) >= limit) break;
    const v1::RunSpec& s = run.spec;
    if (run.state != v1::RUN_STATE_PENDING ||
        s.device_class() != f.device_class ||
        s.power_mode().cpu_cores() > f.max_cpu_cores ||
        runtimes.count(RuntimeText(s.runtime())) == 0 ||
        exclude.count(id) > 0) {
      continue;
    }
    if (!s.devices().empty() &&
        std::none_of(s.devices().begin(), s.devices().end(),
                     [&](const std::string& d) {
                       return device_ids.count(d) > 0;
                     })) {
      continue;
    }
    const bool baseload = TaskText(s.workload().task()) == "baseload";
    const bool kernel = kernels.count(s.workload().model()) > 0;
    if (!baseload && !kernel &&
        (models.count(s.workload().model()) == 0 ||
         datasets.count(s.workload().dataset()) == 0)) {
      continue;
    }
    out.push_back(s);
  }
  return out;
}

absl::StatusOr<std::vector<v1::RunStatus>> MemoryStore::ListActiveRuns(
    const std::string& device_id) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::RunStatus> out;
  for (const auto& [id, run] : runs_) {
    if ((run.state == v1::RUN_STATE_LEASED ||
         run.state == v1::RUN_STATE_RUNNING) &&
        (device_id.empty() || run.device_id == device_id)) {
      out.push_back(StatusOf(run));
    }
  }
  return out;
}

absl::Status MemoryStore::CheckTransition(const Run& run, v1::RunState to,
                                          const std::string& device_id) {
  if (!TransitionAllowed(run.state, to)) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", run.spec.run_id(), " is ", StateText(run.state),
                     " and cannot move to ", StateText(to)));
  }
  if (to == v1::RUN_STATE_LEASED && device_id.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("leasing run ", run.spec.run_id(), " needs a device_id"));
  }
  return absl::OkStatus();
}

absl::Status MemoryStore::ApplyTransition(Run& run, v1::RunState to,
                                          const std::string& device_id,
                                          const std::string& reason,
                                          absl::Time now) {
  const int64_t run_id = run.spec.run_id();
  const v1::RunState from = run.state;
  if (absl::Status st = CheckTransition(run, to, device_id); !st.ok())
    return st;
  const int64_t now_ms = absl::ToUnixMillis(now);
  const std::string history_device =
      device_id.empty() ? run.device_id : device_id;
  switch (to) {
    case v1::RUN_STATE_LEASED:
      run.device_id = device_id;
      run.leased_ms = now_ms;
      break;
    case v1::RUN_STATE_RUNNING:
      run.started_ms = now_ms;
      if (!device_id.empty()) run.device_id = device_id;
      break;
    case v1::RUN_STATE_PENDING:
      // A retry or rerun (from FAILED or CANCELLED) takes the next attempt;
      // the ended attempt's data stays under its own number.
      if (from == v1::RUN_STATE_FAILED || from == v1::RUN_STATE_CANCELLED) {
        run.spec.set_attempt(run.spec.attempt() + 1);
        run.reason.clear();
        run.applied_mode.reset();
      }
      run.device_id.clear();
      run.leased_ms.reset();
      run.started_ms.reset();
      run.finished_ms.reset();
      break;
    default:  // DONE, FAILED, CANCELLED
      run.finished_ms = now_ms;
      run.reason = reason;
      break;
  }
  run.state = to;
  run.history.push_back(
      RunStateChange{run_id, from, to, history_device, reason, Millis(now)});
  return absl::OkStatus();
}

absl::Status MemoryStore::TransitionRun(int64_t run_id, v1::RunState to,
                                        const std::string& device_id,
                                        const std::string& reason,
                                        absl::Time now) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  return ApplyTransition(*run, to, device_id, reason, now);
}

absl::Status MemoryStore::SetRunTimeout(int64_t run_id, double timeout_s) {
  if (!(timeout_s > 0) || !std::isfinite(timeout_s)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "timeout_s: must be a positive number of seconds, got ", timeout_s));
  }
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  if (run->state != v1::RUN_STATE_PENDING) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", run_id, " is ", StateText(run->state),
                     ", not pending: its timeout is not changed"));
  }
  run->spec.set_timeout_s(timeout_s);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RunStateChange>> MemoryStore::GetRunHistory(
    int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  return run->history;
}

absl::Status MemoryStore::SaveAppliedMode(int64_t run_id,
                                          const v1::AppliedPowerMode& mode) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  if (IsFinal(run->state)) {
    // Its row is final: the mode it ran in came with its result.
    return absl::FailedPreconditionError(
        absl::StrCat("run ", run_id, " has ended (", StateText(run->state),
                     "): its applied mode is not changed"));
  }
  run->applied_mode = mode;
  return absl::OkStatus();
}

}  // namespace powersweep
