// Benchmark (prints figures; not a test): how well a new workload is
// predicted from a few of its modes, with transfer from a reference
// workload's full profile (controller/modeling/transfer.h) and without
// (the plain fit, cross_validation.h SelectTimeModel / SelectEnergyModel).
//
// On twins, whose truth is known (twin_truth.h): the reference workload is
// "profiled" at --reference_modes random modes of --reference_class and
// fitted plainly; each new workload at K random modes of --class (K from
// --ks, nested: the 5 modes include the 3), each observation with the
// twin's noise (lognormal, mean 1, sigma --noise, on time and on energy).
// Both fits predict --eval other random modes; the figure is the median
// absolute percentage error against the noiseless truth, and its median
// over --seeds draws (a draw: the reference's and the new workload's modes,
// the noise, and the twin instance's variation), with the worst draw in
// brackets. --planned profiles the new workload at plan-profiling's K
// modes instead of random ones.
//
//   build/tests/controller/modeling/controller_modeling_transfer_bench
//   ... --reference_class xavier-agx --class orin-agx   (across classes)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "agent/platform/twin/model_cost.h"
#include "agent/platform/twin/twin_random.h"
#include "common/power/mode_space.h"
#include "controller/modeling/cross_validation.h"
#include "controller/modeling/plan.h"
#include "controller/modeling/predict.h"
#include "controller/modeling/transfer.h"
#include "tests/controller/modeling/twin_truth.h"

ABSL_FLAG(std::string, class, "xavier-agx", "twin class of the new workloads");
ABSL_FLAG(std::string, reference_class, "",
          "twin class of the reference profile (empty: --class)");
ABSL_FLAG(std::string, reference, "resnet18:cifar10",
          "reference workload, MODEL:DATASET (twin names)");
ABSL_FLAG(int, reference_modes, 60, "modes of the reference's full profile");
ABSL_FLAG(std::string, workloads,
          "lenet5:fashion-mnist,mobilenetv3:gld23k,vae:fashion-mnist,"
          "lstm_lm:wikitext,alexnet:imagenet,dqn:catch-frames",
          "new workloads, MODEL:DATASET, comma-separated");
ABSL_FLAG(std::string, ks, "3,5,10,15,30",
          "profiled modes of the new workload, comma-separated");
ABSL_FLAG(int, seeds, 3, "draws per workload (medians over them)");
ABSL_FLAG(int, eval, 60, "held-out modes the error is measured on");
ABSL_FLAG(double, noise, 0.02, "sigma of the lognormal observation noise");
ABSL_FLAG(int, batch, 32, "batch size of every workload");
ABSL_FLAG(bool, planned, false,
          "profile the new workload at the K modes plan-profiling proposes "
          "(plan.h, overlap / power_util_mem_x_time) instead of K random "
          "ones; the draws then differ only in noise and instance");
ABSL_FLAG(std::vector<std::string>, weights, {},
          "time: the prior weights cross-validation chooses from "
          "(comma-separated; empty: transfer.h's)");
ABSL_FLAG(std::vector<std::string>, energy_weights, {},
          "energy: the prior weights (empty: transfer.h's)");

