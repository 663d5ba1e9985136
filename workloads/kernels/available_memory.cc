#include "workloads/kernels/available_memory.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace powersweep {
namespace {

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool ReadNumber(const std::string& path, double* out) {
  std::string text;
  if (!ReadFile(path, &text)) return false;
  return absl::SimpleAtod(absl::StripAsciiWhitespace(text), out);
}

// The cgroup path of this process: "0::/path" (v2) or the memory
// controller's line (v1).
std::string CgroupPath(const std::string& root, bool* v2) {
  std::string text;
  if (!ReadFile(absl::StrCat(root, "/proc/self/cgroup"), &text)) return "";
  std::string v1_path, v2_path;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (parts.size() != 3) continue;
    if (parts[0] == "0" && parts[1].empty()) v2_path = parts[2];
    for (absl::string_view c : absl::StrSplit(parts[1], ',')) {
      if (c == "memory") v1_path = parts[2];
    }
  }
  *v2 = v1_path.empty();
  return *v2 ? v2_path : v1_path;
}

// Limit less usage of the cgroup and its parents with a limit; a
// negative value when no limit applies.
double CgroupHeadroom(const std::string& root) {
  bool v2 = true;
  std::string path = CgroupPath(root, &v2);
  double best = -1;
  // Inside a container the cgroup file system shows the container's own
  // cgroup at the mount root, so try the path and its parents down to /.
  while (true) {
    const std::string dir =
        v2 ? absl::StrCat(root, "/sys/fs/cgroup", path)
           : absl::StrCat(root, "/sys/fs/cgroup/memory", path);
    double limit = 0, usage = 0;
    const bool has_limit =
        ReadNumber(absl::StrCat(dir, v2 ? "/memory.max" : "/memory.limit_in_bytes"),
                   &limit) &&
        limit < 1e18;  // v1 reports "no limit" as a huge number, v2 as "max"
    if (has_limit &&
        ReadNumber(absl::StrCat(dir, v2 ? "/memory.current" : "/memory.usage_in_bytes"),
                   &usage)) {
      const double headroom = std::max(0.0, limit - usage);
      best = best < 0 ? headroom : std::min(best, headroom);
    }
    if (path.empty() || path == "/") break;
    const size_t slash = path.rfind('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  return best;
}

}  // namespace

absl::StatusOr<double> AvailableMemoryBytes(const std::string& root) {
  const std::string meminfo = absl::StrCat(root, "/proc/meminfo");
  std::string text;
  if (!ReadFile(meminfo, &text)) {
    return absl::UnavailableError(absl::StrCat("cannot read ", meminfo));
  }
  double available = -1;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, "MemAvailable:")) continue;
    line = absl::StripAsciiWhitespace(line);
    absl::ConsumeSuffix(&line, "kB");
    double kb = 0;
    if (absl::SimpleAtod(absl::StripAsciiWhitespace(line), &kb)) {
      available = kb * 1024;
    }
  }
  if (available < 0) {
    return absl::UnavailableError(
        absl::StrCat(meminfo, " has no MemAvailable line"));
  }
  const double headroom = CgroupHeadroom(root);
  return headroom < 0 ? available : std::min(available, headroom);
}

}  // namespace powersweep
