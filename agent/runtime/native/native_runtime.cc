#include "agent/runtime/native/native_runtime.h"

#include <algorithm>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "agent/seconds_to_nanos.h"
#include "agent/state_dir.h"
#include "common/log.h"

namespace powersweep {

namespace {

// Child side, after fork: only async-signal-safe calls.
[[noreturn]] void ExecChild(char* const* argv, const cpu_set_t* cpus,
                            int devnull, int log_fd, int records_wfd,
                            pid_t agent_pid) {
  setpgid(0, 0);
  // A workload never outlives its agent: after an agent crash the run is
  // failed anyway, and a leftover workload would disturb the next
  // measurement. (The signal follows the forking thread, which waits for
  // the workload for the whole run.)
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != agent_pid) _exit(125);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD}) {
    sigaction(sig, &dfl, nullptr);
  }
  dup2(devnull, 0);
  dup2(log_fd, 1);
  dup2(log_fd, 2);
  if (records_wfd == kRecordsFd) {
    fcntl(kRecordsFd, F_SETFD, 0);
  } else {
    dup2(records_wfd, kRecordsFd);
  }
  close_range(kRecordsFd + 1, ~0U, 0);
  if (cpus != nullptr && sched_setaffinity(0, sizeof(*cpus), cpus) != 0) {
    static const char kMsg[] = "agent: sched_setaffinity failed\n";
    (void)!write(2, kMsg, sizeof(kMsg) - 1);
    _exit(126);
  }
  execv(argv[0], argv);
  static const char kMsg[] = "agent: cannot exec the workload binary ";
  (void)!write(2, kMsg, sizeof(kMsg) - 1);
  (void)!write(2, argv[0], strlen(argv[0]));
  (void)!write(2, "\n", 1);
  _exit(127);
}

}  // namespace

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

NativeRuntime::NativeRuntime(Clock* clock) : clock_(clock) {}

NativeRuntime::~NativeRuntime() {
  bool running = false;
  {
    absl::MutexLock lock(&mu_);
    running = pid_ > 0 && !reaped_;
    if (running) SignalLocked(SIGKILL);
  }
  if (running) {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (reader_.joinable()) reader_.join();
}

absl::Status NativeRuntime::Start(const RuntimeSpec& spec,
                                  RecordCallback callback) {
  if (pid_ != 0) {
    return absl::FailedPreconditionError("runtime: already started");
  }
  if (spec.argv.empty()) {
    return absl::InvalidArgumentError("argv: empty command line");
  }
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_) {
      return absl::CancelledError(
          absl::StrCat("cancelled before start: ", cancel_reason_));
    }
  }
  spec_ = spec;
  callback_ = std::move(callback);
  std::vector<char*> argv;
  for (std::string& a : spec_.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : spec_.cpus) CPU_SET(c, &set);

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  WidenRecordPipe(pipe_fds[0]);
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  const std::string log_path =
      spec_.stderr_log_path.empty() ? "/dev/null" : spec_.stderr_log_path;
  // O_NOFOLLOW | O_CLOEXEC, created 0600 (agent/state_dir.h).
  absl::StatusOr<int> opened =
      OpenStateFile(log_path, O_WRONLY | O_CREAT | O_APPEND);
  if (!opened.ok() || devnull < 0) {
    const std::string why =
        opened.ok() ? absl::StrCat("/dev/null: ", strerror(errno))
                    : std::string(opened.status().message());
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (devnull >= 0) close(devnull);
    if (opened.ok()) close(*opened);
    return absl::InternalError(
        absl::StrCat("cannot open the workload log: ", why));
  }
  const int log_fd = *opened;
  start_ns_ = clock_->MonotonicNanos();
  const pid_t agent_pid = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    ExecChild(argv.data(), spec_.cpus.empty() ? nullptr : &set, devnull,
              log_fd, pipe_fds[1], agent_pid);
  }
  int fork_err = errno;
  close(pipe_fds[1]);
  close(devnull);
  close(log_fd);
  if (pid < 0) {
    close(pipe_fds[0]);
    return absl::ResourceExhaustedError(
        absl::StrCat("fork: ", strerror(fork_err)));
  }
  setpgid(pid, pid);  // also done in the child; whichever runs first wins
  exit_watcher_ = std::make_unique<ChildExitWatcher>(pid);
  {
    absl::MutexLock lock(&mu_);
    pid_ = pid;
    // A Cancel() that came after the check above found no process to
    // signal: honour it now.
    if (cancelled_ && term_sent_ns_ < 0) {
      SignalLocked(SIGTERM);
      term_sent_ns_ = clock_->MonotonicNanos();
    }
  }
  reader_ = std::thread([this, fd = pipe_fds[0]] { ReadLoop(fd); });
  return absl::OkStatus();
}

