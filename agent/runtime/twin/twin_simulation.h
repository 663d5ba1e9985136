// TwinSimulation: the timeline of one simulated run, generated lazily in
// simulated time (no clock, no threads): a start-up phase (data set read
// and decode, or folder listing; CUDA init), then minibatches from
// PerfModel::Draw (image folders read the uncached part of the split from
// storage in epoch 0, later as PerfModel::ColdFraction says) until a stop
// condition holds (checked after each minibatch, as the real workload
// does), then the finished event. Telemetry samples (when telemetry_hz > 0)
// are taken at t = 0, k / telemetry_hz (k = 1, 2, ...) and at the end of
// the run, each with the load of the phase running at that instant and the
// power of the power model. A run longer than timeout_s (simulated) ends at
// timeout_s with a last sample and no finished event.
//
// Records and samples carry simulated seconds on one clock, the run's:
// t_s and t_start_s both count from the run start (a twin has no separate
// workload process whose clock starts later), so a record's end
// t_start_s + e2e_s lines up exactly with the samples. The first record of
// each epoch carries page_cache_resident (PerfModel::ResidentFraction). The
// first record
// starts at startup_s(); WorkloadFinished.elapsed_s counts from there, as
// the real workload's timing does. Sequence models' records carry tokens as
// the workload's do; gpt2_small's inference records also carry its time to
// first token and per-token latency, its compute split by MACs between the
// prompt's pass and the decode steps (modeled).
// energy_j() is the trapezoid integral of the samples' total power over
// their t_s (when telemetry_hz <= 0 the trace is still computed at 10 Hz,
// only not emitted).
//
// Deterministic: the same config gives the same events. Not thread-safe.
#ifndef POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_SIMULATION_H_
#define POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_SIMULATION_H_

#include <cstdint>

#include "agent/platform/twin/perf_model.h"
#include "agent/platform/twin/twin_class.h"
#include "agent/platform/twin/twin_random.h"
#include "powersweep/v1/records.pb.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

// Resident memory of the simulated workload process.
inline constexpr int64_t kTwinWorkloadRssBytes = int64_t{450} << 20;

struct TwinSimulationConfig {
  const PerfModel* perf = nullptr;  // must outlive the simulation
  OperatingPoint op;                // resolved (non-zero knobs)
  TwinWorkloadShape shape;
  int epochs = 0;                   // stop conditions; 0 = unused
  int64_t minibatches = 0;
  double duration_s = 0;
  double timeout_s = 0;             // simulated; <= 0: none
  double telemetry_hz = 10;         // <= 0: no samples emitted
  uint64_t noise_seed = 0;
  double cached_at_start = 0;       // fraction of the split in the page cache
};

struct TwinEvent {
  enum Kind { kSample, kMinibatch, kFinished };
  Kind kind = kSample;
  double t_s = 0;  // simulated seconds since the run start
  v1::TelemetrySample sample;
  v1::MinibatchRecord record;
  v1::WorkloadFinished finished;
  PhaseLoad load;  // the load at t_s (samples) or over the minibatch
};

class TwinSimulation {
 public:
  explicit TwinSimulation(TwinSimulationConfig config);

  // The next event in time order; false when the run is over.
  bool Next(TwinEvent* event);

  double startup_s() const { return startup_s_; }
  double energy_j() const { return energy_j_; }
  double now_s() const { return now_s_; }  // time of the last event
  bool timed_out() const { return timed_out_; }
  double cpu_s() const { return cpu_s_; }  // simulated process CPU time
  int64_t minibatches_done() const { return done_; }

 private:
  enum class State { kRunning, kEnding, kDone };
  void DrawMinibatch();
  bool StopAfter(int64_t done, double timing_elapsed_s) const;
  void MakeSample(double t_s, const PhaseLoad& load, TwinEvent* event);
  void MakeEnd(double t_s, TwinEvent* event);

  const TwinSimulationConfig config_;
  const double sample_hz_;
  const bool emit_samples_;
  const int64_t batches_per_epoch_;
  double startup_s_ = 0;
  TwinRng rng_;

  State state_ = State::kRunning;
  bool start_sample_done_ = false;
  int64_t next_sample_k_ = 1;
  int64_t done_ = 0;            // minibatches emitted
  MinibatchTiming pending_;     // the minibatch in progress
  double pending_start_s_ = 0;  // its start on the workload clock
  PhaseLoad pending_load_;
  double end_s_ = 0;            // run end (set in kEnding)
  bool end_sample_done_ = false;
  bool timed_out_ = false;

  double now_s_ = 0;
  double cpu_s_ = 0;
  double energy_j_ = 0;
  bool have_last_power_ = false;
  double last_t_s_ = 0;
  double last_power_mw_ = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_SIMULATION_H_
