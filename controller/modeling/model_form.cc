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

namespace powersweep::modeling {
namespace {

enum KnobBit { kCoresBit = 1, kCpuBit = 2, kGpuBit = 4, kMemBit = 8 };

int Mask(const ActiveKnobs& k) {
  return (k.cores ? kCoresBit : 0) | (k.cpu_freq ? kCpuBit : 0) |
         (k.gpu_freq ? kGpuBit : 0) | (k.mem_freq ? kMemBit : 0);
}

// One column of a linear form: used when every knob it needs varies.
struct Term {
  std::string name;
  int needs = 0;  // KnobBits
  std::function<double(const ScaledMode&, const TimeEstimate&)> value;
  bool gpu_side = false;  // counts towards the predicted GPU busy share
};

Term T(std::string name, int needs,
       std::function<double(const ScaledMode&, const TimeEstimate&)> f,
       bool gpu_side = false) {
  return Term{std::move(name), needs, std::move(f), gpu_side};
}

// The terms of the paper's linear form (without the constant).
std::vector<Term> LinearTerms() {
  return {T("cpu_ghz", kCpuBit, [](auto& x, auto&) { return x.cpu_ghz; }),
          T("cores", kCoresBit, [](auto& x, auto&) { return x.cores; }),
          T("gpu_ghz", kGpuBit, [](auto& x, auto&) { return x.gpu_ghz; }),
          T("mem_ghz", kMemBit, [](auto& x, auto&) { return x.mem_ghz; })};
}

std::vector<Term> ReciprocalTerms() {
  return {
      T("1/cpu_ghz", kCpuBit, [](auto& x, auto&) { return 1 / x.cpu_ghz; }),
      T("1/cores", kCoresBit, [](auto& x, auto&) { return 1 / x.cores; }),
      T("1/gpu_ghz", kGpuBit, [](auto& x, auto&) { return 1 / x.gpu_ghz; },
        true),
      T("1/mem_ghz", kMemBit, [](auto& x, auto&) { return 1 / x.mem_ghz; },
        true)};
}

Term Constant() {
  return T("const", 0, [](auto&, auto&) { return 1.0; });
}

std::vector<Term> Concat(std::vector<std::vector<Term>> parts) {
  std::vector<Term> out;
  for (auto& p : parts) {
    for (auto& t : p) out.push_back(std::move(t));
  }
  return out;
}

class TermForm : public ModelForm {
 public:
  TermForm(std::string name, Target target, std::vector<Term> terms,
           bool models_power = false)
      : name_(std::move(name)),
        target_(target),
        terms_(std::move(terms)),
        models_power_(models_power) {
    // used_ points into terms_: the form is never copied (see below).
    for (int mask = 0; mask < 16; ++mask) {
      for (const Term& t : terms_) {
        if ((t.needs & mask) == t.needs) used_[mask].push_back(&t);
      }
    }
  }

  TermForm(const TermForm&) = delete;
  TermForm& operator=(const TermForm&) = delete;

  const std::string& name() const override { return name_; }
  Target target() const override { return target_; }
  bool linear() const override { return true; }
  bool models_power() const override { return models_power_; }

  std::vector<std::string> ParameterNames(
      const ActiveKnobs& knobs) const override {
    std::vector<std::string> names;
    for (const Term* t : Used(knobs)) names.push_back(t->name);
    return names;
  }

  void Features(const ActiveKnobs& knobs, const ScaledMode& x,
                const TimeEstimate& te, double* row) const override {
    int i = 0;
    for (const Term* t : Used(knobs)) row[i++] = t->value(x, te);
  }

  double Evaluate(const ActiveKnobs& knobs, const ScaledMode& x,
                  const TimeEstimate& te, const double* params) const override {
    double sum = 0;
    int i = 0;
    for (const Term* t : Used(knobs)) sum += params[i++] * t->value(x, te);
    return sum;
  }

  double GpuBusyShare(const ActiveKnobs& knobs, const ScaledMode& x,
                      const double* params, double time_s) const override {
    double gpu = 0;
    bool any = false;
    int i = 0;
    for (const Term* t : Used(knobs)) {
      if (t->gpu_side) {
        any = true;
        gpu += std::max(0.0, params[i] * t->value(x, TimeEstimate{}));
      }
      ++i;
    }
    if (!any || time_s <= 0) return 1.0;
    return std::clamp(gpu / time_s, 0.0, 1.0);
  }

 private:
  // The terms whose knobs all vary.
  const std::vector<const Term*>& Used(const ActiveKnobs& knobs) const {
    return used_[Mask(knobs)];
  }

