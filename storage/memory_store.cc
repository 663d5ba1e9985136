#include "storage/memory_store.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/proto_json.h"
#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "storage/csv_cell.h"
#include "storage/record_aggregates.h"
#include "storage/schema_text.h"
#include "storage/telemetry_extras.h"

namespace powersweep {
namespace {

constexpr int kRowsPerChunk = 1000;

std::string RandomHexId() {
  std::random_device rd;
  std::string out;
  char buf[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned>(rd() & 0xff));
    out += buf;
  }
  return out;
}

// The time as the store keeps it: whole milliseconds.
absl::Time Millis(absl::Time t) {
  return absl::FromUnixMillis(absl::ToUnixMillis(t));
}

absl::Status NotFoundRun(int64_t run_id) {
  return absl::NotFoundError(absl::StrCat("run ", run_id, " not found"));
}

absl::Status NotFoundSweep(int64_t sweep_id) {
  return absl::NotFoundError(absl::StrCat("sweep ", sweep_id, " not found"));
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

// NaN where SqliteStore has a NOT NULL REAL column (NaN binds as NULL).
absl::Status CheckNumber(double value, const char* what, int64_t run_id) {
  if (std::isnan(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("run ", run_id, ": ", what, " is NaN"));
  }
  return absl::OkStatus();
}

absl::Status CheckBatch(const v1::DataBatch& batch) {
  const int64_t id = batch.run_id();
  for (const v1::MinibatchRecord& r : batch.minibatches()) {
    for (const auto& [v, what] :
         {std::pair<double, const char*>{r.t_start_s(), "minibatch t_start_s"},
          {r.stall_s(), "minibatch stall_s"},
          {r.compute_s(), "minibatch compute_s"},
          {r.e2e_s(), "minibatch e2e_s"},
          {r.loss(), "minibatch loss"}}) {
      if (absl::Status st = CheckNumber(v, what, id); !st.ok()) return st;
    }
  }
  for (const v1::TelemetrySample& s : batch.telemetry()) {
    for (const auto& [v, what] :
         {std::pair<double, const char*>{s.t_s(), "telemetry t_s"},
          {s.cpu_util(), "telemetry cpu_util"},
          {s.proc_cpu_s(), "telemetry proc_cpu_s"},
          {s.gpu_util(), "telemetry gpu_util"},
          {s.power_mw(), "telemetry power_mw"}}) {
      if (absl::Status st = CheckNumber(v, what, id); !st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckResult(const v1::RunResult& r) {
  for (const auto& [v, what] :
       {std::pair<double, const char*>{r.duration_s(), "result duration_s"},
        {r.energy_j(), "result energy_j"},
        {r.sampler_cpu_s(), "result sampler_cpu_s"}}) {
    if (absl::Status st = CheckNumber(v, what, r.run_id()); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// A record's number as a REAL column of SqliteStore gives it back: SQLite
// stores whole numbers as integers, so -0.0 comes back as 0.0.
double AsStored(double v) { return v == 0 ? 0.0 : v; }

// ---- CSV cells as SqliteStore's export shows them (SQLite's text of the
// stored value; "" for NULL).

// A REAL: SQLite's "%!.15g" (always a decimal point); NaN is NULL.
std::string Real(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  if (v == 0) return "0.0";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  std::string s(buf);
  const size_t e = s.find('e');
  const std::string mantissa = s.substr(0, e);
  if (mantissa.find('.') == std::string::npos) {
    s.insert(e == std::string::npos ? s.size() : e, ".0");
  }
  return s;
}

std::string Int(int64_t v) { return absl::StrCat(v); }

std::string OptInt(const std::optional<int64_t>& v) {
  return v.has_value() ? Int(*v) : std::string();
}

void AppendRow(const std::vector<std::string>& cells, std::string* out) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendCsvCell(cells[i], out);
  }
  out->push_back('\n');
}

const std::vector<std::string>& RunsHeader() {
  static const auto* const kHeader =
      new std::vector<std::string>{"run_id",
                                   "sweep_id",
                                   "device_class",
                                   "model",
                                   "dataset",
                                   "task",
                                   "batch_size",
                                   "loader_workers",
                                   "prefetch_depth",
                                   "page_cache",
                                   "preload",
                                   "input_size",
                                   "cpu_cores",
                                   "cpu_freq_khz",
                                   "gpu_freq_hz",
                                   "mem_freq_hz",
                                   "preset",
                                   "runtime",
                                   "repetition",
                                   "attempt",
                                   "state",
                                   "device_id",
                                   "reason",
                                   "created_unix_ms",
                                   "leased_unix_ms",
                                   "started_unix_ms",
                                   "finished_unix_ms",
                                   "ok",
                                   "result_reason",
                                   "exit_code",
                                   "term_signal",
                                   "duration_s",
                                   "energy_j",
                                   "energy_provenance",
                                   "sampler_cpu_s",
                                   "energy_stall_j",
                                   "energy_compute_j",
                                   "baseload_power_mw",
                                   "incremental_energy_j",
                                   "agent_cpu_fraction",
                                   "framework",
                                   "framework_version",
                                   "binary_fingerprint",
                                   "framework_fingerprint",
                                   "threads",
                                   "compute_device",
                                   "kernel",
                                   "host",
                                   "model_params",
                                   "model_forward_macs",
                                   "dataset_format",
                                   "storage_device",
                                   "storage_kind",
                                   "applied_mode_json"};
  return *kHeader;
}

const std::vector<std::string>& MinibatchesHeader() {
  static const auto* const kHeader =
      new std::vector<std::string>{"run_id",
                                   "attempt",
                                   "seq",
                                   "idx",
                                   "epoch",
                                   "t_start_s",
                                   "stall_s",
                                   "compute_s",
                                   "e2e_s",
                                   "samples",
                                   "loss",
                                   "tenant",
                                   "page_cache_resident"};
  return *kHeader;
}

const std::vector<std::string>& TelemetryHeader() {
  static const auto* const kHeader =
      new std::vector<std::string>{"run_id",
                                   "attempt",
                                   "seq",
                                   "t_s",
                                   "cpu_util",
                                   "core_util",
                                   "core_freq_khz",
                                   "mem_used_bytes",
                                   "mem_total_bytes",
                                   "proc_cpu_s",
                                   "proc_rss_bytes",
                                   "gpu_util",
                                   "gpu_freq_hz",
                                   "power_mw",
                                   "power_provenance",
                                   "rails_json",
                                   "mem_freq_hz",
                                   "pgfault",
                                   "pgmajfault",
                                   "nr_dirty",
                                   "nr_writeback",
                                   "pgpgout_kib",
                                   "nr_written",
                                   "tenant_pgfault",
                                   "tenant_pgmajfault"};
  return *kHeader;
}

// The result columns of runs.csv (empty without a result).
void AppendResultCells(const v1::RunResult* r, std::vector<std::string>* row) {
  if (r == nullptr) {
    row->resize(row->size() + 26);
    return;
  }
  const v1::BuildProvenance& p = r->provenance();
  const bool incremental_known =
      !(r->incremental_energy_j() == 0 && r->baseload_power_mw() == 0);
  const bool has_workload = p.has_workload() && p.workload().params() > 0;
  const v1::WorkloadInfo& w = p.workload();
  const std::vector<std::string> cells = {
      r->ok() ? "1" : "0",
      r->reason(),
      Int(r->exit_code()),
      Int(r->term_signal()),
      Real(r->duration_s()),
      Real(r->energy_j()),
      ProvenanceText(r->energy_provenance()),
      Real(r->sampler_cpu_s()),
      Real(r->energy_stall_j()),
      Real(r->energy_compute_j()),
      Real(r->baseload_power_mw()),
      incremental_known ? Real(r->incremental_energy_j()) : "",
      Real(r->agent_cpu_fraction()),
      p.framework(),
      p.framework_version(),
      p.binary_fingerprint(),
      p.framework_fingerprint(),
      Int(p.threads()),
      p.device(),
      p.kernel(),
      p.host(),
      has_workload ? Int(w.params()) : "",
      has_workload ? Int(w.forward_macs()) : "",
      has_workload ? w.dataset_format() : "",
      has_workload ? w.storage().device() : "",
      has_workload ? w.storage().kind() : ""};
  row->insert(row->end(), cells.begin(), cells.end());
}

}  // namespace

MemoryStore::MemoryStore() : database_id_(RandomHexId()) {}

// ---------------------------------------------------------------- helpers

absl::StatusOr<MemoryStore::Run*> MemoryStore::FindRun(int64_t run_id) {
  auto it = runs_.find(run_id);
  if (it == runs_.end()) return NotFoundRun(run_id);
  return &it->second;
}

absl::StatusOr<MemoryStore::Sweep*> MemoryStore::FindSweep(int64_t sweep_id) {
  auto it = sweeps_.find(sweep_id);
  if (it == sweeps_.end()) return NotFoundSweep(sweep_id);
  return &it->second;
}

MemoryStore::Attempt& MemoryStore::Current(Run& run) {
  return run.attempts[run.spec.attempt()];
}

v1::RunStatus MemoryStore::StatusOf(const Run& run) {
  v1::RunStatus status;
  *status.mutable_spec() = run.spec;
  status.set_state(run.state);
  status.set_device_id(run.device_id);
  status.set_reason(run.reason);
  status.set_created_unix_ms(run.created_ms);
  status.set_started_unix_ms(run.started_ms.value_or(0));
  status.set_finished_unix_ms(run.finished_ms.value_or(0));
  return status;
}

std::vector<v1::MinibatchRecord> MemoryStore::SortedMinibatches(
    const Attempt& a) {
  std::vector<v1::MinibatchRecord> out;
  out.reserve(a.minibatches.size());
  for (const Minibatch& m : a.minibatches) out.push_back(m.record);
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return std::make_pair(x.tenant(), x.index()) <
           std::make_pair(y.tenant(), y.index());
  });
  return out;
}

std::vector<v1::TelemetrySample> MemoryStore::SortedTelemetry(
    const Attempt& a) {
  std::vector<v1::TelemetrySample> out;
  out.reserve(a.telemetry.size());
  for (const Sample& s : a.telemetry) out.push_back(s.sample);
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return x.t_s() < y.t_s();
  });
  return out;
}

v1::SweepStatus MemoryStore::StatusOf(int64_t sweep_id, const Sweep& sweep) {
  v1::SweepStatus status;
  status.set_sweep_id(sweep_id);
  status.set_name(sweep.spec.name());
  status.set_created_unix_ms(sweep.created_ms);
  double done_s = 0;
  int done_timed = 0;
  for (int64_t id : sweep.run_ids) {
    const Run& run = runs_.at(id);
    status.set_total(status.total() + 1);
    switch (run.state) {
      case v1::RUN_STATE_PENDING:
        status.set_pending(status.pending() + 1);
        break;
      case v1::RUN_STATE_LEASED:
      case v1::RUN_STATE_RUNNING:
        status.set_active(status.active() + 1);
        break;
      case v1::RUN_STATE_DONE:
        status.set_done(status.done() + 1);
        if (run.started_ms && run.finished_ms) {
          done_s +=
              static_cast<double>(*run.finished_ms - *run.started_ms) / 1000.0;
          ++done_timed;
        }
        break;
      case v1::RUN_STATE_FAILED:
        status.set_failed(status.failed() + 1);
        break;
      case v1::RUN_STATE_CANCELLED:
        status.set_cancelled(status.cancelled() + 1);
        break;
      default:
        break;
    }
  }
  status.set_finished(status.pending() == 0 && status.active() == 0);
  if (done_timed > 0) status.set_mean_done_run_s(done_s / done_timed);
  return status;
}

// ---------------------------------------------------------------- devices

absl::Status MemoryStore::UpsertDevice(const v1::DeviceIdentity& identity,
                                       const v1::DeviceCapabilities& caps,
                                       absl::Time now) {
  if (identity.device_id().empty()) {
    return absl::InvalidArgumentError("device identity has an empty device_id");
  }
  absl::MutexLock lock(&mu_);
  Device& d = devices_[identity.device_id()];
  d.identity = identity;
  d.caps = caps;
  d.last_seen_ms = absl::ToUnixMillis(now);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::DeviceStatus>> MemoryStore::ListDevices() {
  absl::MutexLock lock(&mu_);
  std::vector<v1::DeviceStatus> out;
  for (const auto& [id, d] : devices_) {
    v1::DeviceStatus& status = out.emplace_back();
    *status.mutable_identity() = d.identity;
    *status.mutable_capabilities() = d.caps;
    status.set_last_seen_unix_ms(d.last_seen_ms);
  }
  return out;
}

// ----------------------------------------------------------------- sweeps

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

// ------------------------------------------------------------------- runs

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
    if (!baseload && (models.count(s.workload().model()) == 0 ||
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
      // A retry (from FAILED) takes the next attempt; the failed attempt's
      // data stays under its own number.
      if (from == v1::RUN_STATE_FAILED) {
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

// ----------------------------------------------------------------- ingest

absl::StatusOr<IngestOutcome> MemoryStore::IngestBatch(
    const v1::DataBatch& batch) {
  if (batch.seq() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch seq must be >= 1, got ", batch.seq(), " for run ",
                     batch.run_id()));
  }
  if (batch.attempt() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch attempt must be >= 0, got ", batch.attempt(),
                     " for run ", batch.run_id()));
  }
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* found, FindRun(batch.run_id()));
  Run& run = *found;
  const int32_t current = run.spec.attempt();
  const int32_t attempt = batch.attempt() == 0 ? current : batch.attempt();
  if (attempt != current) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", batch.run_id(), " is on attempt ", current,
                     "; batch of attempt ", attempt, " not stored"));
  }
  Attempt& a = Current(run);
  if (a.seqs.count(batch.seq()) > 0) return IngestOutcome::kDuplicate;
  if (absl::Status st = CheckBatch(batch); !st.ok()) return st;
  a.seqs.insert(batch.seq());
  for (const v1::MinibatchRecord& r : batch.minibatches()) {
    Minibatch& m = a.minibatches.emplace_back();
    m.seq = batch.seq();
    m.record = r;
    v1::MinibatchRecord& c = m.record;
    c.set_t_start_s(AsStored(r.t_start_s()));
    c.set_stall_s(AsStored(r.stall_s()));
    c.set_compute_s(AsStored(r.compute_s()));
    c.set_e2e_s(AsStored(r.e2e_s()));
    c.set_loss(AsStored(r.loss()));
    if (r.has_page_cache_resident()) {
      // A NaN is stored as no value (SQL NULL).
      if (std::isnan(r.page_cache_resident())) {
        c.clear_page_cache_resident();
      } else {
        c.set_page_cache_resident(AsStored(r.page_cache_resident()));
      }
    }
  }
  for (const v1::TelemetrySample& s : batch.telemetry()) {
    Sample& stored = a.telemetry.emplace_back();
    stored.seq = batch.seq();
    stored.sample = s;
    v1::TelemetrySample& c = stored.sample;
    c.set_t_s(AsStored(s.t_s()));
    c.set_cpu_util(AsStored(s.cpu_util()));
    c.set_proc_cpu_s(AsStored(s.proc_cpu_s()));
    c.set_gpu_util(AsStored(s.gpu_util()));
    c.set_power_mw(AsStored(s.power_mw()));
  }
  return IngestOutcome::kStored;
}

