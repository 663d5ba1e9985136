#include "controller/modeling/model_form_terms.h"

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
  // What the term's share of a time form counts towards: the GPU busy
  // share (kGpu), both it and the DRAM busy share (kMem), or neither.
  enum class Side { kNone, kGpu, kMem };
  Side side = Side::kNone;
};
using Side = Term::Side;

Term T(std::string name, int needs,
       std::function<double(const ScaledMode&, const TimeEstimate&)> f,
       Side side = Side::kNone) {
  return Term{std::move(name), needs, std::move(f), side};
}

// The terms of the paper's linear form (without the constant).
std::vector<Term> LinearTerms() {
  return {T("cpu_ghz", kCpuBit, [](auto& x, auto&) { return x.cpu_ghz; }),
          T("cores", kCoresBit, [](auto& x, auto&) { return x.cores; }),
          T("gpu_ghz", kGpuBit, [](auto& x, auto&) { return x.gpu_ghz; }),
          T("mem_ghz", kMemBit, [](auto& x, auto&) { return x.mem_ghz; })};
}

std::vector<Term> ReciprocalTerms() {
  return {T("1/cpu_ghz", kCpuBit, [](auto& x, auto&) { return 1 / x.cpu_ghz; }),
          T("1/cores", kCoresBit, [](auto& x, auto&) { return 1 / x.cores; }),
          T(
              "1/gpu_ghz", kGpuBit,
              [](auto& x, auto&) { return 1 / x.gpu_ghz; }, Side::kGpu),
          T(
              "1/mem_ghz", kMemBit,
              [](auto& x, auto&) { return 1 / x.mem_ghz; }, Side::kMem)};
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

  void BusyShares(const ActiveKnobs& knobs, const ScaledMode& x,
                  const double* params, TimeEstimate* te) const override {
    double gpu = 0, mem = 0;
    bool any_gpu = false, any_mem = false;
    int i = 0;
    for (const Term* t : Used(knobs)) {
      const double v = std::max(0.0, params[i++] * t->value(x, TimeEstimate{}));
      if (t->side == Side::kGpu || t->side == Side::kMem) {
        any_gpu = true;
        gpu += v;
      }
      if (t->side == Side::kMem) {
        any_mem = true;
        mem += v;
      }
    }
    const double time_s = te->time_s;
    te->gpu_busy_share =
        !any_gpu || time_s <= 0 ? 1.0 : std::clamp(gpu / time_s, 0.0, 1.0);
    te->mem_busy_share =
        !any_mem || time_s <= 0 ? 1.0 : std::clamp(mem / time_s, 0.0, 1.0);
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

}  // namespace

std::vector<std::unique_ptr<ModelForm>> MakeTermForms() {
  std::vector<std::unique_ptr<ModelForm>> forms;
  auto add = [&forms](ModelForm* f) { forms.emplace_back(f); };
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

  add(new TermForm(
      "paper", Target::kEnergy,
      Concat({LinearTerms(), {Constant(), T("time_s", 0, [](auto&, auto& t) {
                                return t.time_s;
                              })}})));
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
  add(new TermForm(
      "power_util_mem_x_time", Target::kEnergy,
      {Constant(),
       T("cores", kCoresBit, [](auto& x, auto&) { return x.cores; }),
       T("cpu_ghz^2", kCpuBit,
         [](auto& x, auto&) { return x.cpu_ghz * x.cpu_ghz; }),
       T("gpu_ghz^2*u", kGpuBit,
         [](auto& x, auto& t) {
           return x.gpu_ghz * x.gpu_ghz * t.gpu_busy_share;
         }),
       T("mem_ghz", kMemBit, [](auto& x, auto&) { return x.mem_ghz; }),
       T("mem_ghz*u_mem", kMemBit,
         [](auto& x, auto& t) { return x.mem_ghz * t.mem_busy_share; })},
      /*models_power=*/true));
  return forms;
}

}  // namespace powersweep::modeling
