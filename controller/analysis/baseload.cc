#include "controller/analysis/baseload.h"

#include <set>

#include "absl/status/status.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

v1::Runtime Runtime(const v1::RunSpec& spec) {
  return spec.runtime() == v1::RUNTIME_CONTAINER ? v1::RUNTIME_CONTAINER
                                                 : v1::RUNTIME_NATIVE;
}

// Whether two power modes are the same (all fields equal).
bool SameMode(const v1::PowerMode& a, const v1::PowerMode& b);

// The latest of `candidates` (of `*runtime` only, when not null) that
// finished at or before the run started; null if none.
const BaseloadRun* PickAmong(const v1::RunStatus& run,
                             const std::vector<const BaseloadRun*>& candidates,
                             const v1::Runtime* runtime);

}  // namespace

std::optional<BaseloadRun> AsBaseload(const v1::RunStatus& run,
                                      const v1::RunResult& result) {
  if (run.state() != v1::RUN_STATE_DONE ||
      run.spec().workload().task() != v1::TASK_BASELOAD) {
    return std::nullopt;
  }
  double mw = result.baseload_power_mw();
  const double span =
      result.energy_span_s() > 0 ? result.energy_span_s() : result.duration_s();
  if (!(mw > 0) && span > 0) mw = result.energy_j() * 1000.0 / span;
  if (!(mw > 0)) return std::nullopt;
  BaseloadRun b;
  b.run_id = run.spec().run_id();
  b.device_id = run.device_id();
  b.power_mode = run.spec().power_mode();
  b.runtime = Runtime(run.spec());
  b.finished_unix_ms = run.finished_unix_ms();
  b.power_mw = mw;
  return b;
}

std::optional<BaseloadRun> PickBaseload(
    const v1::RunStatus& run, const std::vector<BaseloadRun>& baseloads) {
  // The candidates: other runs of the device in the same mode.
  std::vector<const BaseloadRun*> candidates;
  for (const BaseloadRun& b : baseloads) {
    if (b.run_id != run.spec().run_id() && b.device_id == run.device_id() &&
        SameMode(b.power_mode, run.spec().power_mode())) {
      candidates.push_back(&b);
    }
  }
  // A baseload of the run's own runtime (a container run against the idle
  // device with an idle container) when there is one, else of any runtime.
  const v1::Runtime runtime = Runtime(run.spec());
  const BaseloadRun* pick = PickAmong(run, candidates, &runtime);
  if (pick == nullptr) pick = PickAmong(run, candidates, nullptr);
  if (pick == nullptr) return std::nullopt;
  return *pick;
}

namespace {

bool SameMode(const v1::PowerMode& a, const v1::PowerMode& b) {
  // Field by field (every field of PowerMode): this runs for every
  // candidate of every run of a sweep's tables, where a reflective
  // comparison dominated.
  return a.cpu_cores() == b.cpu_cores() && a.cpu_freq_khz() == b.cpu_freq_khz() &&
         a.gpu_freq_hz() == b.gpu_freq_hz() && a.mem_freq_hz() == b.mem_freq_hz() &&
         a.preset() == b.preset();
}

const BaseloadRun* PickAmong(const v1::RunStatus& run,
                             const std::vector<const BaseloadRun*>& candidates,
                             const v1::Runtime* runtime) {
  const BaseloadRun* before = nullptr;
  const int64_t started = run.started_unix_ms();
  if (started <= 0) return nullptr;
  auto later = [](const BaseloadRun* a, const BaseloadRun& b) {
    return a == nullptr || b.finished_unix_ms > a->finished_unix_ms ||
           (b.finished_unix_ms == a->finished_unix_ms && b.run_id > a->run_id);
  };
  for (const BaseloadRun* b : candidates) {
    if (runtime != nullptr && b->runtime != *runtime) continue;
    if (b->finished_unix_ms <= started && later(before, *b)) before = b;
  }
  return before;
}

}  // namespace

void ApplyBaseload(const BaseloadRun& baseload, v1::RunResult* result) {
  const double span = result->energy_span_s() > 0 ? result->energy_span_s()
                                                  : result->duration_s();
  if (!(result->energy_j() > 0) || !(span > 0)) return;
  result->set_baseload_power_mw(baseload.power_mw);
  result->set_baseload_run_id(baseload.run_id);
  result->set_incremental_energy_j(result->energy_j() -
                                   baseload.power_mw / 1000.0 * span);
}

namespace {

absl::Status AppendBaseloads(Store* store, const std::string& device_id,
                             std::vector<BaseloadRun>* out) {
  PS_ASSIGN_OR_RETURN(std::vector<RunWithResult> found,
                      store->FindBaseloads(device_id, nullptr));
  for (const RunWithResult& r : found) {
    std::optional<BaseloadRun> b = AsBaseload(r.run, r.result);
    if (b.has_value()) out->push_back(*std::move(b));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<BaseloadRun>> LoadBaseloads(Store* store) {
  return LoadBaseloads(store, std::string());
}

absl::StatusOr<std::vector<BaseloadRun>> LoadBaseloads(
    Store* store, const std::string& device_id) {
  std::vector<BaseloadRun> out;
  PS_RETURN_IF_ERROR(AppendBaseloads(store, device_id, &out));
  return out;
}

absl::StatusOr<std::vector<BaseloadRun>> LoadBaseloadsFor(
    Store* store, const std::vector<v1::RunStatus>& runs) {
  std::set<std::string> devices;
  for (const v1::RunStatus& run : runs) {
    if (!run.device_id().empty()) devices.insert(run.device_id());
  }
  std::vector<BaseloadRun> out;
  for (const std::string& device : devices) {
    PS_RETURN_IF_ERROR(AppendBaseloads(store, device, &out));
  }
  return out;
}

}  // namespace powersweep