absl::StatusOr<int64_t> MemoryStore::CountBatches(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  return static_cast<int64_t>(Current(*run).seqs.size());
}

absl::StatusOr<std::vector<int64_t>> MemoryStore::ListBatchSeqs(
    int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  const std::set<int64_t>& seqs = Current(*run).seqs;
  return std::vector<int64_t>(seqs.begin(), seqs.end());
}

absl::StatusOr<std::string> MemoryStore::GetDatabaseId() {
  return database_id_;
}

absl::Status MemoryStore::FinishRun(const v1::RunResult& result,
                                    v1::RunState final_state,
                                    const std::string& reason, absl::Time now) {
  if (final_state != v1::RUN_STATE_DONE &&
      final_state != v1::RUN_STATE_FAILED) {
    return absl::InvalidArgumentError(
        absl::StrCat("final state of run ", result.run_id(),
                     " must be done or failed, got ", StateText(final_state)));
  }
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* found, FindRun(result.run_id()));
  Run& run = *found;
  Attempt& a = Current(run);
  if (a.result.has_value()) return absl::OkStatus();  // a resend
  // Validate everything before changing anything.
  if (absl::Status st = CheckTransition(run, final_state, ""); !st.ok())
    return st;
  if (absl::Status st = CheckResult(result); !st.ok()) return st;
  PS_RETURN_IF_ERROR(ApplyTransition(run, final_state, "", reason, now));
  a.result = result;
  if (result.has_applied_mode()) run.applied_mode = result.applied_mode();
  return absl::OkStatus();
}

