// ContainerEngine: the few container-engine operations DockerRuntime needs,
// behind an interface so the runtime is tested without an engine
// (FakeContainerEngine, beside it) and runs against Docker (DockerEngine).
//
// Contract for implementations:
// - StartAttached(run_args, stdout_fd, stderr_fd) creates and starts a
//   container as `docker run` with `run_args` (everything after the
//   client's own path, starting with "run") and stays attached: the
//   container's stdout is written to stdout_fd and its stderr to stderr_fd
//   until it ends. It returns the pid of the local attached process (a
//   child of the caller, which reaps it); that process's exit code is the
//   container's. Errors only when the local process cannot be created; an
//   engine refusal shows up as a non-zero exit (Docker: 125) with the
//   reason on stderr_fd.
// - Inspect(name): NotFound when no container has that name; Unavailable
//   when the engine cannot be asked.
// - Kill(name, signal) sends "TERM" or "KILL" to the container's init; OK
//   when the container is not running or is gone.
// - Remove(name) removes the container by force (killing it if needed);
//   OK when there is none.
// - ImageId(image): the local image id ("sha256:<hex>") of a tag, digest
//   reference or id; NotFound when the image is not present locally (never
//   pulls).
// - ListContainers(label): names of containers in any state that carry the
//   label ("key=value").
// - SaveImage(image, path): writes the image (as `docker save`: a tar that
//   `docker load` reads back) to `path`, replacing it; NotFound when the
//   image is not present locally, Unavailable when the engine fails.
// Every method may be called from any thread.
#ifndef POWERSWEEP_AGENT_RUNTIME_DOCKER_CONTAINER_ENGINE_H_
#define POWERSWEEP_AGENT_RUNTIME_DOCKER_CONTAINER_ENGINE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace powersweep {

struct ContainerState {
  std::string id;        // full container id
  std::string image_id;  // "sha256:<hex>"
  std::string status;    // "created", "running", "exited", ...
  bool running = false;
  int pid = 0;        // host pid of the container's init while running
  int exit_code = 0;  // meaningful once it has exited
  bool oom_killed = false;
};

class ContainerEngine {
 public:
  virtual ~ContainerEngine() = default;
  virtual absl::StatusOr<int> StartAttached(
      const std::vector<std::string>& run_args, int stdout_fd,
      int stderr_fd) = 0;
  virtual absl::StatusOr<ContainerState> Inspect(const std::string& name) = 0;
  virtual absl::Status Kill(const std::string& name,
                            const std::string& signal) = 0;
  virtual absl::Status Remove(const std::string& name) = 0;
  virtual absl::StatusOr<std::string> ImageId(const std::string& image) = 0;
  virtual absl::StatusOr<std::vector<std::string>> ListContainers(
      const std::string& label) = 0;
  virtual absl::Status SaveImage(const std::string& image,
                                 const std::string& path) = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_DOCKER_CONTAINER_ENGINE_H_
