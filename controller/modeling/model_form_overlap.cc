#include "controller/modeling/model_form_overlap.h"

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

  std::vector<std::string> ParameterNames(const ActiveKnobs& k) const override {
    std::vector<std::string> names;
    names.push_back(k.cpu_freq ? "serial_cpu_gcycles" : "serial_s");
    if (k.cpu_freq) names.push_back("cpu_gcycles");
    if (k.gpu_freq) names.push_back("gpu_gcycles");
    if (k.mem_freq) names.push_back("mem_gcycles");
    names.push_back("overlap_p");
    return names;
  }

  bool ScalesWithValue(const ActiveKnobs& k, int i) const override {
    return i + 1 < static_cast<int>(ParameterNames(k).size());
  }

  double Evaluate(const ActiveKnobs& k, const ScaledMode& x,
                  const TimeEstimate&, const double* params) const override {
    double units[3];
    int n = 0;
    double p = 0;
    const double serial = Split(k, x, params, units, &n, &p);
    return serial + Norm(units, n, p);
  }

  void BusyShares(const ActiveKnobs& k, const ScaledMode& x,
                  const double* params, TimeEstimate* te) const override {
    te->gpu_busy_share = 1.0;
    te->mem_busy_share = 1.0;
    if (te->time_s <= 0) return;
    double units[3];
    int n = 0;
    double p = 0;
    Split(k, x, params, units, &n, &p);
    // The GPU and memory units are the last ones.
    const int first_gpu = k.cpu_freq ? 1 : 0;
    if (k.gpu_freq || k.mem_freq) {
      const double gpu = Norm(units + first_gpu, n - first_gpu, p);
      te->gpu_busy_share = std::clamp(gpu / te->time_s, 0.0, 1.0);
    }
    if (k.mem_freq) {
      te->mem_busy_share = std::clamp(units[n - 1] / te->time_s, 0.0, 1.0);
    }
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
        1 + (kMaxP - 1) /
                (1 + std::exp(-std::clamp(internal[n - 1], -700.0, 700.0)));
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

}  // namespace

std::unique_ptr<ModelForm> MakeOverlapForm() {
  return std::make_unique<OverlapForm>();
}

}  // namespace powersweep::modeling
