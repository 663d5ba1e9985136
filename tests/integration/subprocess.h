// Subprocess: a child process for integration tests, started from an argv
// (no shell) with stdout and stderr appended to a log file. The destructor
// kills (SIGKILL) and reaps a child that is still running. Not thread-safe.
#ifndef POWERSWEEP_TESTS_INTEGRATION_SUBPROCESS_H_
#define POWERSWEEP_TESTS_INTEGRATION_SUBPROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace powersweep::testing {

class Subprocess {
 public:
  Subprocess(std::vector<std::string> argv, std::string log_path);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // Sends `sig`; then, if `wait`, reaps the child.
  void Kill(int sig, bool wait = true);
  // Waits for exit; returns the raw wait status (also when running() saw
  // the exit first).
  int Wait();
  std::string Log() const;

 private:
  pid_t pid_ = -1;
  int status_ = 0;  // the wait status once reaped
  std::string log_path_;
};

// A command run to its end: its exit code (-1 when it did not exit
// normally, or ran past the time allowed and was killed) and its output.
struct Finished {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};
// Runs `argv` (output appended to `log_path`) until it exits, at most
// `timeout_s` seconds (then SIGKILL).
Finished RunToEnd(const std::vector<std::string>& argv,
                  const std::string& log_path, double timeout_s = 300);

// Reads a whole file ("" if missing).
std::string ReadFile(const std::string& path);
// Creates a fresh temporary directory and returns its path.
std::string MakeTempDir(const std::string& prefix);

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_INTEGRATION_SUBPROCESS_H_
