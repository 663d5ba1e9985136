// FakeContainerEngine: a ContainerEngine without an engine, for tests.
//
// AddImage(reference, id, host_program) registers an image. A run whose
// arguments hold that image id (as BuildDockerRunArgs puts it) starts
// `host_program` as a local process with the container command's
// arguments (those after the in-image workload path), stdout and stderr on
// the given descriptors: the container's process, run on the host. Inspect
// reports it "running" while that process lives (pid = its pid), then
// "exited" (exit code 0: the fake does not reap it, the runtime does);
// Kill sends SIGTERM/SIGKILL to it; Remove kills it if alive and forgets
// the container; a name not started is NotFound.
//
// Every call is recorded in order as one line: "image-inspect <ref>",
// "run <name>", "inspect <name>", "kill <name> <signal>", "rm <name>",
// "ps <label>", "save <image> <path>". SaveImage writes a small tar-like
// text file naming the image's id (not a real image archive). RunArgs(name) are the arguments of that container's run.
// SetUnavailable(true) makes every call fail with Unavailable ("engine
// down").
//
// Built into powersweep_docker_runtime_testing, which only tests link.
// Thread-safe.
#ifndef POWERSWEEP_AGENT_RUNTIME_DOCKER_FAKE_CONTAINER_ENGINE_H_
#define POWERSWEEP_AGENT_RUNTIME_DOCKER_FAKE_CONTAINER_ENGINE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "agent/runtime/docker/container_engine.h"

namespace powersweep {

class FakeContainerEngine : public ContainerEngine {
 public:
  FakeContainerEngine() = default;
  ~FakeContainerEngine() override;  // kills processes still alive

  void AddImage(const std::string& reference, const std::string& id,
                const std::string& host_program);
  void SetUnavailable(bool unavailable);
  std::vector<std::string> Calls() const;
  std::vector<std::string> RunArgs(const std::string& name) const;
  // Names of containers present (started and not removed).
  std::vector<std::string> Containers() const;

  absl::StatusOr<int> StartAttached(const std::vector<std::string>& run_args,
                                    int stdout_fd, int stderr_fd) override;
  absl::StatusOr<ContainerState> Inspect(const std::string& name) override;
  absl::Status Kill(const std::string& name,
                    const std::string& signal) override;
  absl::Status Remove(const std::string& name) override;
  absl::StatusOr<std::string> ImageId(const std::string& image) override;
  absl::StatusOr<std::vector<std::string>> ListContainers(
      const std::string& label) override;
  absl::Status SaveImage(const std::string& image,
                         const std::string& path) override;

 private:
  struct Image {
    std::string id;
    std::string program;
  };
  struct Container {
    std::vector<std::string> args;
    std::string image_id;
    int pid = 0;
  };
  absl::Status Down() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, Image> images_ ABSL_GUARDED_BY(mu_);  // by reference
  std::map<std::string, Container> containers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<std::string>> run_args_
      ABSL_GUARDED_BY(mu_);
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
  bool unavailable_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_DOCKER_FAKE_CONTAINER_ENGINE_H_
