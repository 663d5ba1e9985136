#include "controller/modeling/workload_fit.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"
#include "common/status_macros.h"
#include "common/workload_label.h"
#include "controller/modeling/class_space.h"
#include "controller/modeling/cross_validation.h"
#include "controller/modeling/fit.h"
#include "controller/modeling/model_proto.h"
#include "controller/modeling/transfer.h"

namespace powersweep::modeling {
namespace {

std::string EnergyWords(v1::Provenance p) {
  switch (p) {
    case v1::PROVENANCE_MEASURED:
      return "energy measured (power sensors)";
    case v1::PROVENANCE_EMULATED:
      return "energy emulated";
    case v1::PROVENANCE_MODELED:
      return "energy modeled, not measured (the host power model from CPU "
             "utilization and frequency)";
    case v1::PROVENANCE_SIMULATED:
      return "energy simulated (twin power model, docs/twin-model.md)";
    default:
      return "energy of unknown provenance";
  }
}

// Fills measured modes, run ids, devices, provenance and notes of `out`.
void Describe(const ObservationGroup& g, v1::WorkloadModel* out) {
  std::map<std::string, bool> devices;
  std::set<int> energy_prov;
  int simulated = 0, with_energy = 0, requested_modes = 0, emulated = 0;
  for (const RunObservation& r : g.runs) {
    out->add_run_ids(r.run_id);
    if (!r.device_id.empty() && !devices[r.device_id]) {
      devices[r.device_id] = true;
      out->add_device_ids(r.device_id);
    }
    simulated += r.simulated;
    emulated += r.cpu_freq_emulated;
    requested_modes += !r.mode_applied;
    if (r.epoch_energy_j > 0) {
      ++with_energy;
      energy_prov.insert(r.energy_provenance);
    }
  }
  // Measured modes: means over each distinct mode's runs.
  std::vector<CustomMode> run_modes;
  for (const RunObservation& r : g.runs) run_modes.push_back(r.mode);
  for (const CustomMode& m : DistinctModes(run_modes)) {
    v1::MeasuredMode* mm = out->add_measured();
    *mm->mutable_mode() = ToPowerMode(m);
    double time = 0, energy = 0;
    int n = 0, ne = 0;
    for (const RunObservation& r : g.runs) {
      if (!(r.mode == m)) continue;
      mm->add_run_ids(r.run_id);
      time += r.epoch_time_s;
      ++n;
      if (r.epoch_energy_j > 0) {
        energy += r.epoch_energy_j;
        ++ne;
      }
    }
    mm->set_runs(n);
    mm->set_epoch_time_s(time / n);
    if (ne > 0) mm->set_epoch_energy_j(energy / ne);
  }

  const int n = static_cast<int>(g.runs.size());
  out->set_time_provenance(simulated == n ? v1::PROVENANCE_SIMULATED
                                          : v1::PROVENANCE_MEASURED);
  std::string time_words =
      simulated == n ? "times simulated (twin devices, docs/twin-model.md)"
      : simulated == 0
          ? "times measured"
          : absl::StrCat("times measured on ", n - simulated,
                         " runs and simulated on ", simulated, " (twins)");
  std::string energy_words;
  if (with_energy == 0) {
    energy_words = "no energy (the runs had no power readings)";
  } else if (energy_prov.size() == 1) {
    out->set_energy_provenance(
        static_cast<v1::Provenance>(*energy_prov.begin()));
    energy_words = EnergyWords(out->energy_provenance());
  } else {
    std::vector<std::string> kinds;
    for (int p : energy_prov) {
      kinds.push_back(ProvenanceText(static_cast<v1::Provenance>(p)));
    }
    energy_words = absl::StrCat("energy of mixed provenance (",
                                absl::StrJoin(kinds, ", "), ")");
  }
  if (with_energy > 0 && with_energy < n) {
    absl::StrAppend(&energy_words, " on ", with_energy, " of ", n, " runs");
  }
  out->set_data_provenance(absl::StrCat(time_words, "; ", energy_words));
  if (emulated > 0) {
    out->add_notes(
        absl::StrCat("CPU frequency emulated by a CPU bandwidth quota on ",
                     emulated, " run(s), not set by DVFS"));
  }
  if (requested_modes > 0) {
    out->add_notes(absl::StrCat(requested_modes,
                                " run(s) have no applied mode stored; their "
                                "requested mode was used"));
  }
}

}  // namespace

namespace {

// The chosen candidate's line, e.g. "overlap (transfer, weight 0.01), CV
// MAPE 3.1%".
std::string ChosenText(const TransferSelection& t) {
  return absl::StrCat(t.selection.cv.form, ", CV MAPE ",
                      absl::StrFormat("%.1f%%", t.selection.cv.mape_pct));
}

// Which candidate won, in words.
std::string ChoiceNote(const char* what, const TransferSelection& t,
                       const std::string& ref_text) {
  if (t.transferred) {
    return absl::StrCat(what, ": transferred from ", ref_text,
                        " (chosen by leave-one-mode-out CV among the "
                        "candidates: ",
                        ChosenText(t), ")");
  }
  return absl::StrCat(what, ": fitted plainly (", ChosenText(t),
                      "); the transfer from ", ref_text,
                      " predicted the held-out modes worse");
}

// Time and energy models by transfer from `reference` into `out`; notes
// say what was chosen.
absl::Status Transfer(const v1::WorkloadModel& reference,
                      const std::vector<Observation>& time_obs,
                      const std::vector<EnergyObservation>& energy_obs,
                      v1::WorkloadModel* out) {
  const std::string ref_text =
      absl::StrCat("model ", reference.model_id(), " (",
                   WorkloadLabel(reference), ")");
  PS_ASSIGN_OR_RETURN(FittedModel ref_time, FromProto(reference.time_model()));
  absl::StatusOr<TransferSelection> time =
      TransferTimeModel(time_obs, ref_time);
  if (!time.ok()) {
    return absl::Status(time.status().code(),
                        absl::StrCat("transfer from ", ref_text, ": ",
                                     time.status().message()));
  }
  out->set_reference_model_id(reference.model_id());
  *out->mutable_time_model() = ToProto(time->selection);
  out->add_notes(ChoiceNote("time", *time, ref_text));
  if (energy_obs.empty()) return absl::OkStatus();
  if (!reference.has_energy_model()) {
    out->add_notes(absl::StrCat("no energy model: ", ref_text,
                                " has none to transfer"));
    return absl::OkStatus();
  }
  PS_ASSIGN_OR_RETURN(FittedModel ref_energy,
                      FromProto(reference.energy_model()));
  absl::StatusOr<TransferSelection> energy =
      TransferEnergyModel(energy_obs, time_obs, *time, ref_energy);
  if (!energy.ok()) {
    out->add_notes(
        absl::StrCat("no energy model: ", energy.status().message()));
    return absl::OkStatus();
  }
  *out->mutable_energy_model() = ToProto(energy->selection);
  out->add_notes(ChoiceNote("energy", *energy, ref_text));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::WorkloadModel> FitWorkload(
    const ObservationGroup& group, const PowerCatalog& catalog,
    absl::Time now, const v1::WorkloadModel* reference) {
  const WorkloadKey& k = group.key;
  std::set<int64_t> sweep_ids;
  for (const RunObservation& r : group.runs) sweep_ids.insert(r.sweep_id);
  v1::WorkloadModel out;
  for (int64_t id : sweep_ids) out.add_sweep_ids(id);
  if (!sweep_ids.empty()) out.set_sweep_id(*sweep_ids.begin());
  std::vector<Observation> time_obs;
  std::vector<EnergyObservation> energy_obs;
  std::vector<CustomMode> modes;
  for (const RunObservation& r : group.runs) {
    time_obs.push_back({r.mode, r.epoch_time_s});
    modes.push_back(r.mode);
    if (r.epoch_energy_j > 0) {
      energy_obs.push_back({r.mode, r.epoch_energy_j, r.epoch_time_s});
    }
  }
  const size_t distinct = DistinctModes(modes).size();
  const std::string label = absl::StrCat(
      KeyLabel(k), " (", SweepsText(out), ", ", group.runs.size(), " runs at ",
      distinct, " distinct mode", distinct == 1 ? "" : "s", ")");
  // Plain fits first, so a group too small for them fails before the space.
  ModelSelection time;
  if (reference == nullptr) {
    absl::StatusOr<ModelSelection> selected = SelectTimeModel(time_obs);
    if (!selected.ok()) {
      return absl::Status(
          selected.status().code(),
          absl::StrCat(label, ": ", selected.status().message()));
    }
    time = *std::move(selected);
  }
  absl::StatusOr<ModeSpace> space =
      ClassSpace(k.device_class, catalog, group.devices, modes);
  if (!space.ok()) {
    return absl::Status(space.status().code(),
                        absl::StrCat(label, ": ", space.status().message()));
  }

  out.set_device_class(k.device_class);
  out.set_model(k.model);
  out.set_dataset(k.dataset);
  out.set_task(k.task);
  out.set_batch_size(k.batch_size);
  out.set_loader_workers(k.loader_workers);
  out.set_runtime(k.runtime);
  out.set_tenants(k.tenants);
  out.set_fitted_unix_ms(absl::ToUnixMillis(now));
  *out.mutable_epoch() = group.epoch;
  *out.mutable_space() = ToProto(*space);
  Describe(group, &out);
  if (reference != nullptr) {
    if (absl::Status s = Transfer(*reference, time_obs, energy_obs, &out);
        !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(label, ": ", s.message()));
    }
    return out;
  }
  *out.mutable_time_model() = ToProto(time);

  if (!energy_obs.empty()) {
    absl::StatusOr<ModelSelection> energy =
        SelectEnergyModel(energy_obs, time.model, time_obs);
    if (energy.ok()) {
      *out.mutable_energy_model() = ToProto(*energy);
    } else {
      out.add_notes(
          absl::StrCat("no energy model: ", energy.status().message()));
    }
  }
  return out;
}

}  // namespace powersweep::modeling