absl::StatusOr<v1::RunResult> MemoryStore::GetRunResult(int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  const Attempt& a = Current(*run);
  if (!a.result.has_value()) {
    return absl::NotFoundError(absl::StrCat("run ", run_id,
                                            " has no result for attempt ",
                                            run->spec.attempt(), " yet"));
  }
  return *a.result;
}

// ---------------------------------------------------------------- records

absl::StatusOr<std::vector<v1::MinibatchRecord>> MemoryStore::GetMinibatches(
    int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  return SortedMinibatches(Current(*run));
}

absl::StatusOr<std::vector<v1::TelemetrySample>> MemoryStore::GetTelemetry(
    int64_t run_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Run* run, FindRun(run_id));
  return SortedTelemetry(Current(*run));
}

// ----------------------------------------------------------------- export

std::vector<std::string> MemoryStore::CsvChunks(const Sweep& sweep,
                                                const std::string& table) {
  std::vector<std::string> chunks;
  std::string chunk;
  int rows_in_chunk = 0;
  auto add = [&](const std::vector<std::string>& cells) {
    AppendRow(cells, &chunk);
    if (++rows_in_chunk == kRowsPerChunk) {
      chunks.push_back(std::move(chunk));
      chunk.clear();
      rows_in_chunk = 0;
    }
  };
  if (table == "runs") {
    AppendRow(RunsHeader(), &chunk);
    for (int64_t id : sweep.run_ids) {
      Run& run = runs_.at(id);
      const v1::RunSpec& s = run.spec;
      const v1::WorkloadSpec& w = s.workload();
      const v1::PowerMode& m = s.power_mode();
      std::vector<std::string> row = {
          Int(id),
          Int(s.sweep_id()),
          s.device_class(),
          w.model(),
          w.dataset(),
          TaskText(w.task()),
          Int(w.batch_size()),
          Int(w.loader_workers()),
          Int(w.prefetch_depth()),
          w.page_cache() == v1::PAGE_CACHE_DROP ? "drop" : "keep",
          w.preload() ? "1" : "0",
          Int(w.input_size()),
          Int(m.cpu_cores()),
          Int(m.cpu_freq_khz()),
          Int(m.gpu_freq_hz()),
          Int(m.mem_freq_hz()),
          m.preset(),
          RuntimeText(s.runtime()),
          Int(s.repetition()),
          Int(s.attempt()),
          StateText(run.state),
          run.device_id,
          run.reason,
          Int(run.created_ms),
          OptInt(run.leased_ms),
          OptInt(run.started_ms),
          OptInt(run.finished_ms)};
      const Attempt& a = Current(run);
      AppendResultCells(a.result ? &*a.result : nullptr, &row);
      row.push_back(run.applied_mode ? ToJsonLine(*run.applied_mode) : "");
      add(row);
    }
  } else if (table == "minibatches") {
    AppendRow(MinibatchesHeader(), &chunk);
    for (int64_t id : sweep.run_ids) {
      for (const auto& [attempt, a] : runs_.at(id).attempts) {
        std::vector<const Minibatch*> rows;
        for (const Minibatch& mb : a.minibatches) rows.push_back(&mb);
        std::stable_sort(rows.begin(), rows.end(),
                         [](const auto* x, const auto* y) {
                           return x->record.index() < y->record.index();
                         });
        for (const Minibatch* mb : rows) {
          const v1::MinibatchRecord& r = mb->record;
          add({Int(id), Int(attempt), Int(mb->seq), Int(r.index()),
               Int(r.epoch()), Real(r.t_start_s()), Real(r.stall_s()),
               Real(r.compute_s()), Real(r.e2e_s()), Int(r.samples()),
               Real(r.loss()), Int(r.tenant()),
               r.has_page_cache_resident() ? Real(r.page_cache_resident())
                                           : ""});
        }
      }
    }
  } else {  // telemetry
    AppendRow(TelemetryHeader(), &chunk);
    std::vector<double> utils;
    std::vector<int64_t> freqs;
    std::string extras;
    for (int64_t id : sweep.run_ids) {
      for (const auto& [attempt, a] : runs_.at(id).attempts) {
        std::vector<const Sample*> rows;
        for (const Sample& s : a.telemetry) rows.push_back(&s);
        std::stable_sort(rows.begin(), rows.end(),
                         [](const auto* x, const auto* y) {
                           return x->sample.t_s() < y->sample.t_s();
                         });
        for (const Sample* row : rows) {
          const v1::TelemetrySample& s = row->sample;
          utils.clear();
          freqs.clear();
          for (const v1::CoreSample& core : s.cores()) {
            utils.push_back(core.util());
            freqs.push_back(core.freq_khz());
          }
          EncodeTelemetryExtras(s, &extras);
          std::string extras_json;
          if (!extras.empty())
            extras_json = TelemetryExtrasJson(extras).value_or("");
          std::vector<std::string> cells = {
              Int(id),
              Int(attempt),
              Int(row->seq),
              Real(s.t_s()),
              Real(s.cpu_util()),
              JoinDoubles(utils),
              JoinInts(freqs),
              Int(s.mem_used_bytes()),
              Int(s.mem_total_bytes()),
              Real(s.proc_cpu_s()),
              Int(s.proc_rss_bytes()),
              Real(s.gpu_util()),
              Int(s.gpu_freq_hz()),
              Real(s.power_mw()),
              ProvenanceText(s.power_provenance()),
              extras_json,
              s.mem_freq_hz() > 0 ? Int(s.mem_freq_hz()) : ""};
          const v1::KernelCounters& k = s.counters();
          for (int64_t v : {k.pgfault(), k.pgmajfault(), k.nr_dirty(),
                            k.nr_writeback(), k.pgpgout(), k.nr_written(),
                            k.tenant_pgfault(), k.tenant_pgmajfault()}) {
            cells.push_back(s.has_counters() ? Int(v) : "");
          }
          add(cells);
        }
      }
    }
  }
  if (!chunk.empty()) chunks.push_back(std::move(chunk));
  return chunks;
}

