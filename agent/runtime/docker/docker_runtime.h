// DockerRuntime: the workload in a container, behind the Runtime interface
// (agent/runtime/runtime.h), driven through a ContainerEngine (DockerEngine
// in the agent, FakeContainerEngine in tests).
//
// One instance runs one container for one run attempt and tenant
// (ContainerRequest); its name is ContainerName(config.name_prefix,
// request), unique per device, run, attempt and tenant.
//
// Start(spec, callback):
// - refuses (PermissionDenied, nothing started) an image that is not in
//   config.image_allowlist, naming the image and the allowlist;
// - FailedPrecondition when the image is not present in the engine (it is
//   never pulled) or the engine does not answer;
// - removes a stale container of the same name, then starts the container
//   attached (BuildDockerRunArgs: --network none, --pull never, the run's
//   CPUs as --cpuset-cpus, request.read_only_mounts bind-mounted read-only
//   at the same paths, its own parent cgroup). spec.argv[0] is replaced by
//   config.workload_path_in_image and the workload's --records-fd by 1:
//   records travel on the container's stdout through the attached client
//   into the agent's pipe and are parsed as in the native runtime; the
//   container's stderr (the workload's logs and the engine's own errors)
//   is appended to spec.stderr_log_path;
// - returns once the container runs (or has already ended), so Pid() is
//   meaningful right after Start: the workload's host pid (with
//   config.use_init the init's child, else the container's init). An
//   engine that fails to run the container shows up in Wait() as exit code
//   125 with the engine's message as the last stderr line.
// Wait(): as NativeRuntime: enforces spec.timeout_s on the Clock; on cancel
// or timeout the engine sends SIGTERM to the container and SIGKILL after
// spec.grace_s. Then the container's exit code (an exit code 128+N is
// reported as termination by signal N, which is how an init and the
// engine report it), its final cgroup statistics, and removal: the
// container and its cgroup directories are gone when Wait() returns,
// whatever happened. ExitStatus.cpu_s is the container's cgroup CPU time;
// max_rss_bytes the workload process's peak RSS (VmHWM), else the cgroup's
// memory high-water mark. An OOM kill is noted as the last stderr line.
// Cancel(reason): any thread, any time; it wakes Wait(), which sends the
// engine's kill (Cancel itself never blocks on the engine). Before Start,
// Start then fails with Cancelled.
// The engine client is a child process supervised by a ChildSupervisor
// (agent/runtime/child_process.h), as NativeRuntime's workload: Wait()
// sleeps until the client exits, a cancel, or the next deadline (timeout,
// grace, the peak RSS refresh every config.stats_interval_s).
//
// SampleStats(): the container's statistics now (any thread; during the
// run). FailedPrecondition before the container runs; after Wait() the
// final statistics. LastStats() is the latest successful reading.
// ReadCounters() (CountedRun) is the same reading as WorkloadCounters.
//
// The destructor kills and removes a container still present.
#ifndef POWERSWEEP_AGENT_RUNTIME_DOCKER_DOCKER_RUNTIME_H_
#define POWERSWEEP_AGENT_RUNTIME_DOCKER_DOCKER_RUNTIME_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "agent/runtime/child_process.h"
#include "agent/runtime/docker/container_config.h"
#include "agent/runtime/docker/container_engine.h"
#include "agent/runtime/docker/container_stats.h"
#include "agent/runtime/runtime.h"
#include "agent/telemetry/proc_file.h"
#include "common/clock.h"

namespace powersweep {

// The id ("sha256:<hex>") of `image` in `engine`, once `config`'s allowlist
// allows it (by name, else by id when the allowlist lists ids):
// PermissionDenied naming the image and the allowlist, or
// FailedPrecondition when the engine does not have it (with how to build
// it). Used by DockerRuntime and by container_in_vm runs.
absl::StatusOr<std::string> ResolveAllowedImage(
    const DockerRuntimeConfig& config, ContainerEngine* engine,
    const std::string& image);

class DockerRuntime : public Runtime, public CountedRun {
 public:
  // `engine` and `clock` must outlive the runtime.
  DockerRuntime(DockerRuntimeConfig config, ContainerRequest request,
                ContainerEngine* engine, Clock* clock);
  ~DockerRuntime() override;

  absl::Status Start(const RuntimeSpec& spec, RecordCallback callback) override;
  ExitStatus Wait() override;
  void Cancel(const std::string& reason) override;
  int Pid() const override { return pid_; }

  // The engine's full container id, once it runs ("" before).
  std::string container_id() const;

  absl::StatusOr<ContainerStats> SampleStats();
  std::optional<ContainerStats> LastStats() const;

  // CountedRun (agent/runtime/runtime.h): SampleStats()'s page faults and
  // dirty/write-back bytes (nullopt before the container runs); the bare
  // container name; the image id.
  std::optional<WorkloadCounters> ReadCounters() override;
  std::string ContainerName() const override { return name_; }
  std::string ImageId() const override { return image_id_; }

 private:
  // Polls the engine until the container runs or ends, the client exits,
  // a cancel arrives, or start_timeout_s passes (then an error).
  absl::Status AwaitRunning();
  int FindWorkloadPid(int init_pid);
  void ReadLoop(int fd);
  // The engine's kill for the supervisor's SIGTERM / SIGKILL stop.
  void StopContainer(int sig);
  void RefreshPeakRss();
  // Kills what is left, reads final stats, removes container and cgroups.
  void Finish();
  void CleanupCgroups();

  const DockerRuntimeConfig config_;
  const ContainerRequest request_;
  ContainerEngine* const engine_;
  Clock* const clock_;
  const std::string name_;
  const std::string cgroup_path_;  // below the cgroup root

  RuntimeSpec spec_;
  RecordCallback callback_;
  std::string image_id_;
  std::thread reader_;
  std::atomic<int> pid_{0};
  std::atomic<int> bad_lines_{0};
  bool finished_ = false;
  std::optional<ContainerState> final_state_;

  mutable absl::Mutex mu_;
  std::string container_id_ ABSL_GUARDED_BY(mu_);

  mutable absl::Mutex stats_mu_;
  std::unique_ptr<CgroupStatsReader> stats_reader_ ABSL_GUARDED_BY(stats_mu_);
  std::unique_ptr<ProcFile> workload_status_ ABSL_GUARDED_BY(stats_mu_);
  int64_t peak_rss_bytes_ ABSL_GUARDED_BY(stats_mu_) = 0;
  std::optional<ContainerStats> last_stats_ ABSL_GUARDED_BY(stats_mu_);
  bool stats_final_ ABSL_GUARDED_BY(stats_mu_) = false;

  // The engine client. Declared last: destroyed (killed and reaped if
  // still running) first.
  ChildSupervisor client_;
};

// Removes every container labelled powersweep.device=<device_id> (left
// behind by an agent that died while a run was in a container) and its
// cgroup directories. Returns the names removed. For the agent's start.
absl::StatusOr<std::vector<std::string>> RemoveLeftoverContainers(
    ContainerEngine* engine, const DockerRuntimeConfig& config,
    const std::string& device_id);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_DOCKER_DOCKER_RUNTIME_H_
