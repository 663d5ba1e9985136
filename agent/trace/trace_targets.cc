#include "agent/trace/trace_targets.h"

#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace powersweep {
namespace {

bool IsDir(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}


std::vector<int> ListNumbers(const std::string& text) {
  std::vector<int> out;
  for (absl::string_view w : absl::StrSplit(text, absl::ByAnyChar(" \n\t"),
                                            absl::SkipEmpty())) {
    int v = 0;
    if (absl::SimpleAtoi(w, &v)) out.push_back(v);
  }
  return out;
}

std::vector<int> TasksOf(const std::string& proc_root, int pid) {
  std::vector<int> tids;
  const std::string dir = absl::StrCat(proc_root, "/", pid, "/task");
  // The task folder's entries, read through a listing of numbers.
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      int tid = 0;
      if (absl::SimpleAtoi(e->d_name, &tid)) tids.push_back(tid);
    }
    closedir(d);
  }
  return tids;
}

}  // namespace

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::StatusOr<std::string> FindTracefs(const std::vector<std::string>& dirs,
                                        bool mount_it) {
  for (const std::string& d : dirs) {
    if (IsDir(d + "/events")) return d;
  }
  if (dirs.empty()) {
    return absl::FailedPreconditionError("no tracefs directory configured");
  }
  std::string why;
  if (!mount_it) {
    why = "mounting it is off";
  } else if (geteuid() != 0) {
    why = "the agent is not root, so it cannot mount it";
  } else if (::mount("nodev", dirs[0].c_str(), "tracefs", 0, nullptr) != 0) {
    why = absl::StrCat("mount -t tracefs at ", dirs[0], ": ",
                       std::strerror(errno));
  } else if (IsDir(dirs[0] + "/events")) {
    return dirs[0];
  } else {
    why = absl::StrCat("mounted at ", dirs[0], " but it has no events");
  }
  return absl::FailedPreconditionError(
      absl::StrCat("tracefs is not mounted (looked in ",
                   absl::StrJoin(dirs, ", "), "); ", why));
}

std::vector<int> WorkloadThreads(const std::string& proc_root,
                                 const std::vector<int>& pids) {
  std::vector<int> out;
  std::set<int> seen_pids;
  std::vector<int> todo(pids.begin(), pids.end());
  while (!todo.empty()) {
    const int pid = todo.back();
    todo.pop_back();
    if (pid <= 0 || !seen_pids.insert(pid).second) continue;
    for (int tid : TasksOf(proc_root, pid)) {
      out.push_back(tid);
      std::optional<std::string> children = ReadWholeFile(
          absl::StrCat(proc_root, "/", pid, "/task/", tid, "/children"));
      if (children) {
        for (int child : ListNumbers(*children)) todo.push_back(child);
      }
    }
  }
  return out;
}

}  // namespace powersweep
