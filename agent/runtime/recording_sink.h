// RecordingSink: a RunSink for tests that keeps every message of a run
// (RunStarted, DataBatches, RunFinished) in the order given. The accessors
// return copies; Records() and Samples() flatten the batches' minibatch
// records and telemetry samples. AwaitStarted waits (bounded) for the
// RunStarted, for tests that act while a run is going.
//
// Built into powersweep_agent_testing, which only tests link. Thread-safe:
// the executor calls it from its threads while a test reads it.
#ifndef POWERSWEEP_AGENT_RUNTIME_RECORDING_SINK_H_
#define POWERSWEEP_AGENT_RUNTIME_RECORDING_SINK_H_

#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "agent/runtime/run_sink.h"

namespace powersweep {

class RecordingSink : public RunSink {
 public:
  void OnRunStarted(const v1::RunStarted& started) override;
  void OnBatch(const v1::DataBatch& batch) override;
  void OnRunFinished(const v1::RunFinished& finished) override;

  // True once OnRunStarted was called; false after `timeout` without.
  bool AwaitStarted(absl::Duration timeout);

  std::vector<v1::RunStarted> started() const;
  std::vector<v1::DataBatch> batches() const;
  std::vector<v1::RunFinished> finished() const;
  std::vector<v1::MinibatchRecord> Records() const;
  std::vector<v1::TelemetrySample> Samples() const;

 private:
  absl::Notification started_note_;
  mutable absl::Mutex mu_;
  std::vector<v1::RunStarted> started_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::DataBatch> batches_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::RunFinished> finished_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_RECORDING_SINK_H_
