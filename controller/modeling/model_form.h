// Model forms of powersweep's time and energy models: what a
// fitted model computes from a power mode, and with which parameters.
//
// Knobs are scaled before they enter a form: cores as a count, CPU, GPU and
// memory (EMC) frequency in GHz, so every feature is of order 1 and least
// squares is well conditioned. Below, n = cores, c = CPU GHz, g = GPU GHz,
// m = memory GHz.
//
// A knob that does not vary in the training data (e.g. a class with no GPU
// table, where every mode has gpu_freq_hz 0, or a sweep that keeps all
// cores online) is dropped: every term that uses it leaves the design, so it
// cannot make the fit singular; the model then assumes the knob does not
// matter. The constant term stays.
//
// Time forms (epoch time in seconds):
//   "linear"            the SIGMETRICS paper: c, n, g, m, 1
//   "reciprocal"        1/c, 1/n, 1/g, 1/m, 1   (time ~ work / clock)
//   "reciprocal_cross"  reciprocal plus 1/(n*c) (CPU work spread over cores)
//   "combined"          linear and reciprocal together (9 terms)
//   "overlap"           nonlinear, 5 parameters:
//                         t = S/c + ( (C/c)^p + (G/g)^p + (M/m)^p )^(1/p)
//                       S, C, G, M >= 0 are work in giga-cycles per epoch
//                       (serial CPU work; CPU, GPU and memory work that
//                       overlap), p in [1, 16] how well they overlap (1 =
//                       not at all, the sum; large = perfectly, the max).
//                       Why: a DNN step keeps the CPU (kernel launches), the
//                       GPU and DRAM busy at once, so its time is set by
//                       the slowest of them; on a small network (LeNet-5)
//                       which one that is changes across the space and no
//                       sum of 1/f terms fits both regimes (see
//                       controller/modeling/README.md). Units whose knob does
//                       not vary leave the norm (S becomes a constant if the
//                       CPU frequency does not vary); needs at least two
//                       varying frequency knobs. Cores do not enter.
//
// Energy forms (epoch energy in joules). They take the time model's
// prediction at the mode as an input (TimeEstimate):
//   "paper"             E = c, n, g, m, 1, t_pred   (the SIGMETRICS form)
//   "power_x_time"      P = 1, n, c, g, m  fitted to the measured power
//                       (energy / time of each run); E = P_pred * t_pred
//   "power_util_x_time" P = 1, n, c^2, g*u, g^2*u, m, with u the GPU busy
//                       share the time model predicts (dynamic power ~ f V^2
//                       with V rising with f, times activity);
//                       E = P_pred * t_pred
//   "power_util_mem_x_time"
//                       P = 1, n, c^2, g^2*u, m, m*u_mem, with u_mem the
//                       DRAM busy share the time model predicts: the memory
//                       controller's power follows its traffic, which a
//                       network whose CPU side waits on DRAM (LeNet-5 on
//                       the calibrated twin) makes large where the GPU is
//                       idle; E = P_pred * t_pred. Six coefficients, like
//                       power_util_x_time (g*u gives way to m*u_mem).
//
// Forms are immutable singletons; everything here is thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_MODEL_FORM_H_
#define POWERSWEEP_CONTROLLER_MODELING_MODEL_FORM_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/power/mode_space.h"

