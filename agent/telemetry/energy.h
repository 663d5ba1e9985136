// Energy of a run from its telemetry: time-weighted (trapezoid) integration
// of total power over the samples' timestamps, never an average of
// readings, and its split by phase (fetch stall vs compute) from the
// workload's minibatch records.
//
// The power trace is the piecewise-linear curve through the samples that
// carry a reading (power_mw > 0), in time order; samples without a reading
// are bridged. Integrals over sub-intervals interpolate on that curve, so
// every result is exact for piecewise-linear power and independent of the
// sampling grid. Nothing is extrapolated before the first or after the last
// reading. Provenance of a result: the least direct provenance among the
// samples used (measured < emulated < modeled < simulated).
//
// Phases: minibatch k (workload clock) ends at end = t_start_s + e2e_s; its
// compute interval is [end - compute_s, end] and its stall interval
// [end - compute_s - stall_s, end - compute_s]. The workload's clock starts
// later than the agent's run clock (process start-up), so records are
// shifted by an offset; EnergyAccumulator estimates it as the smallest
// (arrival time on the agent - end on the workload clock) over all records,
// which errs late by at most the pipe latency of the fastest record.
// stall_j and compute_j integrate power over the UNION of the stall and of
// the compute intervals respectively (the rest, e.g. start-up and record
// writing, is in neither).
//
// Functions are pure and thread-safe. EnergyAccumulator is thread-safe:
// samples and records may arrive on different threads.
#ifndef POWERSWEEP_AGENT_TELEMETRY_ENERGY_H_
#define POWERSWEEP_AGENT_TELEMETRY_ENERGY_H_

#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/records.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

// A closed time interval [first, second] in seconds.
using Interval = std::pair<double, double>;

struct PowerPoint {
  double t_s = 0;
  double power_mw = 0;
};

struct EnergyResult {
  double energy_j = 0;          // over [first_t_s, last_t_s]
  double stall_j = 0;
  double compute_j = 0;
  double first_t_s = 0;         // span covered by readings
  double last_t_s = 0;
  int samples = 0;              // samples with a power reading
  v1::Provenance provenance = v1::PROVENANCE_UNSPECIFIED;

  double covered_s() const { return last_t_s - first_t_s; }
  // Time-weighted mean power over the covered span; 0 without a span.
  double MeanPowerMw() const;
};

// Sorted, non-overlapping union of `intervals` (empty ones dropped).
std::vector<Interval> MergeIntervals(std::vector<Interval> intervals);

// Joules of the piecewise-linear trace `points` (sorted by t_s) over
// [a, b], clipped to the trace's span.
double IntegrateJoules(const std::vector<PowerPoint>& points, double a,
                       double b);

// Joules over the union of `intervals`.
double IntegrateJoulesOver(const std::vector<PowerPoint>& points,
                           const std::vector<Interval>& intervals);

// Stall and compute intervals of `records` on the agent's clock
// (workload time + offset_s); a CUDA copy (h2d_s) between the two is in
// neither, and warm-up minibatches are left out.
void PhaseIntervals(const std::vector<v1::MinibatchRecord>& records,
                    double offset_s, std::vector<Interval>* stall,
                    std::vector<Interval>* compute);

// The whole computation; `records` may be empty (then no phase split).
EnergyResult ComputeEnergy(const std::vector<v1::TelemetrySample>& samples,
                           const std::vector<v1::MinibatchRecord>& records,
                           double offset_s);

class EnergyAccumulator {
 public:
  void AddSample(const v1::TelemetrySample& sample);
  // `arrival_t_s`: when the agent received the record, on the run clock.
  void AddRecord(const v1::MinibatchRecord& record, double arrival_t_s);
  // Offset of the workload clock (see the header comment); 0 without
  // records.
  double WorkloadOffsetS() const;
  EnergyResult Result() const;

 private:
  // Only what the integral needs is kept (not whole samples), so a long
  // run at 100 Hz costs 16 bytes per sample.
  mutable absl::Mutex mu_;
  std::vector<PowerPoint> points_ ABSL_GUARDED_BY(mu_);
  int provenance_ ABSL_GUARDED_BY(mu_) = v1::PROVENANCE_UNSPECIFIED;
  std::vector<v1::MinibatchRecord> records_ ABSL_GUARDED_BY(mu_);
  bool have_offset_ ABSL_GUARDED_BY(mu_) = false;
  double offset_s_ ABSL_GUARDED_BY(mu_) = 0;
};

// Fills the energy fields of a run's result from `energy`: energy_j,
// energy_provenance, energy_stall_j, energy_compute_j, energy_span_s (all 0/UNSPECIFIED
// with fewer than two power readings); for a baseload run also
// baseload_power_mw (the time-weighted mean power). incremental_energy_j
// is left 0: the controller knows the device's baseload (RunSummary).
// agent_cpu_fraction = agent_cpu_s / wall_s (0 when wall_s <= 0).
void FillRunEnergy(const EnergyResult& energy, bool baseload,
                   double agent_cpu_s, double wall_s, v1::RunResult* result);

// CPU time (user + system) of the whole calling process so far, in
// seconds: every agent thread, not its children (the workload).
double ProcessCpuSeconds();

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TELEMETRY_ENERGY_H_
