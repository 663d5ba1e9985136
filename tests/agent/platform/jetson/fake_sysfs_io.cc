#include "tests/agent/platform/jetson/fake_sysfs_io.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace jetson {

namespace fs = std::filesystem;

std::string CopyFixture(const std::string& name) {
  std::string tmpl = ::testing::TempDir() + "/jetson-XXXXXX";
  char* dir = mkdtemp(tmpl.data());
  EXPECT_NE(dir, nullptr);
  // Readable by other users: the not-root tests drop privileges.
  chmod(dir, 0755);
  const std::string dst = std::string(dir) + "/root";
  fs::copy(std::string(FIXTURES_DIR) + "/sysfs/" + name, dst,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return dst;
}

std::string FileText(const std::string& root, const std::string& path) {
  std::ifstream in(root + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return CleanText(ss.str());
}

std::string FakeSysfsIo::Canonical(const std::string& path) const {
  std::error_code ec;
  fs::path p = fs::canonical(Resolve(path), ec);
  return ec ? Resolve(path) : p.string();
}

void FakeSysfsIo::CapFrequency(const std::string& dir, int64_t cap) {
  caps_[Canonical(dir)] = cap;
}

absl::Status FakeSysfsIo::CheckWritable(const std::string& path) {
  auto it = failures_.find(path);
  if (it != failures_.end() && !write_only_.count(path)) return it->second;
  return real_.CheckWritable(path);
}

absl::Status FakeSysfsIo::Write(const std::string& path,
                                const std::string& value) {
  auto it = failures_.find(path);
  if (it != failures_.end()) {
    absl::Status failure = it->second;
    if (write_only_.erase(path) > 0) failures_.erase(it);
    return failure;
  }
  absl::Status s = KernelWrite(path, value);
  if (s.ok()) writes_.emplace_back(path, value);
  return s;
}

absl::Status FakeSysfsIo::KernelWrite(const std::string& path,
                                      const std::string& value) {
  const std::string dir = path.substr(0, path.rfind('/'));
  const std::string file = path.substr(path.rfind('/') + 1);
  const bool cpufreq =
      file == "scaling_min_freq" || file == "scaling_max_freq";
  const bool devfreq = file == "min_freq" || file == "max_freq";
  int64_t v = 0;
  if ((cpufreq || devfreq) && absl::SimpleAtoi(value, &v)) {
    const std::string pre = cpufreq ? "scaling_" : "";
    absl::StatusOr<int64_t> lo = ReadInt(*this, dir + "/" + pre + "min_freq");
    absl::StatusOr<int64_t> hi = ReadInt(*this, dir + "/" + pre + "max_freq");
    if (!lo.ok()) return lo.status();
    if (!hi.ok()) return hi.status();
    const bool is_min = absl::StrContains(file, "min");
    if ((is_min && v > *hi) || (!is_min && v < *lo)) {
      return absl::InvalidArgumentError(absl::StrCat(
          Resolve(path), ": the kernel rejected \"", value,
          "\" (Invalid argument)"));
    }
    absl::Status s = real_.Write(path, value);
    if (!s.ok()) return s;
    const int64_t new_lo = is_min ? v : *lo;
    const int64_t new_hi = is_min ? *hi : v;
    const std::string cur_path = dir + "/" + (cpufreq ? "scaling_cur_freq"
                                                      : "cur_freq");
    absl::StatusOr<int64_t> cur = ReadInt(*this, cur_path);
    if (!cur.ok()) return cur.status();
    int64_t now = std::clamp(*cur, new_lo, std::max(new_lo, new_hi));
    auto cap = caps_.find(Canonical(dir));
    if (cap != caps_.end()) now = std::min(now, cap->second);
    return real_.Write(cur_path, absl::StrCat(now));
  }
  if (file == "rate" && absl::SimpleAtoi(value, &v)) {
    auto cap = caps_.find(Canonical(dir));
    if (cap != caps_.end() && v > cap->second) {
      return real_.Write(path, absl::StrCat(cap->second));
    }
  }
  return real_.Write(path, value);
}

}  // namespace jetson
}  // namespace powersweep
