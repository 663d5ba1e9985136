// Batcher: groups one attempt of a run's minibatch records and telemetry
// samples into DataBatches numbered 1, 2, ..., each carrying the run id and
// the attempt (RunSpec.attempt) it belongs to. A batch is cut when an item is added and
// either the batch holds `max_records` minibatch records or its first item
// was added `interval_s` or more ago (Clock time); Flush() cuts what is left
// at the end of the run. Batches are emitted in sequence order.
//
// Thread safety: all methods are thread-safe (records arrive on the
// runtime's reader thread, samples on the sampler thread). `emit` is called
// with the internal lock held, so it must not call back into the Batcher.
#ifndef POWERSWEEP_AGENT_RUN_BATCHER_H_
#define POWERSWEEP_AGENT_RUN_BATCHER_H_

#include <cstdint>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "powersweep/v1/agent_gateway.pb.h"
#include "powersweep/v1/records.pb.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

class Batcher {
 public:
  using Emit = std::function<void(const v1::DataBatch&)>;
  Batcher(int64_t run_id, int32_t attempt, Clock* clock, double interval_s,
          int max_records, Emit emit);

  void AddRecord(const v1::MinibatchRecord& record);
  void AddSample(const v1::TelemetrySample& sample);
  void Flush();
  // Number of batches emitted so far (= the last sequence number).
  int64_t batches() const;

 private:
  void MaybeCutLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CutLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NoteItemLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int64_t run_id_;
  const int32_t attempt_;
  Clock* const clock_;
  const int64_t interval_ns_;
  const int max_records_;
  const Emit emit_;

  mutable absl::Mutex mu_;
  v1::DataBatch pending_ ABSL_GUARDED_BY(mu_);
  int64_t opened_ns_ ABSL_GUARDED_BY(mu_) = -1;  // -1: pending is empty
  int64_t seq_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_BATCHER_H_
