#include "agent/runtime/docker/fake_container_engine.h"

#include <signal.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/runtime/docker/subprocess.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

// Alive and not a zombie.
bool ProcessRunning(int pid) {
  if (pid <= 0) return false;
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  if (!in) return false;
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return false;
  const char state = text[paren + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace

FakeContainerEngine::~FakeContainerEngine() {
  absl::MutexLock lock(&mu_);
  for (auto& [name, c] : containers_) {
    if (ProcessRunning(c.pid)) kill(c.pid, SIGKILL);
  }
}

void FakeContainerEngine::AddImage(const std::string& reference,
                                   const std::string& id,
                                   const std::string& host_program) {
  absl::MutexLock lock(&mu_);
  images_[reference] = Image{id, host_program};
  images_[id] = Image{id, host_program};
}

void FakeContainerEngine::SetUnavailable(bool unavailable) {
  absl::MutexLock lock(&mu_);
  unavailable_ = unavailable;
}

std::vector<std::string> FakeContainerEngine::Calls() const {
  absl::MutexLock lock(&mu_);
  return calls_;
}

std::vector<std::string> FakeContainerEngine::RunArgs(
    const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = run_args_.find(name);
  return it == run_args_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> FakeContainerEngine::Containers() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [name, c] : containers_) out.push_back(name);
  return out;
}

absl::Status FakeContainerEngine::Down() const {
  if (unavailable_) {
    return absl::UnavailableError("fake engine: engine down");
  }
  return absl::OkStatus();
}

absl::StatusOr<int> FakeContainerEngine::StartAttached(
    const std::vector<std::string>& run_args, int stdout_fd, int stderr_fd) {
  absl::MutexLock lock(&mu_);
  std::string name;
  for (size_t i = 0; i + 1 < run_args.size(); ++i) {
    if (run_args[i] == "--name") name = run_args[i + 1];
  }
  calls_.push_back(absl::StrCat("run ", name));
  if (absl::Status down = Down(); !down.ok()) return down;
  run_args_[name] = run_args;
  if (containers_.count(name) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("fake engine: container name ", name, " is in use"));
  }
  // The image id, then the in-image program path, then its arguments.
  size_t image_at = run_args.size();
  const Image* image = nullptr;
  for (size_t i = 0; i < run_args.size(); ++i) {
    auto it = images_.find(run_args[i]);
    if (it != images_.end() && it->second.id == run_args[i]) {
      image_at = i;
      image = &it->second;
      break;
    }
  }
  if (image == nullptr || image_at + 1 >= run_args.size()) {
    return absl::InvalidArgumentError(
        "fake engine: no registered image id followed by a command in the "
        "run arguments");
  }
  std::vector<std::string> argv = {image->program};
  argv.insert(argv.end(), run_args.begin() + image_at + 2, run_args.end());
  SpawnFds fds;
  fds.stdout_fd = stdout_fd;
  fds.stderr_fd = stderr_fd;
  PS_ASSIGN_OR_RETURN(int pid, SpawnProcess(argv, fds));
  containers_[name] = Container{run_args, image->id, pid};
  return pid;
}

absl::StatusOr<ContainerState> FakeContainerEngine::Inspect(
    const std::string& name) {
  absl::MutexLock lock(&mu_);
  calls_.push_back(absl::StrCat("inspect ", name));
  if (absl::Status down = Down(); !down.ok()) return down;
  auto it = containers_.find(name);
  if (it == containers_.end()) {
    return absl::NotFoundError(absl::StrCat("container ", name, " not found"));
  }
  ContainerState s;
  s.id = absl::StrCat("fakeid-", name);
  s.image_id = it->second.image_id;
  s.running = ProcessRunning(it->second.pid);
  s.status = s.running ? "running" : "exited";
  s.pid = s.running ? it->second.pid : 0;
  return s;
}

absl::Status FakeContainerEngine::Kill(const std::string& name,
                                       const std::string& signal) {
  absl::MutexLock lock(&mu_);
  calls_.push_back(absl::StrCat("kill ", name, " ", signal));
  if (absl::Status down = Down(); !down.ok()) return down;
  auto it = containers_.find(name);
  if (it == containers_.end() || !ProcessRunning(it->second.pid)) {
    return absl::OkStatus();
  }
  kill(it->second.pid, signal == "KILL" ? SIGKILL : SIGTERM);
  return absl::OkStatus();
}

absl::Status FakeContainerEngine::Remove(const std::string& name) {
  absl::MutexLock lock(&mu_);
  calls_.push_back(absl::StrCat("rm ", name));
  if (absl::Status down = Down(); !down.ok()) return down;
  auto it = containers_.find(name);
  if (it == containers_.end()) return absl::OkStatus();
  if (ProcessRunning(it->second.pid)) kill(it->second.pid, SIGKILL);
  containers_.erase(it);
  return absl::OkStatus();
}

absl::StatusOr<std::string> FakeContainerEngine::ImageId(
    const std::string& image) {
  absl::MutexLock lock(&mu_);
  calls_.push_back(absl::StrCat("image-inspect ", image));
  if (absl::Status down = Down(); !down.ok()) return down;
  auto it = images_.find(image);
  if (it == images_.end()) {
    return absl::NotFoundError(
        absl::StrCat("image ", image, " is not present in the engine"));
  }
  return it->second.id;
}

absl::StatusOr<std::vector<std::string>> FakeContainerEngine::ListContainers(
    const std::string& label) {
  absl::MutexLock lock(&mu_);
  calls_.push_back(absl::StrCat("ps ", label));
  if (absl::Status down = Down(); !down.ok()) return down;
  std::vector<std::string> out;
  for (const auto& [name, c] : containers_) {
    for (size_t i = 0; i + 1 < c.args.size(); ++i) {
      if (c.args[i] == "--label" && c.args[i + 1] == label) {
        out.push_back(name);
        break;
      }
    }
  }
  return out;
}

absl::Status FakeContainerEngine::SaveImage(const std::string& image,
                                           const std::string& path) {
  absl::MutexLock lock(&mu_);
  calls_.push_back(absl::StrCat("save ", image, " ", path));
  if (absl::Status down = Down(); !down.ok()) return down;
  std::string id;
  for (const auto& [reference, img] : images_) {
    if (reference == image || img.id == image) id = img.id;
  }
  if (id.empty()) {
    return absl::NotFoundError(
        absl::StrCat("image ", image, " is not present in the engine"));
  }
  std::ofstream out(path, std::ios::trunc);
  out << "fake image archive of " << id << "\n";
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace powersweep
