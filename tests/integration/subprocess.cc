#include "tests/integration/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace powersweep::testing {

Subprocess::Subprocess(std::vector<std::string> argv, std::string log_path)
    : log_path_(std::move(log_path)) {
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test
    int fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execv(cargv[0], cargv.data());
    _exit(127);
  }
}

Subprocess::~Subprocess() {
  if (pid_ > 0 && running()) Kill(SIGKILL);
}

bool Subprocess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    pid_ = -1;
    status_ = status;  // for a later Wait()
    return false;
  }
  return r == 0;
}

void Subprocess::Kill(int sig, bool wait) {
  if (pid_ <= 0) return;
  kill(pid_, sig);
  if (wait) Wait();
}

int Subprocess::Wait() {
  if (pid_ > 0) {
    waitpid(pid_, &status_, 0);
    pid_ = -1;
  }
  return status_;
}

std::string Subprocess::Log() const { return ReadFile(log_path_); }

Finished RunToEnd(const std::vector<std::string>& argv,
                  const std::string& log_path, double timeout_s) {
  Finished out;
  {
    Subprocess p(argv, log_path);
    const auto end = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(
                         static_cast<int64_t>(timeout_s * 1000));
    while (p.running() && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!p.running()) {
      const int status = p.Wait();
      out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
  }  // killed here if still running
  out.output = ReadFile(log_path);
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string MakeTempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
  char* dir = mkdtemp(tmpl.data());
  return dir ? std::string(dir) : std::string();
}

}  // namespace powersweep::testing
