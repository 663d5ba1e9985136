// Session's sending side (session.h): the timer thread (heartbeats with
// the health check and the newest sample, resends of overdue spooled
// messages), the send queue and its sender thread, and the run's data as
// the executor hands it over (RunSink). The connection side is in
// session.cc.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/session/session.h"
#include "common/log.h"

namespace powersweep {

namespace {
// The timer thread wakes at least this often (heartbeats, overdue acks).
constexpr double kMaxTimerTick_s = 1.0;
// Queued spooled messages beyond this are dropped from the send queue
// (not from the spool): the ack timeout sends them again.
constexpr size_t kMaxQueued = 20000;

bool Spooled(const v1::AgentMessage& m) {
  return m.has_batch() || m.has_run_finished();
}
}  // namespace

void Session::TimerLoop() {
  int64_t next_heartbeat = clock_->MonotonicNanos();
  bool was_healthy = true;  // logs the health check's changes
  for (;;) {
    double interval_s, ack_timeout_s;
    int rounds;
    {
      absl::MutexLock lock(&mu_);
      const double tick_s =
          std::min({heartbeat_s_, ack_timeout_s_ / 4, kMaxTimerTick_s});
      const int64_t until_hb = next_heartbeat - clock_->MonotonicNanos();
      const absl::Duration wait = std::max(
          absl::ZeroDuration(),
          std::min(absl::Seconds(tick_s), absl::Nanoseconds(until_hb)));
      mu_.AwaitWithTimeout(absl::Condition(&shutdown_), wait);
      if (shutdown_) return;
      interval_s = heartbeat_s_;
      ack_timeout_s = ack_timeout_s_;
      rounds = resend_rounds_;
    }
    const int64_t now = clock_->MonotonicNanos();
    bool is_connected;
    {
      absl::MutexLock lock(&write_mu_);
      is_connected = stream_ != nullptr;
    }
    if (!is_connected) continue;
    if (now >= next_heartbeat) {
      next_heartbeat = now + static_cast<int64_t>(interval_s * 1e9);
      v1::AgentMessage hb;
      if (std::optional<v1::DeviceHealth> health = IdleHealthCheck()) {
        if (health->healthy() != was_healthy) {
          was_healthy = health->healthy();
          if (was_healthy) {
            PS_LOG(INFO) << "health check passes again";
          } else {
            PS_LOG(WARNING) << "health check failed: " << health->reason();
          }
        }
        *hb.mutable_heartbeat()->mutable_health() = *health;
      }
      hb.mutable_heartbeat()->set_spooled(
          static_cast<int64_t>(spool_->size()));
      std::optional<NewestSample> newest;
      if (config_.latest != nullptr) newest = config_.latest->Newest();
      // Built and queued under mu_, so it cannot overtake the RunFinished
      // that ends the run it names (OnRunFinished).
      absl::MutexLock lock(&mu_);
      hb.mutable_heartbeat()->set_current_run_id(reported_run_id_);
      hb.mutable_heartbeat()->set_current_attempt(reported_attempt_);
      // Live view: the device's newest sample (the run's while one runs,
      // else the idle health check's), never the same one twice.
      if (newest.has_value() &&
          newest->observed_mono_ns > latest_sent_mono_ns_) {
        latest_sent_mono_ns_ = newest->observed_mono_ns;
        *hb.mutable_heartbeat()->mutable_latest() = std::move(newest->sample);
      }
      Enqueue(std::move(hb));
    }
    const double timeout_s = ack_timeout_s * (1 << std::min(rounds, 3));
    std::vector<v1::AgentMessage> due =
        spool_->TakeDue(now, static_cast<int64_t>(timeout_s * 1e9));
    if (!due.empty()) {
      PS_LOG(WARNING) << due.size() << " spooled messages not acknowledged "
                      << "within " << timeout_s << " s; sending them again";
      {
        absl::MutexLock lock(&mu_);
        ++resend_rounds_;
      }
      for (v1::AgentMessage& m : due) Enqueue(std::move(m));
    }
  }
}

void Session::Enqueue(v1::AgentMessage msg) {
  absl::MutexLock lock(&out_mu_);
  if (Spooled(msg) && outq_.size() >= kMaxQueued) return;  // resent later
  outq_.push_back(std::move(msg));
}

void Session::SenderLoop() {
  for (;;) {
    v1::AgentMessage m;
    {
      absl::MutexLock lock(&out_mu_);
      out_mu_.Await(absl::Condition(
          +[](Session* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->out_mu_) {
            return s->sender_stop_ || !s->outq_.empty();
          },
          this));
      if (outq_.empty()) return;  // stopping and drained
      m = std::move(outq_.front());
      outq_.pop_front();
    }
    absl::MutexLock lock(&write_mu_);
    const bool sent = stream_ != nullptr && stream_->Write(m);
    // Spooled messages are replayed from the spool at the next connect;
    // a RunStarted is kept for it; heartbeats and replies are moot then.
    if (!sent && m.has_run_started()) unsent_started_ = m.run_started();
  }
}

void Session::SpoolAndQueue(const v1::AgentMessage& msg) {
  absl::Status st = spool_->Add(msg, clock_->MonotonicNanos());
  if (!st.ok()) {
    PS_LOG(ERROR) << "spool: " << st.message()
                  << " (kept in memory; lost if the agent restarts)";
    if (absl::IsInvalidArgument(st)) return;
  }
  absl::MutexLock lock(&mu_);
  if (msg.has_run_finished() &&
      msg.run_finished().result().run_id() == reported_run_id_) {
    reported_run_id_ = 0;  // heartbeats from now on report the agent idle
    reported_attempt_ = 0;
  }
  Enqueue(msg);
}

void Session::OnRunStarted(const v1::RunStarted& started) {
  v1::AgentMessage m;
  *m.mutable_run_started() = started;
  Enqueue(std::move(m));
}

void Session::OnBatch(const v1::DataBatch& batch) {
  v1::AgentMessage m;
  *m.mutable_batch() = batch;
  SpoolAndQueue(m);
}

void Session::OnRunFinished(const v1::RunFinished& finished) {
  v1::AgentMessage m;
  *m.mutable_run_finished() = finished;
  SpoolAndQueue(m);
}

}  // namespace powersweep
