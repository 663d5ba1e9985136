#include "agent/runtime/child_process.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/runtime/runtime.h"
#include "agent/util/seconds_to_nanos.h"
#include "common/status_macros.h"

namespace powersweep {

namespace {

constexpr int64_t kMaxStepNs = 250'000'000;
constexpr int64_t kMinStepNs = 1'000'000;

void WriteAll(const char* s) { (void)!write(2, s, strlen(s)); }

// Child side, after fork: only async-signal-safe calls. src: the
// descriptors for 0, 1, 2 and kRecordsFd (-1: /dev/null, or none for the
// records).
[[noreturn]] void ExecChild(char* const* argv, const int* src, int devnull,
                            const cpu_set_t* cpus, const char* exec_prefix,
                            pid_t parent) {
  setpgid(0, 0);
  // The signal follows the forking thread, which supervises the child.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(125);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD}) {
    sigaction(sig, &dfl, nullptr);
  }
  // Move the sources out of 0..3 first, so one cannot overwrite another.
  const int count = src[3] >= 0 ? 4 : 3;
  int high[4];
  for (int i = 0; i < count; ++i) {
    high[i] = fcntl(src[i] >= 0 ? src[i] : devnull, F_DUPFD, 10);
    if (high[i] < 0) _exit(125);
  }
  for (int i = 0; i < count; ++i) dup2(high[i], i);  // kRecordsFd == 3
  close_range(static_cast<unsigned>(count), ~0U, 0);
  if (cpus != nullptr && sched_setaffinity(0, sizeof(*cpus), cpus) != 0) {
    WriteAll("agent: sched_setaffinity failed\n");
    _exit(126);
  }
  execv(argv[0], argv);
  const char* reason = strerror(errno);
  WriteAll(exec_prefix);
  WriteAll(argv[0]);
  WriteAll(": ");
  WriteAll(reason);
  WriteAll("\n");
  _exit(127);
}

}  // namespace

absl::StatusOr<pid_t> SpawnChild(const SpawnOptions& options) {
  static_assert(kRecordsFd == 3, "ExecChild places the records on fd 3");
  if (options.argv.empty()) {
    return absl::InvalidArgumentError("spawn: empty argv");
  }
  std::vector<std::string> copy = options.argv;
  std::vector<char*> argv;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : options.cpus) CPU_SET(c, &set);
  const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) {
    return absl::InternalError(
        absl::StrCat("/dev/null: cannot open: ", strerror(errno)));
  }
  const int src[4] = {options.stdin_fd, options.stdout_fd, options.stderr_fd,
                      options.records_fd};
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    ExecChild(argv.data(), src, devnull,
              options.cpus.empty() ? nullptr : &set,
              options.exec_error_prefix.c_str(), parent);
  }
  const int err = errno;
  close(devnull);
  if (pid < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("fork for ", options.argv[0], ": ", strerror(err)));
  }
  setpgid(pid, pid);  // also done in the child; whichever runs first wins
  return pid;
}

