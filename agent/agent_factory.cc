#include "agent/agent_factory.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/platform/host/host_platform.h"
#include "agent/platform/jetson/jetson_platform.h"
#include "agent/runtime/docker/docker_runtime.h"
#include "agent/runtime/runtime_factory.h"
#include "agent/runtime/twin/twin_agent.h"
#include "agent/util/state_dir.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/synthetic_dataset.h"

namespace powersweep {
namespace {

// The state dir when --work_dir is not given (agent/util/state_dir.h).
std::string DefaultWorkDir(const std::string& device_id) {
  return DefaultStateDir(device_id, geteuid(), getenv("XDG_STATE_HOME"),
                         getenv("HOME"));
}

// The state dir a restore file lives in, found again by the next agent:
// --work_dir, else the default for the device id (else the hostname).
// Prepared (created 0700 or checked).
absl::StatusOr<std::string> RestoreDir(const AgentOptions& o,
                                       const std::string& device_id) {
  std::string state_dir = o.work_dir;
  if (state_dir.empty()) {
    char host[256] = {0};
    gethostname(host, sizeof(host) - 1);
    state_dir = DefaultWorkDir(device_id.empty() ? std::string(host)
                                                 : device_id);
  }
  PS_RETURN_IF_ERROR(PrepareStateDir(state_dir, "--work_dir"));
  return state_dir;
}

absl::StatusOr<std::unique_ptr<Platform>> MakeHost(const AgentOptions& o) {
  HostPlatformOptions popts;
  popts.device_id = o.device_id;
  popts.cpus = o.cpus;
  popts.agent_version = o.agent_version;
  popts.nvml_library = o.nvml_library;
  popts.nvml_gpu = o.nvml_gpu;
  // A GPU's restore file, like a Jetson's, lives in the work dir; a probe
  // changes nothing and has none.
  if (!o.probe && !o.nvml_library.empty()) {
    PS_ASSIGN_OR_RETURN(std::string dir, RestoreDir(o, o.device_id));
    popts.gpu_restore_path = dir + "/gpu-restore.txt";
  }
  PS_ASSIGN_OR_RETURN(auto host, HostPlatform::Create(popts));
  return std::unique_ptr<Platform>(std::move(host));
}

absl::StatusOr<std::unique_ptr<Platform>> MakeJetson(const AgentOptions& o,
                                                     Clock* clock) {
  JetsonPlatformOptions jopts;
  jopts.sysfs_root = o.sysfs_root;
  jopts.device_id = o.device_id;
  jopts.agent_version = o.agent_version;
  jopts.board_presets = true;
  // The restore file must be found again by the next agent: it lives in
  // the work dir (default from the device id, else the hostname). A probe
  // changes nothing, so it neither reads nor writes one.
  if (!o.probe) {
    PS_ASSIGN_OR_RETURN(std::string dir, RestoreDir(o, jopts.device_id));
    jopts.restore_state_path = dir + "/jetson-restore.json";
  }
  PS_ASSIGN_OR_RETURN(auto jetson, JetsonPlatform::Create(jopts, clock));
  return std::unique_ptr<Platform>(std::move(jetson));
}

// Container runs: the engine's runtime beside the native one; leftovers of
// an earlier agent removed first. Needs agent->work_dir.
RunRuntimeFactory MakeRuntimes(const AgentOptions& o, Agent* agent,
                               Clock* clock, VmSetup vms) {
  ContainerSetup containers;
  containers.engine = agent->engine.get();
  containers.config.image_allowlist = o.container_images;
  containers.device_id = agent->platform->Identity().device_id();
  if (agent->engine != nullptr) {
    auto removed = RemoveLeftoverContainers(
        agent->engine.get(), containers.config, containers.device_id);
    if (!removed.ok()) {
      PS_LOG(WARNING) << "cannot list leftover containers: "
                      << removed.status().message();
    } else {
      for (const std::string& name : *removed) {
        PS_LOG(WARNING) << "removed container " << name
                        << " left by an earlier agent";
      }
    }
  }
  if (vms.enabled && o.vm_data == "blk") {
    vms.data_disks =
        std::make_shared<VmDataDisks>(agent->work_dir + "/vm-data");
  }
  // container_in_vm: the images its guests load, saved once per image.
  if (agent->engine != nullptr && vms.enabled) {
    vms.archives = std::make_shared<GuestImageArchives>(
        agent->engine.get(), agent->work_dir + "/vm-images");
  }
  return MakeRuntimeFactory(clock, &agent->catalog, std::move(containers),
                            std::move(vms));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Agent>> MakeAgent(const AgentOptions& o,
                                                 Clock* clock) {
  auto agent = std::make_unique<Agent>();
  const bool twin = o.platform == "twin";
  const bool probe = o.probe;
  if (o.sysfs_root != "/" && !o.sysfs_root.empty() &&
      o.platform != "jetson") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--sysfs_root: only the jetson platform reads a sysfs tree, and "
        "--platform is ", o.platform, " (add --platform=jetson)"));
  }
  // Default: next to the agent (installed), else the build tree's
  // workloads/ folder beside agent/.
  const std::vector<std::string> candidates =
      o.workload_bin.empty()
          ? std::vector<std::string>{
                o.default_workload_dir + "/powersweep-workload",
                o.default_workload_dir + "/../workloads/powersweep-workload"}
          : std::vector<std::string>{o.workload_bin};
  agent->workload_bin = candidates.front();
  for (const std::string& c : candidates) {
    if (access(c.c_str(), X_OK) == 0) {
      agent->workload_bin = c;
      break;
    }
  }
  if (!twin && !probe && access(agent->workload_bin.c_str(), X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--workload_bin: ", absl::StrJoin(candidates, " or "),
        candidates.size() > 1 ? ": neither exists as an executable"
                              : " does not exist or is not executable"));
  }

  Catalog& catalog = agent->catalog;
  catalog.datasets = Catalog::DefaultDatasets();
  if (!o.datasets.empty()) {
    PS_ASSIGN_OR_RETURN(auto datasets, ParseDatasetFlags(o.datasets));
    catalog.datasets = datasets;
    catalog.datasets[std::string(kSyntheticDataset)] =
        std::string(kSyntheticDataset);
  }
  for (const auto& [name, path] : catalog.datasets) {
    if (IsSyntheticDataset(name)) continue;
    if (!twin && !probe && !std::filesystem::is_directory(path)) {
      PS_LOG(WARNING) << "dataset " << name << ": " << path
                      << " is not a directory; runs using it will fail";
    }
  }

  // Containers: only with an allowlist and an engine that answers now.
  if (!o.container_images.empty() && !twin && !probe) {
    absl::Status docker = DockerAvailable(o.docker_client);
    if (docker.ok()) {
      agent->engine = std::make_unique<DockerEngine>(o.docker_client);
      catalog.containers = true;
    } else {
      PS_LOG(WARNING) << "container runs disabled: " << docker.message();
    }
  }

  if (o.platform == "host") {
    PS_ASSIGN_OR_RETURN(auto host, MakeHost(o));
    agent->platform = std::move(host);
  } else if (twin) {
    TwinAgentOptions topts;
    topts.device_class = o.device_class;
    topts.instance = o.instance;
    topts.seed = o.twin_seed;
    topts.device_id = o.device_id;
    topts.time_scale = o.twin_time_scale;
    topts.slowdown = o.twin_slowdown;
    topts.temperature_file = o.twin_temperature_file;
    topts.agent_version = o.agent_version;
    PS_ASSIGN_OR_RETURN(auto made, MakeTwinAgent(topts, clock));
    agent->platform = std::move(made.platform);
    agent->runtimes = NativeOnly(made.runtimes);
    catalog = made.catalog;
    agent->workload_bin = made.workload_bin;
  } else if (o.platform == "jetson") {
    PS_ASSIGN_OR_RETURN(auto jetson, MakeJetson(o, clock));
    agent->platform = std::move(jetson);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--platform: unknown platform \"", o.platform,
                     "\" (host, jetson or twin)"));
  }
  if (probe) return agent;

  // VMs: on the host platform, with QEMU, a guest image and an accelerator.
  if (o.vm_data != "blk" && o.vm_data != "9p") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--vm_data: \"", o.vm_data, "\" is neither blk nor 9p"));
  }
  VmSetup vms;
  if (o.platform == "host") {
    VmOptions vo;
    vo.qemu = o.qemu;
    vo.image = o.vm_image;
    vo.default_image_dirs = {o.default_workload_dir + "/vm-guest",
                             o.default_workload_dir + "/../vm-guest",
                             o.default_workload_dir +
                                 "/../share/powersweep/vm-guest"};
    vo.accel = o.vm_accel;
    vo.cores = agent->platform->Capabilities().cpu_cores();
    PS_ASSIGN_OR_RETURN(vms, DiscoverVms(vo));
    catalog.vms = vms.enabled;
    catalog.vm_accel = vms.config.accel.accel;
    catalog.vm_accel_reason =
        vms.enabled ? vms.config.accel.reason : vms.why_not;
    if (!vms.enabled) PS_LOG(INFO) << "vm runs disabled: " << vms.why_not;
  }
  agent->work_dir = o.work_dir;
  if (agent->work_dir.empty()) {
    agent->work_dir = DefaultWorkDir(agent->platform->Identity().device_id());
  }
  PS_RETURN_IF_ERROR(PrepareStateDir(agent->work_dir, "--work_dir"));
  if (!agent->runtimes) {
    agent->runtimes = MakeRuntimes(o, agent.get(), clock, std::move(vms));
  }
  return agent;
}

}  // namespace powersweep
