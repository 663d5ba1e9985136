// LatestReading: the device's newest telemetry, kept for the agent's
// /metrics page. Observe() is called with every sample the agent takes
// (the run samples, through RunExecutorConfig::on_sample, and the
// platform's samples of the idle health checks, through ObservedPlatform)
// and keeps only what the page shows: total power and its provenance,
// rails, temperatures, the CPU (highest of the sampled cores), GPU and
// memory (EMC) clocks, GPU utilization, and when it came. Nothing is
// encoded or allocated beyond copying those few values.
//
// Thread-safe (one mutex, held only to copy the values in or out).
#ifndef POWERSWEEP_AGENT_METRICS_LATEST_READING_H_
#define POWERSWEEP_AGENT_METRICS_LATEST_READING_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

struct Reading {
  bool present = false;          // false until the first sample
  int64_t observed_mono_ns = 0;  // Clock::MonotonicNanos() when it came
  int64_t samples = 0;           // run samples observed so far
  double power_w = 0;            // 0 when the sample had none
  v1::Provenance power_provenance = v1::PROVENANCE_UNSPECIFIED;
  struct Rail {
    std::string name;
    double power_w = 0;
    v1::Provenance provenance = v1::PROVENANCE_UNSPECIFIED;
  };
  std::vector<Rail> rails;
  std::vector<std::pair<std::string, double>> temperatures_c;
  int64_t cpu_freq_hz = 0;  // highest of the sampled cores; 0 unknown
  int64_t gpu_freq_hz = 0;
  int64_t mem_freq_hz = 0;
  double gpu_util = 0;
};

class LatestReading {
 public:
  // `clock` must outlive this.
  explicit LatestReading(Clock* clock) : clock_(clock) {}

  // Keeps `sample`'s values (a sample without any power, rail,
  // temperature or clock reading keeps the previous ones). `count`: adds
  // it to Reading::samples (the run samples do; the platform's, which a
  // native run's sampler also passes on, do not, so none counts twice).
  void Observe(const v1::TelemetrySample& sample, bool count);
  Reading Get() const;

 private:
  Clock* const clock_;
  mutable absl::Mutex mu_;
  Reading reading_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_METRICS_LATEST_READING_H_
