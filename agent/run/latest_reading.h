// LatestReading: the device's newest telemetry sample, the one place the
// agent keeps it. Observe() is called with every sample the agent takes:
// the run samples (RunExecutorConfig::on_sample) and the platform's
// samples, idle health checks included (ObservedPlatform). Two readers:
// the session's heartbeat sends the newest sample to the controller
// (Heartbeat.latest, for `powersweep top`), and the /metrics page shows
// the values of Get().
//
// Observe copies the sample into the one kept (protobuf reuses the kept
// message's storage, so after the first few samples a copy allocates
// nothing); Get() and Newest() copy it out.
//
// Thread-safe (one mutex, held only to copy a sample in or out).
#ifndef POWERSWEEP_AGENT_RUN_LATEST_READING_H_
#define POWERSWEEP_AGENT_RUN_LATEST_READING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

// What the /metrics page shows of the newest sample.
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

struct NewestSample {
  v1::TelemetrySample sample;
  int64_t observed_mono_ns = 0;  // Clock::MonotonicNanos() when it came
};

class LatestReading {
 public:
  // `clock` must outlive this.
  explicit LatestReading(Clock* clock) : clock_(clock) {}

  // Keeps `sample` as the newest, unless it has no power, rail,
  // temperature or clock reading (then the previous one stays). `count`:
  // adds it to Reading::samples (the run samples do; the platform's, which
  // a native run's sampler also passes on, do not, so none counts twice).
  void Observe(const v1::TelemetrySample& sample, bool count);
  Reading Get() const;
  // The newest sample kept; nullopt before the first.
  std::optional<NewestSample> Newest() const;

 private:
  Clock* const clock_;
  mutable absl::Mutex mu_;
  bool present_ ABSL_GUARDED_BY(mu_) = false;
  int64_t samples_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t observed_mono_ns_ ABSL_GUARDED_BY(mu_) = 0;
  v1::TelemetrySample sample_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_LATEST_READING_H_
