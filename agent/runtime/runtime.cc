#include "agent/runtime/runtime.h"

#include <chrono>
#include <thread>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "agent/runtime/record_line.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/log.h"

namespace powersweep {

std::string ExitStatus::FailureReason() const {
  if (cancelled) return absl::StrCat("cancelled: ", cancel_reason);
  if (timed_out && simulated_time) {
    return absl::StrFormat(
        "timed out after %g s of simulated time (%.1f s of wall time)",
        timeout_s, wall_s);
  }
  if (timed_out) return absl::StrFormat("timed out after %g s", timeout_s);
  std::string tail =
      last_stderr_line.empty() ? "" : absl::StrCat(": ", last_stderr_line);
  if (term_signal != 0) {
    return absl::StrCat("workload killed by signal ", term_signal, tail);
  }
  if (exit_code != 0) {
    return absl::StrCat("workload exited with code ", exit_code, tail);
  }
  return "";
}

// How long the record reader lets lines accumulate after a read: at most
// ten wake-ups a second, whatever the minibatch rate. (Each wake-up costs
// more than parsing a few lines.) Delivery is late by up to this much; the
// records' own times are what is stored, and the energy split aligns them
// by the smallest delivery lag seen (agent/telemetry/energy.h).
constexpr int kRecordBatchMs = 100;

void WidenRecordPipe(int fd) {
  // The default 64 KiB holds ~300 lines; 1 MiB is the unprivileged limit
  // (/proc/sys/fs/pipe-max-size) on stock kernels.
  (void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
}

void ReadRecordLines(int fd, const std::string& source,
                     const Runtime::RecordCallback& callback,
                     std::atomic<int>* bad_lines) {
  std::string buf;
  char chunk[65536];
  v1::WorkloadEvent event;  // reused: keeps its allocations between lines
  auto deliver = [&](absl::string_view line) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) return;
    absl::Status st = ParseRecordLine(line, &event);
    if (!st.ok()) {
      if ((*bad_lines)++ < 3) {
        PS_LOG(WARNING) << source << ": record line did not parse ("
                        << st.message() << "): " << line.substr(0, 200);
      }
      return;
    }
    callback(event);
  };
  while (true) {
    ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos;
         start = nl + 1) {
      deliver(absl::string_view(buf).substr(start, nl - start));
    }
    buf.erase(0, start);
    // A workload writes a line per minibatch (hundreds a second for small
    // models): let them accumulate instead of waking for each.
    if (static_cast<size_t>(n) < sizeof(chunk)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kRecordBatchMs));
    }
  }
  deliver(buf);  // a last line without newline
  close(fd);
}

RunRuntimeFactory NativeOnly(RuntimeFactory make) {
  return [make = std::move(make)](const v1::RunSpec& spec, int)
             -> absl::StatusOr<std::unique_ptr<Runtime>> {
    if (spec.runtime() == v1::RUNTIME_CONTAINER) {
      return absl::FailedPreconditionError(
          "runtime: this agent has no container engine (start it with "
          "--container_images and a running Docker engine)");
    }
    if (spec.runtime() == v1::RUNTIME_VM ||
        spec.runtime() == v1::RUNTIME_CONTAINER_IN_VM) {
      return absl::FailedPreconditionError(
          "runtime: this agent runs no virtual machines");
    }
    return make();
  };
}

}  // namespace powersweep
