#include "workloads/data/storage_medium.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace powersweep {
namespace {

namespace fs = std::filesystem;

std::string Join(const std::string& root, const std::string& abs) {
  if (root.empty() || root == "/") return abs;
  return absl::StrCat(absl::StripSuffix(root, "/"), abs);
}

std::string ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

// Undoes mountinfo's octal escapes (\040 for a space).
std::string Unescape(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      bool ok = true;
      for (size_t k = 1; k <= 3 && ok; ++k) {
        ok = s[i + k] >= '0' && s[i + k] <= '7';
        if (ok) v = v * 8 + (s[i + k] - '0');
      }
      if (ok) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

bool UnderMount(const std::string& path, const std::string& mount) {
  if (mount == "/") return true;
  return path == mount ||
         (path.size() > mount.size() && path.compare(0, mount.size(), mount) == 0 &&
          path[mount.size()] == '/');
}

// Fills fs_type, mount_point and (for device-less file systems) device
// from the mount of `dev` with the longest mount point prefixing `path`.
void FindMount(const std::string& mountinfo, const std::string& path,
               unsigned major, unsigned minor, v1::StorageMedium* m) {
  std::ifstream in(mountinfo);
  const std::string want = absl::StrCat(major, ":", minor);
  std::string line;
  size_t best = 0;
  while (std::getline(in, line)) {
    // id parent MAJ:MIN root mount-point options [optional...] - type source
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    if (f.size() < 10 || f[2] != want) continue;
    const std::string mount = Unescape(f[4]);
    if (!UnderMount(path, mount) || mount.size() < best) continue;
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 2 >= f.size()) continue;
    best = mount.size();
    m->set_mount_point(mount);
    m->set_fs_type(f[dash + 1]);
    if (major == 0) m->set_device(Unescape(f[dash + 2]));
  }
}

}  // namespace

void DescribeBlockDevice(unsigned major, unsigned minor,
                         const std::string& root, v1::StorageMedium* medium) {
  const std::string link =
      Join(root, absl::StrCat("/sys/dev/block/", major, ":", minor));
  std::error_code ec;
  if (!fs::exists(link, ec)) return;
  // /sys/dev/block/MAJ:MIN links to .../block/DISK or .../block/DISK/PART.
  const fs::path dev = fs::canonical(link, ec);
  if (ec) return;
  medium->set_device(dev.filename().string());
  const bool partition = fs::exists(dev / "partition", ec);
  const std::string disk =
      partition ? dev.parent_path().filename().string() : medium->device();
  medium->set_disk(disk);
  // A partition has no queue/ of its own: the disk's is one level up.
  const fs::path disk_dir = partition ? dev.parent_path() : dev;
  const std::string rotational =
      ReadFirstLine((disk_dir / "queue/rotational").string());
  if (rotational == "1") {
    medium->set_kind("rotational");
  } else if (rotational == "0") {
    medium->set_kind("non-rotational");
  }
}

absl::StatusOr<v1::StorageMedium> DescribeStorage(const std::string& path,
                                                  const std::string& root) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    const std::string msg =
        absl::StrCat(path, ": cannot stat: ", std::strerror(errno));
    return errno == ENOENT ? absl::NotFoundError(msg)
                           : absl::InternalError(msg);
  }
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  v1::StorageMedium m;
  m.set_kind("unknown");
  const unsigned maj = major(st.st_dev);
  const unsigned min = minor(st.st_dev);
  FindMount(Join(root, "/proc/self/mountinfo"), abs.string(), maj, min, &m);
  if (maj != 0) DescribeBlockDevice(maj, min, root, &m);
  if (m.device().empty()) m.set_device(absl::StrCat(maj, ":", min));
  return m;
}

}  // namespace powersweep
