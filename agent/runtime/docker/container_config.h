// What a container run needs besides the workload's own command line, and
// the pure functions that turn it into `docker run` arguments.
//
// DockerRuntimeConfig is the agent's own configuration (never from the
// controller): the image allowlist, where the workload lives in the image,
// the cgroup placement. ContainerRequest is per run and tenant: the image
// the run asked for, the host directories it reads (mounted read-only at
// the same path), and the names that make the container unique.
//
// Pure and thread-safe.
#ifndef POWERSWEEP_AGENT_RUNTIME_DOCKER_CONTAINER_CONFIG_H_
#define POWERSWEEP_AGENT_RUNTIME_DOCKER_CONTAINER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/runtime/runtime.h"

namespace powersweep {

inline constexpr char kWorkloadImageRepo[] = "powersweep-workload";

struct DockerRuntimeConfig {
  // Images a run may use: "repo:tag" (a bare "repo" means "repo:latest"),
  // "repo@sha256:<digest>", or an image id "sha256:<64 hex>" (then any
  // reference to that exact image is accepted).
  std::vector<std::string> image_allowlist;
  // argv[0] of the workload inside the image
  // (infra/docker/build-workload-image.sh puts it here).
  std::string workload_path_in_image = "/usr/local/bin/powersweep-workload";
  // Containers are named <name_prefix>-<device>-r<run>-a<attempt>-t<tenant>
  // and labelled powersweep.device=<device>.
  std::string name_prefix = "ps";
  // Each container gets its own parent cgroup /<cgroup_parent>/<name>
  // (docker run --cgroup-parent), whose hierarchical counters keep the
  // container's final CPU time, memory peak and page faults after the
  // engine removed the container's own cgroup at exit.
  std::string cgroup_root = "/sys/fs/cgroup";
  std::string cgroup_parent = "powersweep-containers";
  std::string proc_root = "/proc";
  // --init: a minimal init (docker-init) is pid 1 and forwards SIGTERM to
  // the workload (pid 1 itself ignores SIGTERM without a handler); Pid()
  // is then the workload, the init's child.
  bool use_init = true;
  // --user <agent uid>:<agent gid>, as a native run.
  bool run_as_agent_user = true;
  std::vector<std::string> env;  // "KEY=VALUE" given to the container
  // --runtime: "" = the engine's default; "nvidia" on a Jetson (the NVIDIA
  // container runtime mounts the GPU driver into the container).
  std::string oci_runtime;
  double start_timeout_s = 60;     // until the container runs
  double poll_s = 0.05;  // Start() waiting for the container (Clock time)
  double stats_interval_s = 0.25;  // workload peak RSS refresh in Wait()
};

struct ContainerRequest {
  std::string image;                          // must pass the allowlist
  std::vector<std::string> read_only_mounts;  // absolute host dirs/files
  std::string device_id;
  int64_t run_id = 0;
  int32_t attempt = 0;
  int32_t tenant = 0;
};

// "<prefix>-<device>-r<run>-a<attempt>-t<tenant>", characters outside
// [A-Za-z0-9_.-] of the device id replaced by '_'.
std::string ContainerName(const std::string& prefix, const ContainerRequest& r);

// "powersweep-workload:<fingerprint with ':' as '-'>", the tag
// build-workload-image.sh gives the image of a workload binary whose
// provenance binary_fingerprint is `fingerprint`.
std::string WorkloadImageTag(const std::string& fingerprint);

// Whether `image` (as requested) or `image_id` (the id it resolves to; may
// be empty) is allowed by `allowlist`; PermissionDenied naming the image
// and the allowlist otherwise.
absl::Status CheckImageAllowed(const std::string& image,
                               const std::string& image_id,
                               const std::vector<std::string>& allowlist);
// True when some allowlist entry is an image id (so the caller must
// resolve the requested image before CheckImageAllowed can decide).
bool AllowlistHasImageIds(const std::vector<std::string>& allowlist);

struct DockerRunInput {
  std::string name;             // ContainerName
  std::string image_ref;        // what to run: the resolved image id
  std::string requested_image;  // recorded as a label
  std::string device_id;
  int uid = -1;  // >= 0 with run_as_agent_user
  int gid = -1;
};

// The arguments after the client path, starting with "run":
//   run --name N --network none --pull never --log-driver none
//   [--init] [--user U:G] [--runtime R]
//   --cgroup-parent /<cgroup_parent>/<N>
//   --label powersweep.managed=true --label powersweep.device=D
//   --label powersweep.image=I [--cpuset-cpus 0,2] [--env K=V ...]
//   [--mount type=bind,source=P,target=P,readonly ...]
//   IMAGE_REF <workload_path_in_image> <spec.argv[1..]>
// with the value of the workload's --records-fd (either "--records-fd N"
// or "--records-fd=N") set to 1, or "--records-fd 1" appended: the records
// come out on the container's stdout, which the attached client copies to
// the agent's pipe; the workload's logs go to stderr.
// InvalidArgument for an empty argv, a relative mount path or one holding
// ',' (the --mount syntax cannot carry it), or a negative CPU.
absl::StatusOr<std::vector<std::string>> BuildDockerRunArgs(
    const DockerRuntimeConfig& config, const ContainerRequest& request,
    const DockerRunInput& input, const RuntimeSpec& spec);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_DOCKER_CONTAINER_CONFIG_H_