void NativeRuntime::ReadLoop(int fd) {
  ReadRecordLines(fd, "workload", callback_, &bad_lines_);
}

void NativeRuntime::SignalLocked(int sig) {
  if (pid_ <= 0 || reaped_) return;
  kill(-pid_, sig);
  kill(pid_, sig);  // in case the child had not yet moved to its group
}

void NativeRuntime::Cancel(const std::string& reason) {
  absl::MutexLock lock(&mu_);
  if (cancelled_ || timed_out_) return;
  cancelled_ = true;
  cancel_reason_ = reason;
  if (pid_ > 0 && !reaped_) {
    SignalLocked(SIGTERM);
    term_sent_ns_ = clock_->MonotonicNanos();
  }
}

namespace {
constexpr int64_t kMaxStepNs = 250'000'000;
constexpr int64_t kMinStepNs = 1'000'000;
}  // namespace

ExitStatus NativeRuntime::Wait() {
  ExitStatus out;
  if (pid_ <= 0) {
    out.exit_code = -1;
    return out;
  }
  const int64_t timeout_ns = SecondsToNanos(spec_.timeout_s);
  const int64_t grace_ns = SecondsToNanos(spec_.grace_s);
  int status = 0;
  rusage ru{};
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      pid_t r = wait4(pid_, &status, WNOHANG, &ru);
      if (r == pid_ || (r < 0 && errno == ECHILD)) {
        reaped_ = true;
        // Stragglers in the group would keep the pipe open.
        kill(-pid_, SIGKILL);
        break;
      }
      const int64_t now = clock_->MonotonicNanos();
      if (timeout_ns > 0 && !cancelled_ && !timed_out_ &&
          now - start_ns_ >= timeout_ns) {
        timed_out_ = true;
        SignalLocked(SIGTERM);
        term_sent_ns_ = now;
      }
      if (term_sent_ns_ >= 0 && !killed_ && now - term_sent_ns_ >= grace_ns) {
        killed_ = true;
        SignalLocked(SIGKILL);
      }
    }
    // Sleep until the child exits or the next deadline (timeout, grace),
    // re-checking at least every kMaxStepNs: a running workload costs the
    // agent a few wake-ups a second, and its exit is seen at once.
    int64_t step_ns = kMaxStepNs;
    {
      absl::MutexLock lock(&mu_);
      const int64_t now = clock_->MonotonicNanos();
      if (timeout_ns > 0 && !cancelled_ && !timed_out_) {
        step_ns = std::min(step_ns, start_ns_ + timeout_ns - now);
      }
      if (term_sent_ns_ >= 0 && !killed_) {
        step_ns = std::min(step_ns, term_sent_ns_ + grace_ns - now);
      }
    }
    clock_->WaitFor(exit_watcher_->exited(),
                    absl::Nanoseconds(std::max<int64_t>(step_ns, kMinStepNs)));
  }
  if (reader_.joinable()) reader_.join();
  out.wall_s = (clock_->MonotonicNanos() - start_ns_) * 1e-9;
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.term_signal = WTERMSIG(status);
  out.cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
              ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
  out.max_rss_bytes = static_cast<int64_t>(ru.ru_maxrss) * 1024;
  out.bad_record_lines = bad_lines_;
  out.timeout_s = spec_.timeout_s;
  out.last_stderr_line = LastLineOfFile(spec_.stderr_log_path);
  absl::MutexLock lock(&mu_);
  out.cancelled = cancelled_;
  out.cancel_reason = cancel_reason_;
  out.timed_out = timed_out_;
  return out;
}

}  // namespace powersweep
