// RecordSink: where the workload's records go, one WorkloadEvent at a time.
//
// FdRecordSink writes each event as one line of protobuf JSON (ToJsonLine,
// proto field names) followed by '\n' to a file descriptor it does not own,
// retrying short writes and EINTR; a failed write (e.g. EPIPE when the
// agent went away; the binary ignores SIGPIPE) is kUnavailable naming the
// descriptor. MemoryRecordSink keeps the events (tests).
// Neither is thread-safe: the compute thread is the only writer.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_RECORD_SINK_H_
#define POWERSWEEP_WORKLOADS_RUNNER_RECORD_SINK_H_

#include <vector>

#include "absl/status/status.h"
#include "powersweep/v1/records.pb.h"

namespace powersweep {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual absl::Status Write(const ::powersweep::v1::WorkloadEvent& event) = 0;
};

class FdRecordSink : public RecordSink {
 public:
  explicit FdRecordSink(int fd) : fd_(fd) {}
  absl::Status Write(const ::powersweep::v1::WorkloadEvent& event) override;

 private:
  int fd_;
};

class MemoryRecordSink : public RecordSink {
 public:
  absl::Status Write(const ::powersweep::v1::WorkloadEvent& event) override {
    events.push_back(event);
    return absl::OkStatus();
  }
  std::vector<::powersweep::v1::WorkloadEvent> events;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_RECORD_SINK_H_
