#include "agent/runtime/docker/docker_engine.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

bool Mentions(const CommandResult& r, absl::string_view text) {
  return absl::StrContains(r.err, text) || absl::StrContains(r.out, text);
}

}  // namespace

absl::Status DockerAvailable(const std::string& client_path) {
  absl::StatusOr<CommandResult> r = RunCommand(
      {client_path, "version", "--format", "{{.Server.Version}}"}, 15);
  if (!r.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("docker engine not reachable: ", r.status().message()));
  }
  if (r->exit_code == 127 && absl::StrContains(r->err, "cannot exec")) {
    return absl::FailedPreconditionError(
        absl::StrCat("docker engine not reachable: ", r->Summary(),
                     " (is docker.io installed?)"));
  }
  if (!r->ok() || absl::StripAsciiWhitespace(r->out).empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("docker engine not reachable: ", r->Summary()));
  }
  return absl::OkStatus();
}

absl::StatusOr<ContainerState> ParseInspectLine(const std::string& line) {
  std::vector<std::string> f =
      absl::StrSplit(absl::StripAsciiWhitespace(line), ' ', absl::SkipEmpty());
  ContainerState s;
  if (f.size() != 7 || !absl::SimpleAtoi(f[4], &s.pid) ||
      !absl::SimpleAtoi(f[5], &s.exit_code)) {
    return absl::InternalError(
        absl::StrCat("docker inspect: unexpected output \"", line, "\""));
  }
  s.id = f[0];
  s.image_id = f[1];
  s.status = f[2];
  s.running = f[3] == "true";
  s.oom_killed = f[6] == "true";
  return s;
}

DockerEngine::DockerEngine(std::string client_path, double command_timeout_s)
    : client_(std::move(client_path)), timeout_s_(command_timeout_s) {}

absl::StatusOr<CommandResult> DockerEngine::Run(std::vector<std::string> args) {
  args.insert(args.begin(), client_);
  PS_ASSIGN_OR_RETURN(CommandResult r, RunCommand(args, timeout_s_));
  if (r.timed_out) {
    return absl::UnavailableError(absl::StrCat(
        "docker ", args[1], ": no answer within ", timeout_s_, " s"));
  }
  return r;
}

absl::StatusOr<int> DockerEngine::StartAttached(
    const std::vector<std::string>& run_args, int stdout_fd, int stderr_fd) {
  std::vector<std::string> argv = {client_};
  argv.insert(argv.end(), run_args.begin(), run_args.end());
  SpawnFds fds;
  fds.stdout_fd = stdout_fd;
  fds.stderr_fd = stderr_fd;
  return SpawnProcess(argv, fds);
}

absl::StatusOr<ContainerState> DockerEngine::Inspect(const std::string& name) {
  PS_ASSIGN_OR_RETURN(CommandResult r, Run({"container", "inspect", "-f",
                                            kInspectFormat, name}));
  if (!r.ok()) {
    if (Mentions(r, "No such container")) {
      return absl::NotFoundError(
          absl::StrCat("container ", name, " not found"));
    }
    return absl::UnavailableError(
        absl::StrCat("docker inspect ", name, ": ", r.Summary()));
  }
  return ParseInspectLine(r.out);
}

absl::Status DockerEngine::Kill(const std::string& name,
                                const std::string& signal) {
  PS_ASSIGN_OR_RETURN(CommandResult r, Run({"kill", "--signal", signal, name}));
  if (r.ok() || Mentions(r, "is not running") ||
      Mentions(r, "No such container")) {
    return absl::OkStatus();
  }
  return absl::UnavailableError(absl::StrCat("docker kill --signal ", signal,
                                             " ", name, ": ", r.Summary()));
}

absl::Status DockerEngine::Remove(const std::string& name) {
  PS_ASSIGN_OR_RETURN(CommandResult r, Run({"rm", "--force", name}));
  if (r.ok() || Mentions(r, "No such container")) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat("docker rm --force ", name, ": ", r.Summary()));
}

absl::StatusOr<std::string> DockerEngine::ImageId(const std::string& image) {
  PS_ASSIGN_OR_RETURN(CommandResult r,
                      Run({"image", "inspect", "-f", "{{.Id}}", image}));
  if (!r.ok()) {
    if (Mentions(r, "No such image")) {
      return absl::NotFoundError(
          absl::StrCat("image ", image, " is not present in the engine"));
    }
    return absl::UnavailableError(
        absl::StrCat("docker image inspect ", image, ": ", r.Summary()));
  }
  return std::string(absl::StripAsciiWhitespace(r.out));
}

absl::Status DockerEngine::SaveImage(const std::string& image,
                                    const std::string& path) {
  // A large image takes longer than one command's timeout.
  constexpr double kSaveTimeoutS = 900;
  PS_ASSIGN_OR_RETURN(
      CommandResult r,
      RunCommand({client_, "save", "-o", path, image}, kSaveTimeoutS));
  if (r.timed_out) {
    return absl::UnavailableError(absl::StrCat(
        "docker save ", image, ": not done within ", kSaveTimeoutS, " s"));
  }
  if (!r.ok()) {
    if (Mentions(r, "No such image") || Mentions(r, "reference does not exist")) {
      return absl::NotFoundError(
          absl::StrCat("image ", image, " is not present in the engine"));
    }
    return absl::UnavailableError(
        absl::StrCat("docker save ", image, ": ", r.Summary()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> DockerEngine::ListContainers(
    const std::string& label) {
  PS_ASSIGN_OR_RETURN(CommandResult r, Run({"ps", "--all", "--filter",
                                            absl::StrCat("label=", label),
                                            "--format", "{{.Names}}"}));
  if (!r.ok()) {
    return absl::UnavailableError(
        absl::StrCat("docker ps --filter label=", label, ": ", r.Summary()));
  }
  std::vector<std::string> names;
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) names.emplace_back(line);
  }
  return names;
}

}  // namespace powersweep
