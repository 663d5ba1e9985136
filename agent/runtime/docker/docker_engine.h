// DockerEngine: ContainerEngine over the Docker command-line client, run
// with argv (fork/exec, never a shell). The client path is configurable
// (Debian's docker.io installs /usr/bin/docker; another client may come
// first on PATH). Each call except StartAttached runs the client to
// completion within `command_timeout_s` of real time.
//
// DockerAvailable(client_path): OK when `<client> info` answers; else
// FailedPrecondition "docker engine not reachable: <what the client said>"
// (or that the client cannot be run). For the agent's registration.
//
// Thread-safe.
#ifndef POWERSWEEP_AGENT_RUNTIME_DOCKER_DOCKER_ENGINE_H_
#define POWERSWEEP_AGENT_RUNTIME_DOCKER_DOCKER_ENGINE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/runtime/docker/container_engine.h"
#include "agent/runtime/docker/subprocess.h"

namespace powersweep {

inline constexpr char kDefaultDockerClient[] = "/usr/bin/docker";

absl::Status DockerAvailable(const std::string& client_path);

class DockerEngine : public ContainerEngine {
 public:
  explicit DockerEngine(std::string client_path = kDefaultDockerClient,
                        double command_timeout_s = 30);

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

  const std::string& client_path() const { return client_; }

 private:
  absl::StatusOr<CommandResult> Run(std::vector<std::string> args);

  const std::string client_;
  const double timeout_s_;
};

// Parses the output of `docker inspect -f` with kInspectFormat (exposed for
// tests): "id image status running pid exit_code oom_killed".
inline constexpr char kInspectFormat[] =
    "{{.Id}} {{.Image}} {{.State.Status}} {{.State.Running}} {{.State.Pid}} "
    "{{.State.ExitCode}} {{.State.OOMKilled}}";
absl::StatusOr<ContainerState> ParseInspectLine(const std::string& line);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_DOCKER_DOCKER_ENGINE_H_