namespace powersweep::modeling {

// One measured value at one mode: epoch time (s) for time models.
struct Observation {
  CustomMode mode;
  double value = 0;
};

// One run's epoch energy and the epoch time measured in the same run (power
// = energy_j / time_s).
struct EnergyObservation {
  CustomMode mode;
  double energy_j = 0;
  double time_s = 0;
};

// Which knobs vary in a set of modes.
struct ActiveKnobs {
  bool cores = false;
  bool cpu_freq = false;
  bool gpu_freq = false;
  bool mem_freq = false;
  bool operator==(const ActiveKnobs& o) const {
    return cores == o.cores && cpu_freq == o.cpu_freq &&
           gpu_freq == o.gpu_freq && mem_freq == o.mem_freq;
  }
};
ActiveKnobs KnobsThatVary(const std::vector<CustomMode>& modes);
// "cpu_cores, cpu_freq_khz, gpu_freq_hz, mem_freq_hz" (the varying ones),
// "none" when nothing varies.
std::string KnobsToString(const ActiveKnobs& knobs);

// Knob values as the forms use them.
struct ScaledMode {
  double cores = 0;
  double cpu_ghz = 0;
  double gpu_ghz = 0;
  double mem_ghz = 0;
};
ScaledMode Scale(const CustomMode& mode);
// "cores=8 cpu=2265600kHz gpu=1377000000Hz mem=2133000000Hz".
std::string ModeToString(const CustomMode& mode);
// InvalidArgument when a knob in `knobs` is 0 or negative in `mode` (the
// forms need the actual value; 0 means "as the device has it").
absl::Status CheckModeForKnobs(const CustomMode& mode, const ActiveKnobs& knobs);

// What energy forms take from the time model at a mode.
struct TimeEstimate {
  double time_s = 0;
  // Predicted fraction of the epoch the GPU is busy, in [0, 1]. "overlap":
  // the norm of the GPU and memory units over t; reciprocal forms: the
  // positive contributions of 1/g and 1/m over t; forms without such terms
  // ("linear"): 1.
  double gpu_busy_share = 1;
  // Predicted fraction of the epoch DRAM is busy, in [0, 1]. "overlap": the
  // memory unit (M/m) over t; reciprocal forms: the positive 1/m
  // contribution over t; forms without such a term: 1.
  double mem_busy_share = 1;
};

enum class Target { kTime, kEnergy };

class ModelForm {
 public:
  virtual ~ModelForm() = default;

  virtual const std::string& name() const = 0;
  virtual Target target() const = 0;
  // True: value = Features . coefficients (ordinary least squares).
  virtual bool linear() const = 0;
  // Energy forms: true when the form models power (fitted to energy / time
  // of each run) and energy is power x predicted time.
  virtual bool models_power() const { return false; }

  // FailedPrecondition when the form cannot be used with these knobs.
  virtual absl::Status Applicable(const ActiveKnobs& knobs) const;
  // Parameter (coefficient) names for data where `knobs` vary, e.g.
  // "1/cpu_ghz", "const".
  virtual std::vector<std::string> ParameterNames(
      const ActiveKnobs& knobs) const = 0;

  // Linear forms only: the feature row (ParameterNames().size() values).
  virtual void Features(const ActiveKnobs& knobs, const ScaledMode& x,
                        const TimeEstimate& t, double* row) const;
  // The form's value (time s, energy J, or power W if models_power()).
  virtual double Evaluate(const ActiveKnobs& knobs, const ScaledMode& x,
                          const TimeEstimate& t, const double* params) const;
  // Time forms: the predicted GPU and DRAM busy shares at x, given
  // te->time_s (see TimeEstimate).
  virtual void BusyShares(const ActiveKnobs& knobs, const ScaledMode& x,
                          const double* params, TimeEstimate* te) const;

  // Whether parameter k scales with the form's value (work, seconds, watts:
  // a workload twice as slow has it twice as large). Transfer (transfer.h)
  // scales these of a reference model. All of them but overlap's p.
  virtual bool ScalesWithValue(const ActiveKnobs& knobs, int k) const;

  // Nonlinear forms: an unconstrained internal parametrization for the
  // solver, and starting points (in natural parameters) for data (xs, ys).
  virtual void ToInternal(const double* natural, double* internal,
                          int n) const;
  virtual void ToNatural(const double* internal, double* natural,
                         int n) const;
  virtual std::vector<std::vector<double>> StartingPoints(
      const ActiveKnobs& knobs, const std::vector<ScaledMode>& xs,
      const std::vector<double>& ys) const;
};

// nullptr when unknown.
const ModelForm* FindForm(const std::string& name);
// InvalidArgument naming the form and the known ones of that target.
absl::Status CheckForm(const std::string& name, Target target);
// In the order model selection reports them.
std::vector<std::string> TimeFormNames();    // linear, reciprocal, ...
std::vector<std::string> EnergyFormNames();  // paper, power_x_time, ...

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_MODEL_FORM_H_
