#include "workloads/data/espeak.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "workloads/data/file_util.h"

extern char** environ;

namespace powersweep {
namespace {

// The last non-empty line of `text`.
std::string LastLine(const std::string& text) {
  std::string last;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) last = std::string(line);
  }
  return last;
}

}  // namespace

absl::StatusOr<std::string> FindEspeak() {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    if (dir.empty()) continue;
    const std::string candidate = JoinPath(std::string(dir), "espeak-ng");
    if (IsRegularFile(candidate) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return absl::FailedPreconditionError(
      "espeak-ng not found on PATH: gen-dataset --format speech synthesises "
      "its utterances with it; install Debian's espeak-ng package "
      "(apt-get install espeak-ng, or make deps)");
}

absl::Status Speak(const std::string& espeak, const std::string& text,
                   const SpeakOptions& options, const std::string& wav_path) {
  if (text.empty() || text[0] == '-') {
    return absl::InvalidArgumentError(absl::StrCat(
        "espeak-ng text '", text, "': must be non-empty and not start "
        "with '-'"));
  }
  std::vector<std::string> args = {
      espeak, "-v", options.voice,
      "-s",   absl::StrCat(options.words_per_minute),
      "-p",   absl::StrCat(options.pitch),
      "-w",   wav_path,
      text};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(
        absl::StrCat("espeak-ng: pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null",
                                   O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, espeak.c_str(), &actions, nullptr,
                             argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(err_pipe[1]);
  if (rc != 0) {
    close(err_pipe[0]);
    return absl::InternalError(
        absl::StrCat("cannot start ", espeak, ": ", std::strerror(rc)));
  }
  std::string err;
  char buf[4096];
  while (true) {
    const ssize_t n = read(err_pipe[0], buf, sizeof buf);
    if (n > 0) {
      if (err.size() < (1 << 16)) err.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  const std::string how =
      WIFSIGNALED(status) ? absl::StrCat("killed by signal ", WTERMSIG(status))
                          : absl::StrCat("exit code ", WEXITSTATUS(status));
  const std::string last = LastLine(err);
  return absl::InternalError(absl::StrCat(
      espeak, " -v ", options.voice, " -w ", wav_path, " failed (", how, ")",
      last.empty() ? "" : absl::StrCat(": ", last)));
}

}  // namespace powersweep