  const std::string name_;
  const Target target_;
  const std::vector<Term> terms_;
  const bool models_power_;
  std::array<std::vector<const Term*>, 16> used_;  // by knob mask
};

// t = S/c + ||(C/c, G/g, M/m)||_p  (model_form.h). Parameters: S (or a
// constant when the CPU clock does not vary), then C, G, M for the varying
// clocks, then p (always last).
class OverlapForm : public ModelForm {
 public:
  static constexpr double kMaxP = 16;

  const std::string& name() const override { return name_; }
  Target target() const override { return Target::kTime; }
  bool linear() const override { return false; }

  absl::Status Applicable(const ActiveKnobs& k) const override {
    if (Units(k) < 2) {
      return absl::FailedPreconditionError(absl::StrCat(
          "form overlap needs at least two of cpu_freq_khz, gpu_freq_hz, "
          "mem_freq_hz to vary (varying: ",
          KnobsToString(k), ")"));
    }
    return absl::OkStatus();
  }

  std::vector<std::string> ParameterNames(
      const ActiveKnobs& k) const override {
    std::vector<std::string> names;
    names.push_back(k.cpu_freq ? "serial_cpu_gcycles" : "serial_s");
    if (k.cpu_freq) names.push_back("cpu_gcycles");
    if (k.gpu_freq) names.push_back("gpu_gcycles");
    if (k.mem_freq) names.push_back("mem_gcycles");
    names.push_back("overlap_p");
    return names;
  }

  double Evaluate(const ActiveKnobs& k, const ScaledMode& x,
                  const TimeEstimate&, const double* params) const override {
    double units[3];
    int n = 0;
    double p = 0;
    const double serial = Split(k, x, params, units, &n, &p);
    return serial + Norm(units, n, p);
  }

  double GpuBusyShare(const ActiveKnobs& k, const ScaledMode& x,
                      const double* params, double time_s) const override {
    if (!k.gpu_freq && !k.mem_freq) return 1.0;
    double units[3];
    int n = 0;
    double p = 0;
    Split(k, x, params, units, &n, &p);
    // The GPU and memory units are the last ones.
    const int first_gpu = k.cpu_freq ? 1 : 0;
    const double gpu = Norm(units + first_gpu, n - first_gpu, p);
    if (time_s <= 0) return 1.0;
    return std::clamp(gpu / time_s, 0.0, 1.0);
  }

  void ToInternal(const double* natural, double* internal,
                  int n) const override {
    for (int i = 0; i + 1 < n; ++i) {
      internal[i] = std::log(std::max(natural[i], 1e-300));
    }
    const double q =
        std::clamp((natural[n - 1] - 1) / (kMaxP - 1), 1e-12, 1 - 1e-12);
    internal[n - 1] = std::log(q / (1 - q));
  }

  void ToNatural(const double* internal, double* natural,
                 int n) const override {
    for (int i = 0; i + 1 < n; ++i) {
      natural[i] = std::exp(std::clamp(internal[i], -700.0, 700.0));
    }
    natural[n - 1] =
        1 + (kMaxP - 1) / (1 + std::exp(-std::clamp(internal[n - 1], -700.0,
                                                     700.0)));
  }

  // Every combination of p0 in {2, 6}, a serial share in {5%, 30%} and the
  // remaining time split equally between the units or 70% on one of them,
  // at the geometric mean of the observed times.
  std::vector<std::vector<double>> StartingPoints(
      const ActiveKnobs& k, const std::vector<ScaledMode>& xs,
      const std::vector<double>& ys) const override {
    const int units = Units(k);
    double log_y = 0;
    for (double y : ys) log_y += std::log(y);
    const double y = ys.empty() ? 1.0 : std::exp(log_y / ys.size());
    double mean_x[3] = {0, 0, 0};  // mean reciprocal clock of each unit
    double mean_serial = 0;
    for (const ScaledMode& x : xs) {
      int n = 0;
      if (k.cpu_freq) mean_x[n++] += 1 / x.cpu_ghz;
      if (k.gpu_freq) mean_x[n++] += 1 / x.gpu_ghz;
      if (k.mem_freq) mean_x[n++] += 1 / x.mem_ghz;
      mean_serial += k.cpu_freq ? 1 / x.cpu_ghz : 1.0;
    }
    const double count = std::max<size_t>(1, xs.size());
    for (double& m : mean_x) m = std::max(m / count, 1e-9);
    mean_serial = std::max(mean_serial / count, 1e-9);

    std::vector<std::vector<double>> starts;
    for (double p0 : {2.0, 6.0}) {
      for (double serial_share : {0.05, 0.3}) {
        for (int dominant = -1; dominant < units; ++dominant) {
          std::vector<double> start;
          start.push_back(serial_share * y / mean_serial);
          for (int u = 0; u < units; ++u) {
            double w = 1.0 / units;
            if (dominant >= 0) w = u == dominant ? 0.7 : 0.3 / (units - 1);
            start.push_back((1 - serial_share) * y * w / mean_x[u]);
          }
          start.push_back(p0);
          starts.push_back(std::move(start));
        }
      }
    }
    return starts;
  }

