#include "agent/runtime/recording_sink.h"

namespace powersweep {

void RecordingSink::OnRunStarted(const v1::RunStarted& started) {
  absl::MutexLock lock(&mu_);
  started_.push_back(started);
  if (!started_note_.HasBeenNotified()) started_note_.Notify();
}

void RecordingSink::OnBatch(const v1::DataBatch& batch) {
  absl::MutexLock lock(&mu_);
  batches_.push_back(batch);
}

void RecordingSink::OnRunFinished(const v1::RunFinished& finished) {
  absl::MutexLock lock(&mu_);
  finished_.push_back(finished);
}

bool RecordingSink::AwaitStarted(absl::Duration timeout) {
  return started_note_.WaitForNotificationWithTimeout(timeout);
}

std::vector<v1::RunStarted> RecordingSink::started() const {
  absl::MutexLock lock(&mu_);
  return started_;
}

std::vector<v1::DataBatch> RecordingSink::batches() const {
  absl::MutexLock lock(&mu_);
  return batches_;
}

std::vector<v1::RunFinished> RecordingSink::finished() const {
  absl::MutexLock lock(&mu_);
  return finished_;
}

std::vector<v1::MinibatchRecord> RecordingSink::Records() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::MinibatchRecord> out;
  for (const v1::DataBatch& b : batches_) {
    out.insert(out.end(), b.minibatches().begin(), b.minibatches().end());
  }
  return out;
}

std::vector<v1::TelemetrySample> RecordingSink::Samples() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::TelemetrySample> out;
  for (const v1::DataBatch& b : batches_) {
    out.insert(out.end(), b.telemetry().begin(), b.telemetry().end());
  }
  return out;
}

}  // namespace powersweep
