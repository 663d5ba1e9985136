#include "controller/modeling/transfer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "controller/modeling/fit.h"

namespace powersweep::modeling {
namespace {

std::string TransferLabel(const std::string& form, double weight) {
  return absl::StrCat(form, " (transfer, weight ", weight, ")");
}

// One candidate model: its cross-validation (or why not) and how to fit it
// on all observations.
struct Candidate {
  FormCandidate info;
  CrossValidation cv;
  bool transferred = false;
  std::function<absl::StatusOr<FittedModel>()> fit;
  TimeFit refit;  // time candidates only
};

// A candidate with `reference`'s prior at weight `w`, to be cross-validated.
Candidate TransferCandidate(const FittedModel& reference, double w) {
  Candidate c;
  c.info.form = TransferLabel(reference.form, w);
  c.info.coefficients = static_cast<int>(reference.coefficients.size());
  c.transferred = true;
  return c;
}

void Record(absl::StatusOr<CrossValidation> cv, Candidate* c) {
  if (cv.ok()) {
    c->info.cross_validated = true;
    c->info.cv_mape_pct = cv->mape_pct;
    c->info.cv_median_ape_pct = cv->median_ape_pct;
    c->cv = *std::move(cv);
  } else {
    c->info.reason = std::string(cv.status().message());
  }
}

// The prior makes in-sample residuals small: a transferred model's interval
// takes the held-out relative errors' root mean square when it is larger.
void WidenToHeldOut(const CrossValidation& cv, FittedModel* m) {
  if (cv.held_out.empty()) return;
  double sq = 0;
  for (const HeldOutMode& h : cv.held_out) {
    const double r = (h.predicted - h.observed) / h.observed;
    sq += r * r;
  }
  m->residual_std =
      std::max(m->residual_std, std::sqrt(sq / cv.held_out.size()));
}

// The lowest CV MAPE wins (ties: the earlier candidate).
absl::StatusOr<TransferSelection> Choose(std::vector<Candidate> candidates) {
  int best = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const FormCandidate& c = candidates[i].info;
    if (!c.cross_validated) continue;
    if (best < 0 || c.cv_mape_pct < candidates[best].info.cv_mape_pct) {
      best = static_cast<int>(i);
    }
  }
  if (best < 0) {
    std::vector<std::string> reasons;
    for (const Candidate& c : candidates) {
      reasons.push_back(absl::StrCat(c.info.form, ": ", c.info.reason));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("no model could be cross-validated (",
                     absl::StrJoin(reasons, "; "), ")"));
  }
  Candidate& chosen = candidates[best];
  PS_ASSIGN_OR_RETURN(FittedModel model, chosen.fit());
  model.interval_scale = chosen.cv.interval_scale;
  if (chosen.transferred && !chosen.cv.interval_calibrated) {
    WidenToHeldOut(chosen.cv, &model);
  }
  TransferSelection out;
  out.transferred = chosen.transferred;
  out.refit = chosen.refit;
  out.selection.model = std::move(model);
  out.selection.cv = std::move(chosen.cv);
  for (Candidate& c : candidates) {
    out.selection.candidates.push_back(std::move(c.info));
  }
  return out;
}

}  // namespace

std::vector<double> TransferWeights(Target target) {
  if (target == Target::kTime) return {1e-5, 1e-4, 1e-3};
  return {0.1, 0.5, 2};
}

absl::StatusOr<TransferSelection> TransferTimeModel(
    const std::vector<Observation>& obs, const FittedModel& reference_time,
    const std::vector<double>& weights) {
  PS_RETURN_IF_ERROR(CheckFittedModel(reference_time, Target::kTime));
  const auto ref = std::make_shared<const FittedModel>(reference_time);
  std::vector<Candidate> candidates;
  for (double w : weights) {
    Candidate c = TransferCandidate(*ref, w);
    c.refit = [ref, w](const std::vector<Observation>& o) {
      return FitTimeModel(o, ReferencePrior{ref.get(), w});
    };
    Record(CrossValidateTimeWith(c.info.form, obs, c.refit), &c);
    c.fit = [refit = c.refit, &obs] { return refit(obs); };
    candidates.push_back(std::move(c));
  }
  for (const std::string& form : TimeFormNames()) {
    Candidate c;
    c.info.form = form;
    const ModelForm* f = FindForm(form);
    std::vector<CustomMode> modes;
    for (const Observation& o : obs) modes.push_back(o.mode);
    const ActiveKnobs knobs = KnobsThatVary(modes);
    if (f->Applicable(knobs).ok()) {
      c.info.coefficients = static_cast<int>(f->ParameterNames(knobs).size());
    }
    c.refit = [form](const std::vector<Observation>& o) {
      return FitTimeModel(form, o);
    };
    Record(CrossValidateTime(form, obs), &c);
    c.fit = [refit = c.refit, &obs] { return refit(obs); };
    candidates.push_back(std::move(c));
  }
  return Choose(std::move(candidates));
}

absl::StatusOr<TransferSelection> TransferEnergyModel(
    const std::vector<EnergyObservation>& obs,
    const std::vector<Observation>& time_obs, const TransferSelection& time,
    const FittedModel& reference_energy, const std::vector<double>& weights) {
  PS_RETURN_IF_ERROR(CheckFittedModel(reference_energy, Target::kEnergy));
  const auto ref = std::make_shared<const FittedModel>(reference_energy);
  const FittedModel& time_model = time.selection.model;
  std::vector<Candidate> candidates;
  for (double w : weights) {
    Candidate c = TransferCandidate(*ref, w);
    const EnergyFit fit = [ref, w](const std::vector<EnergyObservation>& o,
                                   const FittedModel& t) {
      return FitEnergyModel(o, t, ReferencePrior{ref.get(), w});
    };
    if (ref->time_form == time_model.form) {
      Record(CrossValidateEnergyWith(c.info.form, obs, time_obs, time.refit,
                                     fit),
             &c);
    } else {
      c.info.reason = absl::StrCat(
          "the reference energy model rests on time form ", ref->time_form,
          ", the chosen time model is ", time_model.form);
    }
    c.fit = [fit, &obs, &time_model] { return fit(obs, time_model); };
    candidates.push_back(std::move(c));
  }
  for (const std::string& form : EnergyFormNames()) {
    Candidate c;
    c.info.form = form;
    const EnergyFit fit = [form](const std::vector<EnergyObservation>& o,
                                 const FittedModel& t) {
      return FitEnergyModel(form, o, t);
    };
    Record(CrossValidateEnergyWith(form, obs, time_obs, time.refit, fit), &c);
    c.fit = [fit, &obs, &time_model] { return fit(obs, time_model); };
    candidates.push_back(std::move(c));
  }
  return Choose(std::move(candidates));
}

}  // namespace powersweep::modeling