namespace powersweep::modeling {
namespace {

struct Workload {
  std::string model;
  std::string dataset;
};

Workload ParseWorkload(const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  if (parts.size() != 2) {
    std::fprintf(stderr, "transfer_bench: workload \"%s\" is not MODEL:DATASET\n",
                 text.c_str());
    std::exit(2);
  }
  return {parts[0], parts[1]};
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Ape(double predicted, double truth) {
  return 100 * std::abs(predicted - truth) / truth;
}

// `count` distinct random mode indices of `space`, not in `taken`.
std::vector<int64_t> DrawModes(const ModeSpace& space, int count,
                               std::set<int64_t>* taken, TwinRng* rng) {
  std::vector<int64_t> out;
  while (static_cast<int>(out.size()) < count) {
    const int64_t i = static_cast<int64_t>(rng->Next() % space.Size());
    if (taken->insert(i).second) out.push_back(i);
  }
  return out;
}

struct Observed {
  std::vector<Observation> time;
  std::vector<EnergyObservation> energy;
};

Observed Observe(const TwinTruth& twin, const ModeSpace& space,
                 const std::vector<int64_t>& modes, double sigma,
                 TwinRng* noise) {
  Observed o;
  for (int64_t i : modes) {
    const CustomMode m = *space.At(i);
    const ModePoint t = twin.At(m);
    const double time = t.time_s * noise->LogNormalUnitMean(sigma);
    const double energy = t.energy_j * noise->LogNormalUnitMean(sigma);
    o.time.push_back({m, time});
    o.energy.push_back({m, energy, time});
  }
  return o;
}

// Median APE of time and energy of `predictor` over `truth`.
std::pair<double, double> Errors(const Predictor& predictor,
                                 const std::vector<ModePoint>& truth) {
  std::vector<double> t, e;
  for (const ModePoint& p : truth) {
    absl::StatusOr<ModePrediction> pred = predictor.Predict(p.mode);
    if (!pred.ok()) continue;
    t.push_back(Ape(pred->time_s, p.time_s));
    e.push_back(Ape(pred->energy_j, p.energy_j));
  }
  return {Median(t), Median(e)};
}

// The flag's weights, or transfer.h's; empty after an error message.
std::vector<double> Weights(const std::vector<std::string>& text,
                            Target target) {
  if (text.empty()) return TransferWeights(target);
  std::vector<double> out;
  for (const std::string& t : text) {
    double w = 0;
    if (!absl::SimpleAtod(t, &w) || !(w > 0)) {
      std::fprintf(stderr, "transfer_bench: weight \"%s\" is not > 0\n",
                   t.c_str());
      return {};
    }
    out.push_back(w);
  }
  return out;
}

struct Cell {
  std::vector<double> transfer_time, transfer_energy, plain_time, plain_energy;
  int transfer_chosen = 0, fits = 0, plain_fits = 0;
};

std::string Pct(double v) {
  if (std::isnan(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

// "median (worst)" over the draws.
std::string MedianWorst(const std::vector<double>& v) {
  if (v.empty()) return "n/a";
  return Pct(Median(v)) + " (" + Pct(*std::max_element(v.begin(), v.end())) +
         ")";
}

int Run() {
  const std::string cls = absl::GetFlag(FLAGS_class);
  std::string ref_cls = absl::GetFlag(FLAGS_reference_class);
  if (ref_cls.empty()) ref_cls = cls;
  const Workload ref = ParseWorkload(absl::GetFlag(FLAGS_reference));
  std::vector<int> ks;
  for (absl::string_view k : absl::StrSplit(absl::GetFlag(FLAGS_ks), ',')) {
    int v = 0;
    if (!absl::SimpleAtoi(k, &v) || v < 2) {
      std::fprintf(stderr, "transfer_bench: --ks: \"%s\" is not an int >= 2\n",
                   std::string(k).c_str());
      return 2;
    }
    ks.push_back(v);
  }
  std::sort(ks.begin(), ks.end());
  const int batch = absl::GetFlag(FLAGS_batch);
  const std::vector<double> weights =
      Weights(absl::GetFlag(FLAGS_weights), Target::kTime);
  const std::vector<double> energy_weights =
      Weights(absl::GetFlag(FLAGS_energy_weights), Target::kEnergy);
  if (weights.empty() || energy_weights.empty()) return 2;
  const double sigma = absl::GetFlag(FLAGS_noise);
  const ModeSpace space(*FindBuiltInDeviceClass(cls));
  const ModeSpace ref_space(*FindBuiltInDeviceClass(ref_cls));
  std::printf("reference %s:%s on %s (%d modes, plain fit); new workloads on "
              "%s; batch %d; noise sigma %.3g; %d draws; error = median APE "
              "over %d held-out modes vs the twin's noiseless truth, median "
              "over the draws\n",
              ref.model.c_str(), ref.dataset.c_str(), ref_cls.c_str(),
              absl::GetFlag(FLAGS_reference_modes), cls.c_str(), batch, sigma,
              absl::GetFlag(FLAGS_seeds), absl::GetFlag(FLAGS_eval));
  std::printf("| workload | K | time, transfer | energy, transfer | time, "
              "plain | energy, plain | transfer chosen (draws) |\n|---|---|---|---|---"
              "|---|---|\n");
  std::map<int, Cell> overall;
  std::vector<double> ref_time_err, ref_energy_err;
  const std::vector<std::string> workloads =
      absl::StrSplit(absl::GetFlag(FLAGS_workloads), ',');
  for (const std::string& w_text : workloads) {
    const Workload w = ParseWorkload(w_text);
    absl::StatusOr<ModelCost> cost = ModelCostFor(w.model);
    absl::StatusOr<ModelCost> ref_cost = ModelCostFor(ref.model);
    if (!cost.ok() || !ref_cost.ok()) {
      std::fprintf(stderr, "transfer_bench: %s\n",
                   std::string((cost.ok() ? ref_cost : cost).status().message())
                       .c_str());
      return 2;
    }
    std::map<int, Cell> cells;
    for (int seed = 1; seed <= absl::GetFlag(FLAGS_seeds); ++seed) {
      TwinRng rng(MixSeed(seed, HashString(w_text)));
      // The reference's full profile, fitted plainly.
      const TwinTruth ref_twin(ref_cls, *ref_cost, ref.dataset, batch, seed);
      std::set<int64_t> ref_taken;
      const Observed ref_obs = Observe(
          ref_twin, ref_space,
          DrawModes(ref_space, absl::GetFlag(FLAGS_reference_modes),
                    &ref_taken, &rng),
          sigma, &rng);
      absl::StatusOr<ModelSelection> ref_time = SelectTimeModel(ref_obs.time);
      if (!ref_time.ok()) {
        std::fprintf(stderr, "reference time fit: %s\n",
                     std::string(ref_time.status().message()).c_str());
        return 1;
      }
      absl::StatusOr<ModelSelection> ref_energy =
          SelectEnergyModel(ref_obs.energy, ref_time->model, ref_obs.time);
      if (!ref_energy.ok()) {
        std::fprintf(stderr, "reference energy fit: %s\n",
                     std::string(ref_energy.status().message()).c_str());
        return 1;
      }
      {
        // The reference's own error on modes it was not fitted on.
        std::set<int64_t> seen = ref_taken;
        std::vector<ModePoint> ref_truth;
        for (int64_t i : DrawModes(ref_space, absl::GetFlag(FLAGS_eval),
                                   &seen, &rng)) {
          ref_truth.push_back(ref_twin.At(*ref_space.At(i)));
        }
        const auto [t_err, e_err] = Errors(
            *Predictor::Create(ref_time->model, ref_energy->model), ref_truth);
        ref_time_err.push_back(t_err);
        ref_energy_err.push_back(e_err);
      }
      // The new workload: nested profiles, one held-out set.
      const TwinTruth twin(cls, *cost, w.dataset, batch, seed);
      std::set<int64_t> taken;
      const std::vector<int64_t> pool =
          DrawModes(space, ks.back(), &taken, &rng);
      std::vector<ModePoint> truth;
      for (int64_t i : DrawModes(space, absl::GetFlag(FLAGS_eval), &taken,
                                 &rng)) {
        truth.push_back(twin.At(*space.At(i)));
      }
      const Observed all = Observe(twin, space, pool, sigma, &rng);
      for (int k : ks) {
        Observed o;
        if (absl::GetFlag(FLAGS_planned)) {
          absl::StatusOr<ProfilingPlan> plan =
              PlanProfiling(space, "overlap", k, "power_util_mem_x_time");
          if (!plan.ok()) {
            std::fprintf(stderr, "plan of %d modes: %s\n", k,
                         std::string(plan.status().message()).c_str());
            return 1;
          }
          o = Observe(twin, space, plan->indices, sigma, &rng);
        } else {
          o.time.assign(all.time.begin(), all.time.begin() + k);
          o.energy.assign(all.energy.begin(), all.energy.begin() + k);
        }
        Cell& cell = cells[k];
        absl::StatusOr<TransferSelection> tt =
            TransferTimeModel(o.time, ref_time->model, weights);
        if (tt.ok()) {
          absl::StatusOr<TransferSelection> te =
              TransferEnergyModel(o.energy, o.time, *tt, ref_energy->model,
                                  energy_weights);
          if (te.ok()) {
            const Predictor p =
                *Predictor::Create(tt->selection.model, te->selection.model);
            const auto [t_err, e_err] = Errors(p, truth);
            cell.transfer_time.push_back(t_err);
            cell.transfer_energy.push_back(e_err);
            cell.transfer_chosen += tt->transferred;
            ++cell.fits;
          } else {
            std::fprintf(stderr, "%s K=%d: %s\n", w_text.c_str(), k,
                         std::string(te.status().message()).c_str());
          }
        } else {
          std::fprintf(stderr, "%s K=%d: %s\n", w_text.c_str(), k,
                       std::string(tt.status().message()).c_str());
        }
        absl::StatusOr<ModelSelection> pt = SelectTimeModel(o.time);
        if (pt.ok()) {
          absl::StatusOr<ModelSelection> pe =
              SelectEnergyModel(o.energy, pt->model, o.time);
          if (pe.ok()) {
            const Predictor p = *Predictor::Create(pt->model, pe->model);
            const auto [t_err, e_err] = Errors(p, truth);
            cell.plain_time.push_back(t_err);
            cell.plain_energy.push_back(e_err);
            ++cell.plain_fits;
          }
        }
      }
    }
    for (int k : ks) {
      Cell& c = cells[k];
      std::printf("| %s | %d | %s | %s | %s | %s | %d of %d |\n",
                  w_text.c_str(), k, MedianWorst(c.transfer_time).c_str(),
                  MedianWorst(c.transfer_energy).c_str(),
                  MedianWorst(c.plain_time).c_str(),
                  MedianWorst(c.plain_energy).c_str(), c.transfer_chosen,
                  c.fits);
      std::fflush(stdout);
      Cell& all = overall[k];
      all.transfer_time.push_back(Median(c.transfer_time));
      all.transfer_energy.push_back(Median(c.transfer_energy));
      if (c.plain_fits > 0) {
        all.plain_time.push_back(Median(c.plain_time));
        all.plain_energy.push_back(Median(c.plain_energy));
      }
    }
  }
  std::printf("reference model on its own held-out modes: median APE time "
              "%s, energy %s (median over %zu fits)\n",
              Pct(Median(ref_time_err)).c_str(),
              Pct(Median(ref_energy_err)).c_str(), ref_time_err.size());
  for (auto& [k, c] : overall) {
    std::printf("| median over the workloads | %d | %s | %s | %s | %s | |\n",
                k, Pct(Median(c.transfer_time)).c_str(),
                Pct(Median(c.transfer_energy)).c_str(),
                Pct(Median(c.plain_time)).c_str(),
                Pct(Median(c.plain_energy)).c_str());
  }
  return 0;
}

}  // namespace
}  // namespace powersweep::modeling

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Prints how well new workloads are predicted from K profiled modes, "
      "with transfer from a reference workload's full profile and without, "
      "on twins.\nUsage: controller_modeling_transfer_bench [--class C] "
      "[--reference MODEL:DATASET] [--workloads ...] [--ks 3,5,10]");
  absl::ParseCommandLine(argc, argv);
  return powersweep::modeling::Run();
}
