#include "controller/modeling/observations.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/status_macros.h"
#include "controller/analysis/run_summary.h"
#include "controller/analysis/stored_run.h"
#include "controller/modeling/class_space.h"
#include "controller/modeling/epoch.h"

namespace powersweep::modeling {
namespace {

auto Tie(const WorkloadKey& k) {
  return std::tie(k.device_class, k.model, k.dataset, k.task, k.batch_size,
                  k.loader_workers, k.runtime, k.tenants);
}

constexpr char kTwinFramework[] = "twin-model";

}  // namespace

bool WorkloadKey::operator<(const WorkloadKey& o) const {
  return Tie(*this) < Tie(o);
}
bool WorkloadKey::operator==(const WorkloadKey& o) const {
  return Tie(*this) == Tie(o);
}

WorkloadKey KeyOf(const v1::RunSpec& spec) {
  WorkloadKey k;
  k.device_class = spec.device_class();
  k.model = spec.workload().model();
  k.dataset = spec.workload().dataset();
  k.task = spec.workload().task();
  k.batch_size = spec.workload().batch_size();
  k.loader_workers = spec.workload().loader_workers();
  k.runtime = spec.runtime();
  k.tenants = std::max(1, spec.tenants());
  return k;
}

std::string KeyLabel(const WorkloadKey& k) {
  std::string s = absl::StrCat(k.model, " ", k.dataset, " ", TaskText(k.task),
                               " batch ", k.batch_size, " workers ",
                               k.loader_workers, " on ", k.device_class);
  if (k.runtime != v1::RUNTIME_NATIVE && k.runtime != v1::RUNTIME_UNSPECIFIED) {
    absl::StrAppend(&s, " (", RuntimeText(k.runtime), ")");
  }
  if (k.tenants > 1) absl::StrAppend(&s, ", ", k.tenants, " tenants");
  return s;
}

absl::StatusOr<RunObservation> ObserveRun(
    const v1::RunStatus& run, const v1::RunResult* result,
    const v1::RunSummary& summary, const PowerCatalog& catalog,
    const v1::DeviceCapabilities* device) {
  const v1::RunSpec& spec = run.spec();
  const int tenants = std::max(1, spec.tenants());
  RunObservation o;
  o.run_id = spec.run_id();
  o.device_id = run.device_id();
  o.minibatches = summary.minibatches() / tenants;
  if (o.minibatches <= 0) {
    return absl::InvalidArgumentError("no minibatch records");
  }
  if (!(summary.mean_minibatch_s() > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("mean minibatch time is not positive (",
                     summary.mean_minibatch_s(), " s)"));
  }
  PS_ASSIGN_OR_RETURN(CustomMode mode, RunMode(spec, result, catalog, device));
  o.mode = mode;
  o.mode_applied = result != nullptr && result->has_applied_mode() &&
                   result->applied_mode().has_actual();
  o.cpu_freq_emulated =
      o.mode_applied &&
      result->applied_mode().cpu_freq_provenance() == v1::PROVENANCE_EMULATED;
  o.simulated =
      result != nullptr && result->provenance().framework() == kTwinFramework;

  const v1::EpochDefinition epoch =
      EpochFor(spec.workload().dataset(), spec.workload().task(),
               spec.workload().batch_size(), o.minibatches);
  const double per_epoch = static_cast<double>(epoch.minibatches());
  o.epoch_time_s = summary.mean_minibatch_s() * per_epoch;
  const double phases = summary.energy_stall_j() + summary.energy_compute_j();
  if (phases > 0) {
    o.epoch_energy_j = phases / static_cast<double>(o.minibatches) * per_epoch;
  } else if (summary.mean_power_mw() > 0) {
    // Mean power over the span the energy covers (run_summary.h).
    o.epoch_energy_j = summary.mean_power_mw() / 1000.0 * o.epoch_time_s;
  }
  if (o.epoch_energy_j > 0) o.energy_provenance = summary.energy_provenance();
  return o;
}

absl::StatusOr<SweepObservations> CollectObservations(
    Store* store, int64_t sweep_id, const PowerCatalog& catalog) {
  return CollectObservations(store, std::vector<int64_t>{sweep_id}, catalog);
}

absl::StatusOr<SweepObservations> CollectObservations(
    Store* store, std::vector<int64_t> sweep_ids, const PowerCatalog& catalog) {
  if (sweep_ids.empty()) {
    return absl::InvalidArgumentError("sweep: at least one sweep id is needed");
  }
  std::sort(sweep_ids.begin(), sweep_ids.end());
  sweep_ids.erase(std::unique(sweep_ids.begin(), sweep_ids.end()),
                  sweep_ids.end());
  std::vector<v1::RunStatus> runs;
  for (int64_t sweep_id : sweep_ids) {
    if (sweep_id <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sweep: ", sweep_id, " is not a sweep id (a positive number)"));
    }
    PS_RETURN_IF_ERROR(store->GetSweepSpec(sweep_id).status());
    PS_ASSIGN_OR_RETURN(std::vector<v1::RunStatus> of_sweep,
                        store->ListRuns(sweep_id));
    for (v1::RunStatus& r : of_sweep) runs.push_back(std::move(r));
  }
  PS_ASSIGN_OR_RETURN(std::vector<v1::DeviceStatus> devices,
                      store->ListDevices());
  std::map<std::string, const v1::DeviceCapabilities*> caps;
  for (const v1::DeviceStatus& d : devices) {
    caps[d.identity().device_id()] = &d.capabilities();
  }

  SweepObservations out;
  out.sweep_ids = sweep_ids;
  std::map<WorkloadKey, ObservationGroup> groups;
  std::map<WorkloadKey, std::map<std::string, bool>> group_devices;
  for (const v1::RunStatus& run : runs) {
    const int64_t id = run.spec().run_id();
    if (run.spec().workload().task() == v1::TASK_BASELOAD) {
      out.skipped.push_back(absl::StrCat("run ", id, ": a baseload run"));
      continue;
    }
    if (run.state() != v1::RUN_STATE_DONE) {
      out.skipped.push_back(absl::StrCat("run ", id, ": not done (",
                                         StateText(run.state()), ")"));
      continue;
    }
    PS_ASSIGN_OR_RETURN(StoredRun stored, LoadStoredRun(store, id));
    const v1::RunSummary summary = SummarizeRun(
        stored.minibatches, stored.telemetry, stored.result_or_null());
    auto dev = caps.find(run.device_id());
    const v1::DeviceCapabilities* device =
        dev == caps.end() ? nullptr : dev->second;
    absl::StatusOr<RunObservation> o =
        ObserveRun(run, stored.result_or_null(), summary, catalog, device);
    if (!o.ok()) {
      out.skipped.push_back(
          absl::StrCat("run ", id, ": ", o.status().message()));
      continue;
    }
    o->sweep_id = run.spec().sweep_id();
    const WorkloadKey key = KeyOf(run.spec());
    ObservationGroup& g = groups[key];
    if (g.runs.empty()) {
      g.key = key;
      g.epoch = EpochFor(key.dataset, key.task, key.batch_size, o->minibatches);
    }
    if (device != nullptr && !group_devices[key][run.device_id()]) {
      group_devices[key][run.device_id()] = true;
      g.devices.push_back(*device);
    }
    g.runs.push_back(*std::move(o));
  }
  for (auto& [key, g] : groups) out.groups.push_back(std::move(g));
  return out;
}

}  // namespace powersweep::modeling
