#include "agent/runtime/docker/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "agent/seconds_to_nanos.h"

namespace powersweep {
namespace {

constexpr size_t kMaxCapture = 1 << 20;

// Child side, after fork: only async-signal-safe calls.
[[noreturn]] void ExecChild(char* const* argv, const int* src, int devnull,
                            pid_t parent) {
  setpgid(0, 0);
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
  // Move the sources out of 0..2 first, so one cannot overwrite another.
  int high[3];
  for (int i = 0; i < 3; ++i) {
    high[i] = fcntl(src[i] >= 0 ? src[i] : devnull, F_DUPFD, 10);
    if (high[i] < 0) _exit(125);
  }
  for (int i = 0; i < 3; ++i) dup2(high[i], i);
  close_range(3, ~0U, 0);
  execv(argv[0], argv);
  const char* reason = strerror(errno);
  static const char kMsg[] = "cannot exec ";
  (void)!write(2, kMsg, sizeof(kMsg) - 1);
  (void)!write(2, argv[0], strlen(argv[0]));
  (void)!write(2, ": ", 2);
  (void)!write(2, reason, strlen(reason));
  (void)!write(2, "\n", 1);
  _exit(127);
}

int64_t MonoMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

std::string LastLine(const std::string& text) {
  absl::string_view last;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) last = line;
  }
  return std::string(last.substr(0, 300));
}

}  // namespace

std::string CommandResult::Summary() const {
  std::string line = LastLine(err);
  if (line.empty()) line = LastLine(out);
  if (timed_out) return line.empty() ? "timed out" : line + " (timed out)";
  if (!line.empty()) return line;
  if (term_signal != 0) return absl::StrCat("killed by signal ", term_signal);
  return absl::StrCat("exit code ", exit_code);
}

absl::StatusOr<int> SpawnProcess(const std::vector<std::string>& argv,
                                 const SpawnFds& fds) {
  if (argv.empty()) return absl::InvalidArgumentError("spawn: empty argv");
  std::vector<std::string> copy = argv;
  std::vector<char*> cargv;
  for (std::string& a : copy) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) {
    return absl::InternalError(
        absl::StrCat("/dev/null: cannot open: ", strerror(errno)));
  }
  const int src[3] = {fds.stdin_fd, fds.stdout_fd, fds.stderr_fd};
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) ExecChild(cargv.data(), src, devnull, parent);
  int err = errno;
  close(devnull);
  if (pid < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("fork for ", argv[0], ": ", strerror(err)));
  }
  setpgid(pid, pid);  // also done in the child; whichever runs first wins
  return static_cast<int>(pid);
}

absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         double timeout_s) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    close(out_pipe[0]);
    close(out_pipe[1]);
    return absl::InternalError(absl::StrCat("pipe: ", strerror(e)));
  }
  SpawnFds fds;
  fds.stdout_fd = out_pipe[1];
  fds.stderr_fd = err_pipe[1];
  absl::StatusOr<int> pid = SpawnProcess(argv, fds);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (!pid.ok()) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return pid.status();
  }
  CommandResult result;
  const int64_t deadline_ms = MonoMs() + SecondsToNanos(timeout_s) / 1000000;
  pollfd pfd[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  bool killed = false;
  char buf[16384];
  while (open_count > 0) {
    int wait_ms = -1;
    if (!killed) {
      const int64_t left = deadline_ms - MonoMs();
      if (left <= 0) {
        kill(-*pid, SIGKILL);
        kill(*pid, SIGKILL);
        killed = true;
        result.timed_out = true;
        continue;
      }
      wait_ms = static_cast<int>(left);
    }
    int n = poll(pfd, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (pfd[i].fd < 0 || pfd[i].revents == 0) continue;
      ssize_t r = read(pfd[i].fd, buf, sizeof(buf));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        close(pfd[i].fd);
        pfd[i].fd = -1;
        --open_count;
        continue;
      }
      if (sinks[i]->size() < kMaxCapture) {
        sinks[i]->append(buf, static_cast<size_t>(r));
      }
    }
  }
  for (pollfd& p : pfd) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  return result;
}

}  // namespace powersweep