bool ChildExit::exited() const {
  return wait_status >= 0 && WIFEXITED(wait_status);
}
int ChildExit::exit_code() const {
  return exited() ? WEXITSTATUS(wait_status) : -1;
}
bool ChildExit::signaled() const {
  return wait_status >= 0 && WIFSIGNALED(wait_status);
}
int ChildExit::term_signal() const {
  return signaled() ? WTERMSIG(wait_status) : 0;
}
double ChildExit::cpu_s() const {
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 +
         usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
}
int64_t ChildExit::max_rss_bytes() const {
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

ChildSupervisor::ChildSupervisor(Clock* clock)
    : clock_(clock), wake_(std::make_shared<absl::Notification>()) {}

ChildSupervisor::~ChildSupervisor() {
  KillAndReap();
  watcher_.reset();  // joins its thread; the child has exited
}

absl::Status ChildSupervisor::CheckNotCancelled() const {
  absl::MutexLock lock(&mu_);
  if (!cancelled_) return absl::OkStatus();
  return absl::CancelledError(
      absl::StrCat("cancelled before start: ", cancel_reason_));
}

bool ChildSupervisor::cancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

absl::Status ChildSupervisor::Start(const SpawnOptions& spawn,
                                    SupervisorOptions options) {
  return Start([&spawn] { return SpawnChild(spawn); }, std::move(options));
}

absl::Status ChildSupervisor::Start(
    const std::function<absl::StatusOr<pid_t>()>& spawn,
    SupervisorOptions options) {
  if (pid_ != 0) {
    return absl::FailedPreconditionError("runtime: already started");
  }
  if (absl::Status c = CheckNotCancelled(); !c.ok()) return c;
  options_ = std::move(options);
  timeout_ns_ = options_.timeout_s > 0 ? SecondsToNanos(options_.timeout_s) : 0;
  grace_ns_ = SecondsToNanos(options_.grace_s);
  kill_child_after_ns_ = options_.kill_child_after_s < 0
                             ? -1
                             : SecondsToNanos(options_.kill_child_after_s);
  tick_ns_ = options_.tick && options_.tick_s > 0
                 ? std::max<int64_t>(SecondsToNanos(options_.tick_s), 1)
                 : 0;
  start_ns_ = clock_->MonotonicNanos();
  PS_ASSIGN_OR_RETURN(pid_t pid, spawn());
  // Before anything can reap the child.
  watcher_ = std::make_unique<ChildExitWatcher>(
      pid, ChildExitWatcher::Method::kAuto, [this] { Wake(); });
  bool stop = false;
  {
    absl::MutexLock lock(&mu_);
    pid_ = pid;
    // A Cancel() that came after the check above found no process to stop:
    // honour it now (or Wait() does, for a stop that may block).
    if (cancelled_ && term_ns_ < 0 && options_.stop_from_cancel) {
      term_ns_ = clock_->MonotonicNanos();
      if (options_.stop) {
        stop = true;
      } else {
        SignalLocked(SIGTERM);
      }
    }
  }
  if (stop) options_.stop(SIGTERM);
  return absl::OkStatus();
}

void ChildSupervisor::Wake() {
  absl::MutexLock lock(&mu_);
  if (!wake_->HasBeenNotified()) wake_->Notify();
}

void ChildSupervisor::SignalLocked(int sig) {
  const pid_t pid = pid_;
  if (pid <= 0 || reaped_) return;
  kill(-pid, sig);
  kill(pid, sig);  // in case the child had not yet moved to its group
}

void ChildSupervisor::Stop(int sig) {
  if (options_.stop) {
    options_.stop(sig);
    return;
  }
  absl::MutexLock lock(&mu_);
  SignalLocked(sig);
}

void ChildSupervisor::Cancel(const std::string& reason) {
  bool stop = false;
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_ || timed_out_) return;
    cancelled_ = true;
    cancel_reason_ = reason;
    if (!wake_->HasBeenNotified()) wake_->Notify();
    if (pid_ <= 0 || reaped_ || !options_.stop_from_cancel) return;
    term_ns_ = clock_->MonotonicNanos();
    if (!options_.stop) {
      SignalLocked(SIGTERM);
      return;
    }
    stop = true;
  }
  if (stop) options_.stop(SIGTERM);
}

bool ChildSupervisor::ReapLocked(bool block) {
  if (reaped_) return true;
  const pid_t pid = pid_;
  if (pid <= 0) return false;
  int status = 0;
  rusage ru{};
  pid_t r;
  do {
    r = wait4(pid, &status, block ? 0 : WNOHANG, &ru);
  } while (r < 0 && errno == EINTR);
  if (r == pid) {
    wait_status_ = status;
    usage_ = ru;
  } else if (r < 0 && errno == ECHILD) {
    wait_status_ = -1;  // reaped elsewhere
  } else {
    return false;
  }
  reaped_ = true;
  // Stragglers in the group would keep its pipes open.
  kill(-pid, SIGKILL);
  return true;
}