absl::Status MemoryStore::ExportCsv(
    int64_t sweep_id, const std::string& table,
    const std::function<void(const std::string&)>& sink) {
  if (table != "runs" && table != "minibatches" && table != "telemetry") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown export table '", table,
                     "' (expected runs, minibatches or telemetry)"));
  }
  std::vector<std::string> chunks;
  {
    absl::MutexLock lock(&mu_);
    PS_ASSIGN_OR_RETURN(Sweep* sweep, FindSweep(sweep_id));
    chunks = CsvChunks(*sweep, table);
  }
  // One snapshot, written without the lock.
  for (const std::string& chunk : chunks) sink(chunk);
  return absl::OkStatus();
}

// ----------------------------------------------------------- sweep tables

absl::StatusOr<std::vector<RunAggregates>> MemoryStore::GetSweepAggregates(
    int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Sweep* sweep, FindSweep(sweep_id));
  std::vector<RunAggregates> out;
  for (int64_t id : sweep->run_ids) {
    Run& run = runs_.at(id);
    const Attempt& a = Current(run);
    RecordAggregator agg;
    for (const v1::MinibatchRecord& r : SortedMinibatches(a)) {
      agg.AddMinibatch(r.e2e_s(), r.stall_s(), r.compute_s(), r.samples(),
                       r.loss());
    }
    for (const v1::TelemetrySample& t : SortedTelemetry(a)) {
      agg.AddSample(t.t_s(), t.cpu_util(), t.proc_rss_bytes());
      if (t.power_mw() > 0)
        agg.AddPowerReading(t.t_s(), t.power_mw(), t.power_provenance());
    }
    out.push_back({id, run.spec.attempt(), agg.Finish()});
  }
  return out;
}

