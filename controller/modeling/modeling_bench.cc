// modeling_bench: how long predicting every mode of the Xavier AGX space
// (29,232 modes) takes compared with merely enumerating it, for each time
// form (with the power_util_x_time energy model and 90% intervals). A figure,
// not a test: it prints, it asserts nothing.
//
// Models are fitted to synthetic observations (a known overlap-form time and
// a power model) at 12 planned modes; only the prediction cost matters here.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/power/mode_space.h"
#include "controller/modeling/fit.h"
#include "controller/modeling/plan.h"
#include "controller/modeling/predict.h"

namespace powersweep::modeling {
namespace {

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

double SyntheticTime(const CustomMode& m) {
  const ScaledMode x = Scale(m);
  const double a = 40 / x.cpu_ghz, b = 30 / x.gpu_ghz, c = 8 / x.mem_ghz;
  return 10 / x.cpu_ghz +
         std::pow(std::pow(a, 6) + std::pow(b, 6) + std::pow(c, 6), 1.0 / 6);
}

double SyntheticPower(const CustomMode& m) {
  const ScaledMode x = Scale(m);
  return 5 + 0.08 * x.cores + 0.7 * x.cpu_ghz * x.cpu_ghz +
         6 * x.gpu_ghz * x.gpu_ghz + 0.5 * x.mem_ghz;
}

int Run() {
  const ModeSpace space(*FindBuiltInDeviceClass("xavier-agx"));
  std::printf("modeling_bench: %s, %lld modes\n", space.spec().name.c_str(),
              static_cast<long long>(space.Size()));

  // Enumerating only (best of 5).
  double enumerate_s = 1e9;
  int64_t checksum = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<CustomMode> modes;
    modes.reserve(space.Size());
    space.ForEach([&](const CustomMode& m) {
      modes.push_back(m);
      return true;
    });
    enumerate_s = std::min(enumerate_s,
                           Seconds(std::chrono::steady_clock::now() - t0));
    checksum += modes.back().cpu_cores;
  }

  for (const std::string& form : TimeFormNames()) {
    absl::StatusOr<ProfilingPlan> plan =
        PlanProfiling(space, form, 12, "power_util_x_time");
    if (!plan.ok()) {
      std::printf("  %s: %s\n", form.c_str(),
                  std::string(plan.status().message()).c_str());
      continue;
    }
    std::vector<Observation> time_obs;
    std::vector<EnergyObservation> energy_obs;
    for (const CustomMode& m : plan->modes) {
      const double t = SyntheticTime(m);
      time_obs.push_back({m, t});
      energy_obs.push_back({m, SyntheticPower(m) * t, t});
    }
    absl::StatusOr<FittedModel> time = FitTimeModel(form, time_obs);
    if (!time.ok()) {
      std::printf("  %s: %s\n", form.c_str(),
                  std::string(time.status().message()).c_str());
      continue;
    }
    absl::StatusOr<FittedModel> energy =
        FitEnergyModel("power_util_x_time", energy_obs, *time);
    absl::StatusOr<Predictor> predictor =
        Predictor::Create(*time, energy.ok() ? std::optional(*energy)
                                             : std::nullopt);
    if (!predictor.ok()) return 1;
    double predict_s = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      absl::StatusOr<std::vector<ModePrediction>> all =
          predictor->PredictSpace(space);
      predict_s =
          std::min(predict_s, Seconds(std::chrono::steady_clock::now() - t0));
      if (!all.ok()) return 1;
      checksum += static_cast<int64_t>(all->back().time_s);
    }
    std::printf(
        "  time form %-16s + energy: predict all %.2f ms (%.0f ns/mode), "
        "enumerate %.2f ms, ratio %.1fx\n",
        form.c_str(), predict_s * 1e3, predict_s * 1e9 / space.Size(),
        enumerate_s * 1e3, predict_s / enumerate_s);
  }
  std::printf("(checksum %lld)\n", static_cast<long long>(checksum));
  return 0;
}

}  // namespace
}  // namespace powersweep::modeling

int main() { return powersweep::modeling::Run(); }
