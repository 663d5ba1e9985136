#include "agent/platform/jetson/nvpmodel_reboot.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/log.h"

extern char** environ;

namespace powersweep {
namespace jetson {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string MarkerPath(const NvpmodelRebootOptions& o) {
  return o.state_dir + "/reboot.json";
}

// `"key": "value"` of the marker (written by Start below; no nesting).
std::string Field(const std::string& json, const std::string& key) {
  const std::string k = "\"" + key + "\": \"";
  const size_t at = json.find(k);
  if (at == std::string::npos) return "";
  const size_t b = at + k.size();
  const size_t e = json.find('"', b);
  return e == std::string::npos ? "" : json.substr(b, e - b);
}

}  // namespace

NvpmodelReboot::NvpmodelReboot(NvpmodelRebootOptions options)
    : options_(std::move(options)) {
  const std::string marker = ReadAll(MarkerPath(options_));
  if (marker.empty()) return;
  const std::string boot =
      std::string(absl::StripAsciiWhitespace(ReadAll(options_.boot_id_path)));
  const bool rebooted = Field(marker, "boot_id") != boot;
  absl::MutexLock lock(&mu_);
  tried_preset_ = Field(marker, "preset");
  previous_ = absl::StrCat(
      rebooted ? "rebooted" : "asked for a reboot (the board did not go "
                              "down)",
      " for ", tried_preset_, " (nvpmodel -m ", Field(marker, "nvpmodel_id"),
      ") at ", Field(marker, "time"));
  PS_LOG(INFO) << "the previous boot " << previous_;
  std::remove(MarkerPath(options_).c_str());
}

std::string NvpmodelReboot::previous() const {
  absl::MutexLock lock(&mu_);
  return previous_;
}

std::string NvpmodelReboot::Blocked(const RebootTarget& target) {
  absl::MutexLock lock(&mu_);
  if (tried_preset_.empty() || tried_preset_ != target.preset) return "";
  return absl::StrCat("the agent already ", previous_,
                      " and the board still needs a reboot for it; not "
                      "rebooting again");
}

absl::Status NvpmodelReboot::Failed(const RebootTarget& target,
                                    const std::string& why) {
  std::remove(MarkerPath(options_).c_str());
  absl::MutexLock lock(&mu_);
  tried_preset_ = target.preset;
  previous_ = absl::StrCat("tried to reboot for ", target.preset, ": ", why);
  return absl::FailedPreconditionError(why);
}

absl::Status NvpmodelReboot::Start(const RebootTarget& target) {
  const std::string boot =
      std::string(absl::StripAsciiWhitespace(ReadAll(options_.boot_id_path)));
  {
    std::ofstream marker(MarkerPath(options_), std::ios::trunc);
    marker << "{\"preset\": \"" << target.preset << "\", \"nvpmodel_id\": \""
           << target.nvpmodel_id << "\", \"boot_id\": \"" << boot
           << "\", \"time\": \""
           << absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::Now(),
                               absl::UTCTimeZone())
           << "\"}\n";
    marker.flush();
    if (!marker) {
      return absl::FailedPreconditionError(absl::StrCat(
          MarkerPath(options_), ": cannot write the reboot marker"));
    }
  }
  // nvpmodel's prompt reads its answer from stdin.
  const std::string answer = options_.state_dir + "/reboot.answer";
  std::ofstream(answer, std::ios::trunc) << "YES\n";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, answer.c_str(), O_RDONLY, 0);
  const std::string id = absl::StrCat(target.nvpmodel_id);
  std::vector<char*> argv = {const_cast<char*>(options_.nvpmodel.c_str()),
                             const_cast<char*>("-m"),
                             const_cast<char*>(id.c_str()), nullptr};
  pid_t pid = 0;
  const int err = posix_spawn(&pid, options_.nvpmodel.c_str(), &actions,
                              nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    return Failed(target, absl::StrCat(options_.nvpmodel, ": cannot start it (",
                                       std::strerror(err), ")"));
  }
  // nvpmodel either exits (0: the reboot is under way; else it refused)
  // or is still running when the board goes down.
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) break;
      return Failed(target,
                    absl::StrCat(options_.nvpmodel, " -m ", id, " failed (",
                                 WIFEXITED(status)
                                     ? absl::StrCat("exit code ",
                                                    WEXITSTATUS(status))
                                     : absl::StrCat("signal ",
                                                    WTERMSIG(status)),
                                 "): the board was not rebooted"));
    }
    usleep(100 * 1000);
  }
  PS_LOG(WARNING) << "rebooting the board into " << target.preset
                  << ": " << options_.nvpmodel << " -m " << id << " (pid "
                  << pid << "); " << target.reason;
  return absl::OkStatus();
}

}  // namespace jetson
}  // namespace powersweep
