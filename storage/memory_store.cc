// MemoryStore: construction, the lookups the other memory_store_*.cc files
// share, devices and the database id.
#include "storage/memory_store.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

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

absl::Status NotFoundRun(int64_t run_id) {
  return absl::NotFoundError(absl::StrCat("run ", run_id, " not found"));
}

absl::Status NotFoundSweep(int64_t sweep_id) {
  return absl::NotFoundError(absl::StrCat("sweep ", sweep_id, " not found"));
}

}  // namespace

MemoryStore::MemoryStore() : database_id_(RandomHexId()) {}

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
  d.disconnected_ms = 0;
  d.forgotten = false;
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
    status.set_disconnected_unix_ms(d.disconnected_ms);
    status.set_drained(d.drained);
    status.set_forgotten(d.forgotten);
    if (d.health) *status.mutable_health() = *d.health;
  }
  return out;
}

absl::StatusOr<std::string> MemoryStore::GetDatabaseId() {
  return database_id_;
}

}  // namespace powersweep
