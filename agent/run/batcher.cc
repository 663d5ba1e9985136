#include "agent/run/batcher.h"

#include <utility>

#include "agent/util/seconds_to_nanos.h"

namespace powersweep {

Batcher::Batcher(int64_t run_id, int32_t attempt, Clock* clock,
                 double interval_s, int max_records, Emit emit)
    : run_id_(run_id),
      attempt_(attempt),
      clock_(clock),
      interval_ns_(SecondsToNanos(interval_s)),
      max_records_(max_records > 0 ? max_records : 1),
      emit_(std::move(emit)) {}

void Batcher::NoteItemLocked() {
  if (opened_ns_ < 0) opened_ns_ = clock_->MonotonicNanos();
}

void Batcher::AddRecord(const v1::MinibatchRecord& record) {
  absl::MutexLock lock(&mu_);
  NoteItemLocked();
  *pending_.add_minibatches() = record;
  MaybeCutLocked();
}

void Batcher::AddSample(const v1::TelemetrySample& sample) {
  absl::MutexLock lock(&mu_);
  NoteItemLocked();
  *pending_.add_telemetry() = sample;
  MaybeCutLocked();
}

void Batcher::Flush() {
  absl::MutexLock lock(&mu_);
  if (opened_ns_ >= 0) CutLocked();
}

int64_t Batcher::batches() const {
  absl::MutexLock lock(&mu_);
  return seq_;
}

void Batcher::MaybeCutLocked() {
  if (pending_.minibatches_size() >= max_records_ ||
      clock_->MonotonicNanos() - opened_ns_ >= interval_ns_) {
    CutLocked();
  }
}

void Batcher::CutLocked() {
  pending_.set_run_id(run_id_);
  pending_.set_attempt(attempt_);
  pending_.set_seq(++seq_);
  v1::DataBatch out;
  out.Swap(&pending_);
  opened_ns_ = -1;
  emit_(out);
}

}  // namespace powersweep
