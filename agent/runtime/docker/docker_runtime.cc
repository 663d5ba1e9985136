#include "agent/runtime/docker/docker_runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/util/seconds_to_nanos.h"
#include "agent/util/state_dir.h"
#include "common/log.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

// The parent pid from the text of /proc/<pid>/stat ("pid (comm) S ppid").
int ParentPid(const std::string& stat_text) {
  size_t paren = stat_text.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream rest(stat_text.substr(paren + 1));
  std::string state;
  int ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

DockerRuntime::DockerRuntime(DockerRuntimeConfig config,
                             ContainerRequest request, ContainerEngine* engine,
                             Clock* clock)
    : config_(std::move(config)),
      request_(std::move(request)),
      engine_(engine),
      clock_(clock),
      name_(::powersweep::ContainerName(config_.name_prefix, request_)),
      cgroup_path_(absl::StrCat(config_.cgroup_parent, "/", name_)),
      client_(clock) {}

DockerRuntime::~DockerRuntime() {
  if (client_.pid() == 0 || finished_) {
    if (reader_.joinable()) reader_.join();
    return;
  }
  (void)engine_->Kill(name_, "KILL");
  client_.KillAndReap();
  if (reader_.joinable()) reader_.join();
  absl::Status rm = engine_->Remove(name_);
  if (!rm.ok())
    PS_LOG(WARNING) << "container " << name_ << ": " << rm.message();
  CleanupCgroups();
}

std::string DockerRuntime::container_id() const {
  absl::MutexLock lock(&mu_);
  return container_id_;
}

absl::StatusOr<std::string> ResolveAllowedImage(
    const DockerRuntimeConfig& config, ContainerEngine* engine,
    const std::string& image) {
  // The allowlist first, by name; by image id only when it lists ids.
  std::string resolved;
  absl::Status allowed = CheckImageAllowed(image, "", config.image_allowlist);
  if (!allowed.ok() && AllowlistHasImageIds(config.image_allowlist)) {
    absl::StatusOr<std::string> id = engine->ImageId(image);
    if (id.ok()) {
      resolved = *id;
      allowed = CheckImageAllowed(image, resolved, config.image_allowlist);
    }
  }
  if (!allowed.ok()) return allowed;
  if (resolved.empty()) {
    absl::StatusOr<std::string> id = engine->ImageId(image);
    if (!id.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "image \"", image, "\" is not available in the container engine (",
          id.status().message(),
          "); build it with infra/docker/build-workload-image.sh"));
    }
    resolved = *id;
  }
  return resolved;
}

absl::Status DockerRuntime::Start(const RuntimeSpec& spec,
                                  RecordCallback callback) {
  if (client_.pid() != 0) {
    return absl::FailedPreconditionError("runtime: already started");
  }
  if (spec.argv.empty()) {
    return absl::InvalidArgumentError("argv: empty command line");
  }
  if (absl::Status c = client_.CheckNotCancelled(); !c.ok()) return c;
  const std::string& image = request_.image;
  PS_ASSIGN_OR_RETURN(image_id_,
                      ResolveAllowedImage(config_, engine_, image));

  // A container of this name left by an earlier agent would block the name.
  absl::Status stale = engine_->Remove(name_);
  if (!stale.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("container engine: ", stale.message()));
  }
  CleanupCgroups();

  spec_ = spec;
  callback_ = std::move(callback);
  DockerRunInput input;
  input.name = name_;
  input.image_ref = image_id_;
  input.requested_image = image;
  input.device_id = request_.device_id;
  input.uid = static_cast<int>(getuid());
  input.gid = static_cast<int>(getgid());
  PS_ASSIGN_OR_RETURN(std::vector<std::string> args,
                      BuildDockerRunArgs(config_, request_, input, spec_));

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  WidenRecordPipe(pipe_fds[0]);
  const std::string log_path =
      spec_.stderr_log_path.empty() ? "/dev/null" : spec_.stderr_log_path;
  // O_NOFOLLOW | O_CLOEXEC, created 0600 (agent/util/state_dir.h).
  absl::StatusOr<int> opened =
      OpenStateFile(log_path, O_WRONLY | O_CREAT | O_APPEND);
  if (!opened.ok()) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return absl::InternalError(absl::StrCat(
        "cannot open the workload log: ", opened.status().message()));
  }
  const int log_fd = *opened;
  {
    absl::MutexLock lock(&stats_mu_);
    stats_reader_ =
        std::make_unique<CgroupStatsReader>(config_.cgroup_root, cgroup_path_);
  }
  SupervisorOptions supervise;
  supervise.timeout_s = spec_.timeout_s;
  supervise.grace_s = spec_.grace_s;
  // The container is stopped through the engine (which may block: never
  // from Cancel); a client that outlives a KILLed container this long is
  // stuck and killed itself.
  supervise.stop = [this](int sig) { StopContainer(sig); };
  supervise.stop_from_cancel = false;
  supervise.kill_child_after_s = spec_.grace_s + config_.start_timeout_s;
  supervise.tick_s = config_.stats_interval_s;
  supervise.tick = [this] { RefreshPeakRss(); };
  absl::Status started = client_.Start(
      [&]() -> absl::StatusOr<pid_t> {
        PS_ASSIGN_OR_RETURN(int pid,
                            engine_->StartAttached(args, pipe_fds[1], log_fd));
        return static_cast<pid_t>(pid);
      },
      std::move(supervise));
  close(pipe_fds[1]);
  close(log_fd);
  if (!started.ok()) {
    close(pipe_fds[0]);
    return started;
  }
  reader_ = std::thread([this, fd = pipe_fds[0]] { ReadLoop(fd); });

  absl::Status up = AwaitRunning();
  if (!up.ok()) {
    // Leave nothing behind; the caller sees the error instead of a run.
    (void)engine_->Kill(name_, "KILL");
    (void)engine_->Remove(name_);
    client_.KillAndReap();
    if (reader_.joinable()) reader_.join();
    CleanupCgroups();
    finished_ = true;
    return up;
  }
  return absl::OkStatus();
}