absl::StatusOr<std::vector<v1::RunResult>> MemoryStore::ListRunResults(
    int64_t sweep_id) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Sweep* sweep, FindSweep(sweep_id));
  std::vector<v1::RunResult> out;
  for (int64_t id : sweep->run_ids) {
    const Attempt& a = Current(runs_.at(id));
    if (a.result.has_value()) out.push_back(*a.result);
  }
  return out;
}

absl::StatusOr<std::vector<RunWithResult>> MemoryStore::FindBaseloads(
    const std::string& device_id, const v1::PowerMode* mode) {
  absl::MutexLock lock(&mu_);
  std::vector<RunWithResult> out;
  for (auto& [id, run] : runs_) {
    const Attempt& a = Current(run);
    if (run.spec.workload().task() != v1::TASK_BASELOAD ||
        run.state != v1::RUN_STATE_DONE || !a.result.has_value() ||
        (!device_id.empty() && run.device_id != device_id) ||
        (mode != nullptr && !google::protobuf::util::MessageDifferencer::Equals(
                                run.spec.power_mode(), *mode))) {
      continue;
    }
    out.push_back({StatusOf(run), *a.result});
  }
  return out;
}

// ----------------------------------------------------------------- models

absl::StatusOr<int64_t> MemoryStore::SaveModel(const v1::WorkloadModel& model) {
  if (model.device_class().empty() || model.model().empty()) {
    return absl::InvalidArgumentError(
        "SaveModel: device_class and model must be set");
  }
  absl::MutexLock lock(&mu_);
  if (sweeps_.count(model.sweep_id()) == 0) {
    return absl::NotFoundError(
        absl::StrCat("SaveModel: sweep ", model.sweep_id(), " not found"));
  }
  const int64_t id = next_model_id_++;
  v1::WorkloadModel& stored = models_[id];
  stored = model;
  stored.set_model_id(id);
  return id;
}

absl::StatusOr<std::vector<v1::WorkloadModel>> MemoryStore::ListModels() {
  absl::MutexLock lock(&mu_);
  std::vector<v1::WorkloadModel> out;
  for (const auto& [id, m] : models_) out.push_back(m);
  return out;
}

absl::StatusOr<v1::WorkloadModel> MemoryStore::GetModel(int64_t model_id) {
  absl::MutexLock lock(&mu_);
  auto it = models_.find(model_id);
  if (it == models_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "model ", model_id, " not found (`powersweep models` lists them)"));
  }
  return it->second;
}

}  // namespace powersweep
