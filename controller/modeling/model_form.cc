#include "controller/modeling/model_form.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/modeling/model_form_overlap.h"
#include "controller/modeling/model_form_terms.h"

namespace powersweep::modeling {
namespace {

const std::map<std::string, std::unique_ptr<ModelForm>>& Registry() {
  static const auto* forms = [] {
    auto* m = new std::map<std::string, std::unique_ptr<ModelForm>>;
    for (std::unique_ptr<ModelForm>& f : MakeTermForms()) {
      const std::string name = f->name();
      (*m)[name] = std::move(f);
    }
    std::unique_ptr<ModelForm> overlap = MakeOverlapForm();
    const std::string name = overlap->name();
    (*m)[name] = std::move(overlap);
    return m;
  }();
  return *forms;
}

}  // namespace

ActiveKnobs KnobsThatVary(const std::vector<CustomMode>& modes) {
  ActiveKnobs k;
  if (modes.empty()) return k;
  const CustomMode& first = modes.front();
  for (const CustomMode& m : modes) {
    k.cores |= m.cpu_cores != first.cpu_cores;
    k.cpu_freq |= m.cpu_freq_khz != first.cpu_freq_khz;
    k.gpu_freq |= m.gpu_freq_hz != first.gpu_freq_hz;
    k.mem_freq |= m.mem_freq_hz != first.mem_freq_hz;
  }
  return k;
}

std::string KnobsToString(const ActiveKnobs& k) {
  std::vector<std::string> names;
  if (k.cores) names.push_back("cpu_cores");
  if (k.cpu_freq) names.push_back("cpu_freq_khz");
  if (k.gpu_freq) names.push_back("gpu_freq_hz");
  if (k.mem_freq) names.push_back("mem_freq_hz");
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

ScaledMode Scale(const CustomMode& m) {
  return ScaledMode{static_cast<double>(m.cpu_cores), m.cpu_freq_khz * 1e-6,
                    m.gpu_freq_hz * 1e-9, m.mem_freq_hz * 1e-9};
}

std::string ModeToString(const CustomMode& m) {
  return absl::StrCat("cores=", m.cpu_cores, " cpu=", m.cpu_freq_khz,
                      "kHz gpu=", m.gpu_freq_hz, "Hz mem=", m.mem_freq_hz,
                      "Hz");
}

absl::Status CheckModeForKnobs(const CustomMode& m, const ActiveKnobs& k) {
  std::vector<std::string> problems;
  auto check = [&](bool active, int64_t v, const char* field) {
    if (active && v <= 0) {
      problems.push_back(absl::StrCat(
          field, " is ", v,
          " but the model varies it and needs the actual value"));
    }
  };
  check(k.cores, m.cpu_cores, "cpu_cores");
  check(k.cpu_freq, m.cpu_freq_khz, "cpu_freq_khz");
  check(k.gpu_freq, m.gpu_freq_hz, "gpu_freq_hz");
  check(k.mem_freq, m.mem_freq_hz, "mem_freq_hz");
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "mode ", ModeToString(m), ": ", absl::StrJoin(problems, "; ")));
}

absl::Status ModelForm::Applicable(const ActiveKnobs&) const {
  return absl::OkStatus();
}

void ModelForm::Features(const ActiveKnobs&, const ScaledMode&,
                         const TimeEstimate&, double*) const {}

double ModelForm::Evaluate(const ActiveKnobs&, const ScaledMode&,
                           const TimeEstimate&, const double*) const {
  return 0;
}

void ModelForm::BusyShares(const ActiveKnobs&, const ScaledMode&,
                           const double*, TimeEstimate* te) const {
  te->gpu_busy_share = 1.0;
  te->mem_busy_share = 1.0;
}

bool ModelForm::ScalesWithValue(const ActiveKnobs&, int) const {
  return true;
}

void ModelForm::ToInternal(const double* natural, double* internal,
                           int n) const {
  std::copy(natural, natural + n, internal);
}

void ModelForm::ToNatural(const double* internal, double* natural,
                          int n) const {
  std::copy(internal, internal + n, natural);
}

std::vector<std::vector<double>> ModelForm::StartingPoints(
    const ActiveKnobs&, const std::vector<ScaledMode>&,
    const std::vector<double>&) const {
  return {};
}

const ModelForm* FindForm(const std::string& name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : it->second.get();
}

std::vector<std::string> TimeFormNames() {
  return {"linear", "reciprocal", "reciprocal_cross", "combined", "overlap"};
}

std::vector<std::string> EnergyFormNames() {
  return {"paper", "power_x_time", "power_util_x_time",
          "power_util_mem_x_time"};
}

absl::Status CheckForm(const std::string& name, Target target) {
  const ModelForm* form = FindForm(name);
  if (form != nullptr && form->target() == target) return absl::OkStatus();
  const bool time = target == Target::kTime;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown ", time ? "time" : "energy", " model form \"", name,
      "\" (known: ",
      absl::StrJoin(time ? TimeFormNames() : EnergyFormNames(), ", "), ")"));
}

}  // namespace powersweep::modeling