absl::Status DockerRuntime::AwaitRunning() {
  const int64_t deadline =
      client_.start_ns() + SecondsToNanos(config_.start_timeout_s);
  while (true) {
    if (client_.TryReap()) return absl::OkStatus();  // already ended
    if (client_.cancelled()) return absl::OkStatus();  // Wait() stops it
    absl::StatusOr<ContainerState> st = engine_->Inspect(name_);
    if (st.ok()) {
      {
        absl::MutexLock lock(&mu_);
        container_id_ = st->id;
      }
      if (st->running && st->pid > 0) {
        if (!config_.use_init) {
          pid_ = st->pid;
          return absl::OkStatus();
        }
        const int child = FindWorkloadPid(st->pid);
        pid_ = child > 0 ? child : st->pid;
        if (child > 0) return absl::OkStatus();
      } else if (st->status == "exited" || st->status == "dead") {
        return absl::OkStatus();
      }
    } else if (!absl::IsNotFound(st.status())) {
      PS_LOG(WARNING) << "container " << name_ << ": " << st.status().message();
    }
    if (clock_->MonotonicNanos() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "container ", name_, " did not start within ",
          config_.start_timeout_s, " s (see ", spec_.stderr_log_path, ")"));
    }
    clock_->SleepFor(absl::Seconds(config_.poll_s));
  }
}

int DockerRuntime::FindWorkloadPid(int init_pid) {
  DIR* dir = opendir(config_.proc_root.c_str());
  if (dir == nullptr) return 0;
  int found = 0;
  while (dirent* e = readdir(dir)) {
    int pid = 0;
    if (!absl::SimpleAtoi(e->d_name, &pid) || pid == init_pid) continue;
    std::string stat =
        ReadSmallFile(absl::StrCat(config_.proc_root, "/", pid, "/stat"));
    if (ParentPid(stat) == init_pid) {
      found = pid;
      break;
    }
  }
  closedir(dir);
  return found;
}

void DockerRuntime::ReadLoop(int fd) {
  ReadRecordLines(fd, "container " + name_, callback_, &bad_lines_);
}

void DockerRuntime::StopContainer(int sig) {
  absl::Status k = engine_->Kill(name_, sig == SIGKILL ? "KILL" : "TERM");
  if (!k.ok()) PS_LOG(WARNING) << k.message();
}

void DockerRuntime::RefreshPeakRss() {
  const int pid = pid_;
  if (pid <= 0) return;
  absl::MutexLock lock(&stats_mu_);
  if (stats_final_) return;
  if (workload_status_ == nullptr) {
    workload_status_ = std::make_unique<ProcFile>(
        absl::StrCat(config_.proc_root, "/", pid, "/status"));
  }
  absl::StatusOr<std::string> text = workload_status_->Read();
  if (!text.ok()) return;  // it has exited
  absl::StatusOr<int64_t> hwm = ParseVmHwm(*text);
  if (hwm.ok()) peak_rss_bytes_ = std::max(peak_rss_bytes_, *hwm);
}

absl::StatusOr<ContainerStats> DockerRuntime::SampleStats() {
  RefreshPeakRss();
  absl::MutexLock lock(&stats_mu_);
  if (stats_final_) {
    if (last_stats_.has_value()) return *last_stats_;
    return absl::FailedPreconditionError(absl::StrCat(
        "container ", name_, ": no statistics were read before it ended"));
  }
  if (stats_reader_ == nullptr || pid_ == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("container ", name_, " is not running"));
  }
  PS_ASSIGN_OR_RETURN(ContainerStats s, stats_reader_->Read());
  s.workload_peak_rss_bytes = peak_rss_bytes_;
  last_stats_ = s;
  return s;
}

