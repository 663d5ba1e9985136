#include "agent/runtime/native/native_runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "agent/util/state_dir.h"
#include "common/log.h"

namespace powersweep {

std::string LastLineOfFile(const std::string& path) {
  // The log is in the agent's state dir: never follow a symlink there.
  absl::StatusOr<int> fd = OpenStateFile(path, O_RDONLY);
  if (!fd.ok()) return "";
  const off_t size = lseek(*fd, 0, SEEK_END);
  const off_t from = size > 4096 ? size - 4096 : 0;
  std::string tail;
  char buf[4096];
  ssize_t n = 0;
  if (size > 0 && lseek(*fd, from, SEEK_SET) == from) {
    while ((n = read(*fd, buf, sizeof(buf))) > 0 ||
           (n < 0 && errno == EINTR)) {
      if (n > 0) tail.append(buf, static_cast<size_t>(n));
    }
  }
  close(*fd);
  absl::string_view t = absl::StripTrailingAsciiWhitespace(tail);
  size_t nl = t.rfind('\n');
  absl::string_view line = nl == absl::string_view::npos ? t : t.substr(nl + 1);
  line = absl::StripAsciiWhitespace(line);
  return std::string(line.substr(0, 300));
}

NativeRuntime::NativeRuntime(Clock* clock) : clock_(clock), child_(clock) {}

NativeRuntime::~NativeRuntime() {
  child_.KillAndReap();
  if (reader_.joinable()) reader_.join();
}

absl::Status NativeRuntime::Start(const RuntimeSpec& spec,
                                  RecordCallback callback) {
  if (child_.pid() != 0) {
    return absl::FailedPreconditionError("runtime: already started");
  }
  if (spec.argv.empty()) {
    return absl::InvalidArgumentError("argv: empty command line");
  }
  if (absl::Status c = child_.CheckNotCancelled(); !c.ok()) return c;
  spec_ = spec;
  callback_ = std::move(callback);

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  WidenRecordPipe(pipe_fds[0]);
  const std::string log_path =
      spec_.stderr_log_path.empty() ? "/dev/null" : spec_.stderr_log_path;
  // O_NOFOLLOW | O_CLOEXEC, created 0600 (agent/util/state_dir.h).
  absl::StatusOr<int> opened =
      OpenStateFile(log_path, O_WRONLY | O_CREAT | O_APPEND);
  if (!opened.ok()) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return absl::InternalError(absl::StrCat(
        "cannot open the workload log: ", opened.status().message()));
  }
  const int log_fd = *opened;
  SpawnOptions spawn;
  spawn.argv = spec_.argv;
  spawn.stdout_fd = log_fd;
  spawn.stderr_fd = log_fd;
  spawn.records_fd = pipe_fds[1];
  spawn.cpus = spec_.cpus;
  spawn.exec_error_prefix = "agent: cannot exec the workload binary ";
  SupervisorOptions supervise;
  supervise.timeout_s = spec_.timeout_s;
  supervise.grace_s = spec_.grace_s;
  absl::Status started = child_.Start(spawn, std::move(supervise));
  close(pipe_fds[1]);
  close(log_fd);
  if (!started.ok()) {
    close(pipe_fds[0]);
    return started;
  }
  reader_ = std::thread([this, fd = pipe_fds[0]] {
    ReadRecordLines(fd, "workload", callback_, &bad_lines_);
  });
  return absl::OkStatus();
}

void NativeRuntime::Cancel(const std::string& reason) { child_.Cancel(reason); }

ExitStatus NativeRuntime::Wait() {
  ExitStatus out;
  if (child_.pid() <= 0) {
    out.exit_code = -1;
    return out;
  }
  const ChildExit exit = child_.Wait();
  if (reader_.joinable()) reader_.join();
  out.wall_s = (clock_->MonotonicNanos() - child_.start_ns()) * 1e-9;
  if (exit.exited()) out.exit_code = exit.exit_code();
  out.term_signal = exit.term_signal();
  out.cpu_s = exit.cpu_s();
  out.max_rss_bytes = exit.max_rss_bytes();
  out.bad_record_lines = bad_lines_;
  out.timeout_s = spec_.timeout_s;
  out.last_stderr_line = LastLineOfFile(spec_.stderr_log_path);
  out.cancelled = exit.cancelled;
  out.cancel_reason = exit.cancel_reason;
  out.timed_out = exit.timed_out;
  return out;
}

}  // namespace powersweep