 private:
  static int Units(const ActiveKnobs& k) {
    return int{k.cpu_freq} + int{k.gpu_freq} + int{k.mem_freq};
  }

  // Fills the unit times and p; returns the serial part.
  static double Split(const ActiveKnobs& k, const ScaledMode& x,
                      const double* params, double* units, int* n, double* p) {
    int i = 0;
    const double serial_work = params[i++];
    const double serial = k.cpu_freq ? serial_work / x.cpu_ghz : serial_work;
    *n = 0;
    if (k.cpu_freq) units[(*n)++] = params[i++] / x.cpu_ghz;
    if (k.gpu_freq) units[(*n)++] = params[i++] / x.gpu_ghz;
    if (k.mem_freq) units[(*n)++] = params[i++] / x.mem_ghz;
    *p = params[i];
    return serial;
  }

  // (sum u_i^p)^(1/p), scaled by the largest term to avoid overflow.
  static double Norm(const double* u, int n, double p) {
    double mx = 0;
    for (int i = 0; i < n; ++i) mx = std::max(mx, u[i]);
    if (mx <= 0) return 0;
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += std::pow(std::max(u[i], 0.0) / mx, p);
    return mx * std::pow(sum, 1 / p);
  }

  const std::string name_ = "overlap";
};

const std::map<std::string, std::unique_ptr<ModelForm>>& Registry() {
  static const auto* forms = [] {
    auto* m = new std::map<std::string, std::unique_ptr<ModelForm>>;
    auto add = [m](ModelForm* f) { (*m)[f->name()].reset(f); };
    add(new TermForm("linear", Target::kTime,
                     Concat({LinearTerms(), {Constant()}})));
    add(new TermForm("reciprocal", Target::kTime,
                     Concat({ReciprocalTerms(), {Constant()}})));
    add(new TermForm(
        "reciprocal_cross", Target::kTime,
        Concat({ReciprocalTerms(),
                {T("1/(cores*cpu_ghz)", kCoresBit | kCpuBit,
                   [](auto& x, auto&) { return 1 / (x.cores * x.cpu_ghz); }),
                 Constant()}})));
    add(new TermForm("combined", Target::kTime,
                     Concat({LinearTerms(), ReciprocalTerms(), {Constant()}})));
    add(new OverlapForm());

    add(new TermForm(
        "paper", Target::kEnergy,
        Concat({LinearTerms(),
                {Constant(),
                 T("time_s", 0, [](auto&, auto& t) { return t.time_s; })}})));
    add(new TermForm(
        "power_x_time", Target::kEnergy,
        {Constant(),
         T("cores", kCoresBit, [](auto& x, auto&) { return x.cores; }),
         T("cpu_ghz", kCpuBit, [](auto& x, auto&) { return x.cpu_ghz; }),
         T("gpu_ghz", kGpuBit, [](auto& x, auto&) { return x.gpu_ghz; }),
         T("mem_ghz", kMemBit, [](auto& x, auto&) { return x.mem_ghz; })},
        /*models_power=*/true));
    add(new TermForm(
        "power_util_x_time", Target::kEnergy,
        {Constant(),
         T("cores", kCoresBit, [](auto& x, auto&) { return x.cores; }),
         T("cpu_ghz^2", kCpuBit,
           [](auto& x, auto&) { return x.cpu_ghz * x.cpu_ghz; }),
         T("gpu_ghz*u", kGpuBit,
           [](auto& x, auto& t) { return x.gpu_ghz * t.gpu_busy_share; }),
         T("gpu_ghz^2*u", kGpuBit,
           [](auto& x, auto& t) {
             return x.gpu_ghz * x.gpu_ghz * t.gpu_busy_share;
           }),
         T("mem_ghz", kMemBit, [](auto& x, auto&) { return x.mem_ghz; })},
        /*models_power=*/true));
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

double ModelForm::GpuBusyShare(const ActiveKnobs&, const ScaledMode&,
                               const double*, double) const {
  return 1.0;
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
  return {"paper", "power_x_time", "power_util_x_time"};
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
