// PerfEvent and PerfRing: thin owners of what perf_event_open(2) gives,
// for the kernel tracer (agent/trace/kernel_tracer.h).
//
// PerfEvent::Open wraps the system call (close-on-exec); errors are
// statuses naming `what` and the errno's meaning, with a hint where the
// kernel's policy is the cause (EACCES/EPERM: perf_event_paranoid and
// root; ENOENT/EINVAL: the event does not exist on this kernel).
// ReadCount() reads a counting event (read_format 0): with attr.inherit
// the count includes the tasks it was inherited by.
// RedirectTo(owner) sends this event's records to `owner`'s ring buffer
// (PERF_EVENT_IOC_SET_OUTPUT; both on the same CPU).
//
// PerfRing maps an event's ring buffer (one metadata page and 2^n data
// pages) and Drain() hands each record written since the previous Drain to
// a callback, in order, copying the ones that wrap around the end, then
// gives the space back to the kernel. Not thread-safe: one reader.
#ifndef POWERSWEEP_AGENT_TRACE_PERF_EVENT_H_
#define POWERSWEEP_AGENT_TRACE_PERF_EVENT_H_

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace powersweep {

class PerfEvent {
 public:
  PerfEvent() = default;
  ~PerfEvent();
  PerfEvent(PerfEvent&& other) noexcept;
  PerfEvent& operator=(PerfEvent&& other) noexcept;
  PerfEvent(const PerfEvent&) = delete;
  PerfEvent& operator=(const PerfEvent&) = delete;

  static absl::StatusOr<PerfEvent> Open(perf_event_attr attr, pid_t pid,
                                        int cpu, absl::string_view what);

  absl::StatusOr<uint64_t> ReadCount() const;
  absl::Status RedirectTo(const PerfEvent& owner) const;
  absl::Status Disable() const;
  int fd() const { return fd_; }

 private:
  explicit PerfEvent(int fd) : fd_(fd) {}
  int fd_ = -1;
};

class PerfRing {
 public:
  using RecordFn =
      std::function<void(const perf_event_header& header, const uint8_t* body,
                          size_t body_size)>;
  PerfRing() = default;
  ~PerfRing();
  PerfRing(PerfRing&& other) noexcept;
  PerfRing& operator=(PerfRing&& other) noexcept;
  PerfRing(const PerfRing&) = delete;
  PerfRing& operator=(const PerfRing&) = delete;

  // data_pages must be a power of two.
  static absl::StatusOr<PerfRing> Map(const PerfEvent& event, int data_pages);
  // The records written since the last call; returns how many.
  int64_t Drain(const RecordFn& on_record);
  int fd() const { return fd_; }

 private:
  void* base_ = nullptr;
  size_t mapped_bytes_ = 0;
  size_t data_bytes_ = 0;
  size_t data_offset_ = 0;
  int fd_ = -1;
  std::vector<uint8_t> wrap_;  // a record that wrapped, copied whole
};

// The CPUs perf may be opened on (/sys/devices/system/cpu/online), or
// 0..sysconf(_SC_NPROCESSORS_CONF)-1 when that cannot be read.
std::vector<int> OnlineCpus();

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TRACE_PERF_EVENT_H_
