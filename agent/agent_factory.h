// MakeAgent: what powersweep-agent runs with, from its flags: the platform
// (host, jetson or twin), the catalog of data sets, the container engine
// (only with an image allowlist and an engine that answers now; leftover
// containers of this device are removed), QEMU and the guest image of vm
// runs (host platform only), the runtime factory, the
// workload binary and the prepared state dir. agent/main.cc only parses
// flags and wires the result into a RunExecutor and a Session.
//
// Errors name the flag at fault (InvalidArgument / FailedPrecondition with
// the message the agent prints before exiting 2). For a probe
// (options.probe) nothing is checked, prepared or started beyond the
// platform: no workload binary, state dir, restore file or engine.
#ifndef POWERSWEEP_AGENT_AGENT_FACTORY_H_
#define POWERSWEEP_AGENT_AGENT_FACTORY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/run/catalog.h"
#include "agent/platform/platform.h"
#include "agent/run/run_executor.h"
#include "agent/runtime/docker/docker_engine.h"
#include "common/clock.h"

namespace powersweep {

struct AgentOptions {
  std::string platform = "host";  // --platform
  bool probe = false;             // `powersweep-agent probe`
  std::string agent_version;
  std::string device_id;  // --device_id
  std::string cpus;       // --cpus (host)
  // --workload_bin; empty: powersweep-workload in default_workload_dir.
  std::string workload_bin;
  std::string default_workload_dir = ".";
  std::vector<std::string> datasets;  // --dataset NAME=PATH
  std::string work_dir;               // --work_dir; empty: the default
  std::vector<std::string> container_images;
  std::string docker_client = "/usr/bin/docker";
  std::string qemu = "/usr/bin/qemu-system-x86_64";  // --qemu
  std::string vm_image;          // --vm_image; "" = next to the agent
  std::string vm_accel = "auto";  // --vm_accel
  std::string vm_data = "blk";    // --vm_data: blk or 9p
  std::string sysfs_root = "/";  // jetson
  std::string nvml_library = "libnvidia-ml.so.1";  // host
  int nvml_gpu = 0;                                // host
  std::string device_class;      // twin
  int64_t instance = 0;          // twin
  uint64_t twin_seed = 1;        // twin
  double twin_time_scale = 0.01;  // twin
  double twin_slowdown = 1.0;     // twin
  std::string twin_temperature_file;  // twin (tests)
};

struct Agent {
  Catalog catalog;
  std::unique_ptr<DockerEngine> engine;  // null: no container runs
  std::unique_ptr<Platform> platform;
  RunRuntimeFactory runtimes;  // empty for a probe
  std::string workload_bin;
  std::string work_dir;  // prepared (agent/util/state_dir.h); "" for a probe
};

// The agent is returned by pointer: its runtime factory refers to its
// catalog. `clock` must outlive it.
absl::StatusOr<std::unique_ptr<Agent>> MakeAgent(const AgentOptions& options,
                                                 Clock* clock);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_AGENT_FACTORY_H_
