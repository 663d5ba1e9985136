#include "agent/telemetry/baseload.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/util/seconds_to_nanos.h"

namespace powersweep {

absl::Status ValidateBaseload(const v1::RunSpec& spec) {
  const double d = spec.workload().duration_s();
  if (!(d > 0) || !std::isfinite(d)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.duration_s: a baseload run needs a positive duration, got ",
        d));
  }
  return absl::OkStatus();
}

absl::Status BaseloadRuntime::Start(const RuntimeSpec& spec,
                                    RecordCallback callback) {
  spec_ = spec;
  callback_ = std::move(callback);
  start_ns_ = clock_->MonotonicNanos();
  return absl::OkStatus();
}

ExitStatus BaseloadRuntime::Wait() {
  constexpr int64_t kStepNs = 50 * 1000 * 1000;
  const int64_t end_ns = start_ns_ + SecondsToNanos(duration_s_);
  const bool has_timeout = spec_.timeout_s > 0;
  const int64_t timeout_ns = start_ns_ + SecondsToNanos(spec_.timeout_s);
  ExitStatus status;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (cancelled_) {
        status.cancelled = true;
        status.cancel_reason = cancel_reason_;
        break;
      }
    }
    const int64_t now = clock_->MonotonicNanos();
    if (has_timeout && now >= timeout_ns && timeout_ns < end_ns) {
      status.timed_out = true;
      status.timeout_s = spec_.timeout_s;
      break;
    }
    if (now >= end_ns) {
      v1::WorkloadEvent e;
      e.mutable_finished()->set_elapsed_s((now - start_ns_) * 1e-9);
      e.mutable_finished()->set_stop_reason("duration");
      if (callback_) callback_(e);
      break;
    }
    clock_->SleepFor(absl::Nanoseconds(std::min(end_ns - now, kStepNs)));
  }
  status.wall_s = (clock_->MonotonicNanos() - start_ns_) * 1e-9;
  return status;
}

void BaseloadRuntime::Cancel(const std::string& reason) {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  cancel_reason_ = reason;
}

}  // namespace powersweep
