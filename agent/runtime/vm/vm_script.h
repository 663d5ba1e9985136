// The shell scripts a VM's guest runs (chrooted in the host's /, as root;
// infra/vm/guest-init): its fd 3 is the records port, its stdout and
// stderr the stderr port, its fd 4 the phases port ("<phase> <guest
// uptime s>" lines), and its exit code the run's.
//
// VmRunScript (vm runs): cd to `cwd` (if it exists there), export each of
// `env` (names that are not shell identifiers are left out), a writable
// TMPDIR on the guest's tmpfs, mount the data disk (the VM's first
// virtio-blk disk, /dev/vda, ext4, read-only) over `data_mount` when it is
// not empty (VmDataDisks), then exec `argv`; every word single-quoted.
//
// VmContainerScript (container_in_vm runs): the same environment, then
//   - a tmpfs (80% of the guest's memory) for the guest's Docker engine
//     and cgroup2 on /sys/fs/cgroup;
//   - the host's dockerd with its data, state and socket on that tmpfs,
//     an empty config file (the host's /etc/docker/daemon.json is not
//     read), no bridge, no iptables rules, overlay2; waited for up to
//     600 s (phase "engine_ready");
//   - `docker load` of `container.image_archive` (phase "image_loaded");
//   - exec `docker` with `container.docker_run_args`, whose stdout (the
//     records: BuildDockerRunArgs sets --records-fd 1) goes to fd 3.
// A step that fails writes "powersweep-vm: <why>" (and the engine's last
// log lines) to stderr and exits 125.
//
// Pure; thread-safe.
#ifndef POWERSWEEP_AGENT_RUNTIME_VM_VM_SCRIPT_H_
#define POWERSWEEP_AGENT_RUNTIME_VM_VM_SCRIPT_H_

#include <map>
#include <string>
#include <vector>

namespace powersweep {

// What a container_in_vm run runs in its guest.
struct VmContainer {
  std::string image_id;       // "sha256:<hex>", as loaded
  std::string image_archive;  // host path of the image's `docker save` tar
  std::vector<std::string> docker_run_args;  // "run", ... (no client path)
};

std::string VmRunScript(const std::vector<std::string>& argv,
                        const std::string& cwd,
                        const std::map<std::string, std::string>& env,
                        const std::string& data_mount = "");

std::string VmContainerScript(const VmContainer& container,
                              const std::string& cwd,
                              const std::map<std::string, std::string>& env,
                              const std::string& data_mount = "");

// The agent's environment (environ), by name.
std::map<std::string, std::string> AgentEnvironment();

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_VM_VM_SCRIPT_H_
