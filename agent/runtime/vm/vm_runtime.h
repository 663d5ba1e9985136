// VmRuntime: a `vm` run's workload in a QEMU virtual machine, or a
// `container_in_vm` run's: the workload image in Docker inside that VM.
//
// The VM boots the guest of infra/vm/build-guest-image.sh (vm_guest.h):
// its /init mounts the host's / read-only over virtio-9p and runs, chrooted
// there, a script this runtime writes: `cd` to the agent's directory, the
// agent's environment, then the very argv a native run executes (the same
// powersweep-workload and LibTorch files, so the build fingerprint is the
// native one). Records leave the guest on the virtio-serial port
// "powersweep.records", which QEMU writes to its fd 3: the records pipe a
// NativeRuntime gives the process it starts. QEMU itself is started,
// pinned, timed out, cancelled and reaped by that NativeRuntime, so a
// cancel or timeout stops the VM, and an agent that dies takes it along
// (PR_SET_PDEATHSIG). The guest's stderr is appended to the run's log; its
// kernel console goes to `<log>.vm/console.log`; the workload's exit code
// comes back on the port "powersweep.exit" (125: the guest's /init failed,
// the reason is console.log's last line).
//
// With a VmContainerRun (container_in_vm), the guest runs
// VmContainerScript instead (vm_script.h): the host's dockerd in the
// guest, `docker load` of the image's archive (GuestImageArchives), then
// `docker run` with the arguments a container run gets (BuildDockerRunArgs,
// without --cpuset-cpus: the guest's vCPUs are not the host's CPUs; QEMU
// itself is pinned to the run's cores). The guest reports when its engine
// answered and when the image was loaded on the port "powersweep.phases"
// (`<log>.vm/phases`), which VmInfo returns.
//
// The process the agent measures (Pid, cpu_s, max RSS, telemetry) is the
// whole QEMU process: vCPUs, I/O threads and the emulator (VmRun says so).
//
// Thread safety: as NativeRuntime (Start/Wait from one thread; Cancel and
// Pid from any thread; VmInfo from any thread after Start).
#ifndef POWERSWEEP_AGENT_RUNTIME_VM_VM_RUNTIME_H_
#define POWERSWEEP_AGENT_RUNTIME_VM_VM_RUNTIME_H_

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include <optional>

#include "agent/runtime/docker/container_config.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/runtime/runtime.h"
#include "agent/runtime/vm/vm_guest.h"
#include "agent/runtime/vm/vm_script.h"
#include "common/clock.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/workload.pb.h"

namespace powersweep {

// A VM's memory when its VmSpec gives none (the controller's sweep default,
// controller/sweep/validate.h, is the same).
inline constexpr int kVmDefaultMemoryMib = 4096;

struct VmRuntimeConfig {
  std::string qemu = "/usr/bin/qemu-system-x86_64";
  VmGuest guest;
  VmAccel accel;  // accel.accel "kvm" or "tcg"
};

// What one VM gets.
struct VmLaunch {
  int vcpus = 1;
  int memory_mib = kVmDefaultMemoryMib;
  std::string run_script;    // path the guest runs (no whitespace)
  std::string console_log;   // the guest kernel's console
  std::string stderr_log;    // the workload's stdout and stderr ("": none)
  std::string exit_file;     // the workload's exit code
  std::string phases_file;   // "<phase> <guest uptime s>" lines
  std::string data_disk;     // read-only virtio-blk disk ("": none)
  std::string name;          // -name, e.g. "powersweep-run-11-tenant-0"
};

// The qemu argv (argv[0] = config.qemu) for `launch`.
std::vector<std::string> QemuArgv(const VmRuntimeConfig& config,
                                  const VmLaunch& launch);

// A run's data set in the guest: `path` (the host's directory, also its
// path in the guest) is read over 9p, or, with a `disk` (VmDataDisks), from
// that read-only ext4 image mounted over `path`.
struct VmDataMount {
  std::string path;
  std::string disk;  // "": 9p
};

// A container_in_vm run's container: what a container run would get, the
// image's id and its archive on the host (GuestImageArchives).
struct VmContainerRun {
  DockerRuntimeConfig config;
  ContainerRequest request;
  std::string image_id;
  std::string image_archive;
};

class VmRuntime : public Runtime, public VirtualMachineRun {
 public:
  // `vm` is the run's VmSpec (0 = defaults: vcpus from the run's cores, else
  // `default_vcpus`; 4096 MiB).
  VmRuntime(Clock* clock, VmRuntimeConfig config, v1::VmSpec vm,
            int default_vcpus,
            std::optional<VmContainerRun> container = std::nullopt,
            std::optional<VmDataMount> data = std::nullopt);

  absl::Status Start(const RuntimeSpec& spec,
                     RecordCallback callback) override;
  ExitStatus Wait() override;
  void Cancel(const std::string& reason) override { qemu_.Cancel(reason); }
  int Pid() const override { return qemu_.Pid(); }

  // How the VM ran (accel, size, guest, start to first record; the guest's
  // engine and image phases for container_in_vm).
  v1::VmRun VmInfo() const override;

 private:
  Clock* const clock_;
  const VmRuntimeConfig config_;
  const v1::VmSpec vm_;
  const int default_vcpus_;
  const std::optional<VmContainerRun> container_;
  const std::optional<VmDataMount> data_;
  VmLaunch launch_;
  int64_t start_ns_ = 0;
  std::atomic<int64_t> first_record_ns_{0};
  NativeRuntime qemu_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_VM_VM_RUNTIME_H_