bool ChildSupervisor::TryReap() {
  absl::MutexLock lock(&mu_);
  return ReapLocked(/*block=*/false);
}

void ChildSupervisor::KillAndReap() {
  absl::MutexLock lock(&mu_);
  if (pid_ <= 0 || reaped_) return;
  if (!ReapLocked(false)) {
    SignalLocked(SIGKILL);
    killed_directly_ = true;
    ReapLocked(/*block=*/true);
  }
}

ChildExit ChildSupervisor::ResultLocked() const {
  ChildExit out;
  out.wait_status = wait_status_;
  out.usage = usage_;
  out.cancelled = cancelled_;
  out.cancel_reason = cancel_reason_;
  out.timed_out = timed_out_;
  out.killed_directly = killed_directly_;
  return out;
}

ChildExit ChildSupervisor::Wait() {
  if (pid_ <= 0) {
    absl::MutexLock lock(&mu_);
    return ResultLocked();
  }
  int64_t next_tick_ns = -1;
  while (true) {
    std::shared_ptr<absl::Notification> wake;
    bool send_term = false;
    bool send_kill = false;
    int64_t now = 0;
    {
      absl::MutexLock lock(&mu_);
      if (wake_->HasBeenNotified()) {
        wake_ = std::make_shared<absl::Notification>();
      }
      wake = wake_;
      if (ReapLocked(/*block=*/false)) break;
      now = clock_->MonotonicNanos();
      if (timeout_ns_ > 0 && !cancelled_ && !timed_out_ &&
          now - start_ns_ >= timeout_ns_) {
        timed_out_ = true;
      }
      if ((cancelled_ || timed_out_) && term_ns_ < 0) {
        term_ns_ = now;
        send_term = true;
      }
      if (term_ns_ >= 0 && kill_ns_ < 0 && now - term_ns_ >= grace_ns_) {
        kill_ns_ = now;
        send_kill = true;
      }
    }
    if (send_term) Stop(SIGTERM);
    if (send_kill) Stop(SIGKILL);
    {
      absl::MutexLock lock(&mu_);
      if (kill_child_after_ns_ >= 0 && kill_ns_ >= 0 && !killed_directly_ &&
          now - kill_ns_ >= kill_child_after_ns_) {
        SignalLocked(SIGKILL);
        killed_directly_ = true;
      }
    }
    if (tick_ns_ > 0 && (next_tick_ns < 0 || now >= next_tick_ns)) {
      options_.tick();
      next_tick_ns = now + tick_ns_;
    }
    // Sleep until the child exits, a Cancel(), or the next deadline,
    // re-checking at least every kMaxStepNs.
    int64_t step_ns = kMaxStepNs;
    {
      absl::MutexLock lock(&mu_);
      now = clock_->MonotonicNanos();
      if (timeout_ns_ > 0 && !cancelled_ && !timed_out_) {
        step_ns = std::min(step_ns, start_ns_ + timeout_ns_ - now);
      }
      if (term_ns_ >= 0 && kill_ns_ < 0) {
        step_ns = std::min(step_ns, term_ns_ + grace_ns_ - now);
      }
      if (kill_child_after_ns_ >= 0 && kill_ns_ >= 0 && !killed_directly_) {
        step_ns = std::min(step_ns, kill_ns_ + kill_child_after_ns_ - now);
      }
    }
    if (tick_ns_ > 0) step_ns = std::min(step_ns, next_tick_ns - now);
    clock_->WaitFor(wake.get(),
                    absl::Nanoseconds(std::max(step_ns, kMinStepNs)));
  }
  absl::MutexLock lock(&mu_);
  return ResultLocked();
}

}  // namespace powersweep