std::optional<WorkloadCounters> DockerRuntime::ReadCounters() {
  absl::StatusOr<ContainerStats> s = SampleStats();
  if (!s.ok()) return std::nullopt;
  WorkloadCounters c;
  c.pgfault = s->memory.pgfault;
  c.pgmajfault = s->memory.pgmajfault;
  c.dirty_bytes = s->memory.dirty_bytes;
  c.writeback_bytes = s->memory.writeback_bytes;
  return c;
}

std::optional<ContainerStats> DockerRuntime::LastStats() const {
  absl::MutexLock lock(&stats_mu_);
  return last_stats_;
}

void DockerRuntime::Cancel(const std::string& reason) { client_.Cancel(reason); }

void DockerRuntime::CleanupCgroups() {
  absl::Status st = RemoveCgroupDirs(config_.cgroup_root, cgroup_path_);
  if (!st.ok())
    PS_LOG(WARNING) << "container " << name_ << ": " << st.message();
}

void DockerRuntime::Finish() {
  if (reader_.joinable()) reader_.join();
  absl::StatusOr<ContainerState> st = engine_->Inspect(name_);
  // The client ended but the container runs on (the client was killed):
  // stop it before reading the final statistics.
  for (int i = 0; st.ok() && st->running && i < 100; ++i) {
    (void)engine_->Kill(name_, "KILL");
    clock_->SleepFor(absl::Seconds(config_.poll_s));
    st = engine_->Inspect(name_);
  }
  if (st.ok()) final_state_ = *st;
  {
    absl::MutexLock lock(&stats_mu_);
    if (stats_reader_ != nullptr) {
      absl::StatusOr<ContainerStats> s = stats_reader_->Read();
      if (s.ok()) {
        s->workload_peak_rss_bytes = peak_rss_bytes_;
        last_stats_ = *s;
      } else {
        PS_LOG(WARNING) << "container " << name_
                        << ": final statistics: " << s.status().message();
        if (last_stats_.has_value()) {
          last_stats_->workload_peak_rss_bytes = peak_rss_bytes_;
        }
      }
    }
    stats_final_ = true;
  }
  absl::Status rm = engine_->Remove(name_);
  if (!rm.ok())
    PS_LOG(WARNING) << "container " << name_ << ": " << rm.message();
  CleanupCgroups();
  finished_ = true;
}

ExitStatus DockerRuntime::Wait() {
  ExitStatus out;
  if (client_.pid() <= 0 || finished_) {
    out.exit_code = -1;
    return out;
  }
  const ChildExit client = client_.Wait();
  if (client.killed_directly) {
    PS_LOG(WARNING) << "container " << name_
                    << ": the engine client did not exit; it was killed";
  }
  Finish();

  out.wall_s = (clock_->MonotonicNanos() - client_.start_ns()) * 1e-9;
  int code = -1;
  if (client.exited()) {
    code = client.exit_code();
  } else if (client.signaled() && !client.killed_directly) {
    code = 128 + client.term_signal();  // as an init would report it
  } else if (final_state_.has_value()) {
    code =
        final_state_->exit_code;  // the client was killed or reaped elsewhere
  }
  out.exit_code = code;
  if (code > 128 && code <= 128 + 64) out.term_signal = code - 128;
  {
    absl::MutexLock lock(&stats_mu_);
    if (last_stats_.has_value()) {
      out.cpu_s = last_stats_->cpu_s;
      out.max_rss_bytes = last_stats_->workload_peak_rss_bytes > 0
                              ? last_stats_->workload_peak_rss_bytes
                              : last_stats_->memory_peak_bytes;
    }
  }
  out.bad_record_lines = bad_lines_;
  out.timeout_s = spec_.timeout_s;
  out.last_stderr_line = LastLineOfFile(spec_.stderr_log_path);
  if (final_state_.has_value() && final_state_->oom_killed) {
    out.last_stderr_line = "the container was killed for lack of memory (OOM)";
  }
  out.cancelled = client.cancelled && !client.timed_out;
  out.cancel_reason = client.cancel_reason;
  out.timed_out = client.timed_out;
  return out;
}

absl::StatusOr<std::vector<std::string>> RemoveLeftoverContainers(
    ContainerEngine* engine, const DockerRuntimeConfig& config,
    const std::string& device_id) {
  PS_ASSIGN_OR_RETURN(
      std::vector<std::string> names,
      engine->ListContainers(absl::StrCat("powersweep.device=", device_id)));
  for (const std::string& name : names) {
    PS_RETURN_IF_ERROR(engine->Remove(name));
    absl::Status cg = RemoveCgroupDirs(
        config.cgroup_root, absl::StrCat(config.cgroup_parent, "/", name));
    if (!cg.ok()) PS_LOG(WARNING) << cg.message();
  }
  return names;
}

}  // namespace powersweep
