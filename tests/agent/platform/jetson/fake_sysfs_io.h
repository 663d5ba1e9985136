// Test doubles for the Jetson backend.
//
// CopyFixture(name): a private copy of tests/fixtures/sysfs/<name> in a
// fresh temp dir (symlinks kept), so tests may write to it.
//
// FakeSysfsIo: a RealSysfsIo over such a copy that records every write in
// order and imitates what the kernel does to the files a real board would
// change on its own:
//  - cpufreq/devfreq: writing a min above the current max, or a max below
//    the current min, fails with EINVAL (as 4.9 kernels do), so a wrong
//    write order is an error; after a write the current frequency
//    (scaling_cur_freq / cur_freq) becomes clamp(cur, min, max), further
//    capped by CapFrequency (an nvpmodel cap or thermal limit);
//  - the EMC rate file stores at most its cap.
// FailPath(path, status) makes CheckWritable and Write of that file fail;
// FailRead(path, status) makes its reads fail.
// Not thread-safe (tests call it from one thread).
#ifndef POWERSWEEP_TESTS_AGENT_PLATFORM_JETSON_FAKE_SYSFS_IO_H_
#define POWERSWEEP_TESTS_AGENT_PLATFORM_JETSON_FAKE_SYSFS_IO_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agent/platform/jetson/sysfs_io.h"

namespace powersweep {
namespace jetson {

std::string CopyFixture(const std::string& name);

// Reads root + path, trimmed ("" when missing).
std::string FileText(const std::string& root, const std::string& path);

class FakeSysfsIo : public SysfsIo {
 public:
  using WriteOp = std::pair<std::string, std::string>;  // path, value

  explicit FakeSysfsIo(const std::string& root) : real_(root) {}

  const std::string& root() const override { return real_.root(); }
  absl::StatusOr<std::string> Read(const std::string& path) override {
    auto it = read_failures_.find(path);
    if (it != read_failures_.end()) return it->second;
    return real_.Read(path);
  }
  absl::Status Write(const std::string& path,
                     const std::string& value) override;
  absl::Status CheckWritable(const std::string& path) override;
  bool Exists(const std::string& path) override { return real_.Exists(path); }
  std::vector<std::string> List(const std::string& dir) override {
    return real_.List(dir);
  }

  // `dir`: a cpufreq dir (".../cpu4/cpufreq"), a devfreq dir or the EMC
  // debugfs dir; the frequency it runs never exceeds `cap`.
  void CapFrequency(const std::string& dir, int64_t cap);
  // Write of `path` fails with `status`; so does CheckWritable unless
  // `write_only`: then only the next Write fails (a transient failure
  // discovered midway, e.g. EBUSY).
  void FailPath(const std::string& path, absl::Status status,
                bool write_only = false) {
    failures_[path] = std::move(status);
    if (write_only) write_only_.insert(path);
  }

  // Reads of `path` fail with `status` (EAGAIN of a power-gated sensor:
  // Unavailable).
  void FailRead(const std::string& path, absl::Status status) {
    read_failures_[path] = std::move(status);
  }

  const std::vector<WriteOp>& writes() const { return writes_; }
  void ClearWrites() { writes_.clear(); }

 private:
  std::string Canonical(const std::string& path) const;
  absl::Status KernelWrite(const std::string& path, const std::string& value);

  RealSysfsIo real_;
  std::vector<WriteOp> writes_;
  std::map<std::string, int64_t> caps_;  // canonical dir -> cap
  std::map<std::string, absl::Status> failures_;
  std::map<std::string, absl::Status> read_failures_;
  std::set<std::string> write_only_;
};

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_AGENT_PLATFORM_JETSON_FAKE_SYSFS_IO_H_
