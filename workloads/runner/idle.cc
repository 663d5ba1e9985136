#include "workloads/runner/idle.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "workloads/runner/environment.h"

namespace powersweep {

absl::Status RunIdle(double duration_s, Clock* clock, RecordSink* sink) {
  if (!(duration_s > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--duration-s: idle needs a positive duration, got ", duration_s));
  }
  v1::WorkloadEvent started;
  *started.mutable_started() = CollectProvenance(1);
  absl::Status st = sink->Write(started);
  if (!st.ok()) return st;
  const int64_t t0 = clock->MonotonicNanos();
  clock->SleepFor(absl::Seconds(duration_s));
  v1::WorkloadEvent finished;
  finished.mutable_finished()->set_stop_reason("duration");
  finished.mutable_finished()->set_elapsed_s(
      static_cast<double>(clock->MonotonicNanos() - t0) * 1e-9);
  return sink->Write(finished);
}

}  // namespace powersweep
