// SysfsIo: every file access of the Jetson backend, relative to a root
// directory. Paths passed in are the real absolute paths of a board
// ("/sys/devices/system/cpu/cpu1/online"); the implementation prepends the
// root ("/" on a board, a fixture tree in tests). Errors name the file:
//  - a knob file that does not exist (no debugfs under secure boot, another
//    JetPack layout) -> FailedPrecondition "<file>: missing ...";
//  - a file that cannot be written or read (EACCES/EPERM: not root)
//    -> FailedPrecondition "<file>: not writable/readable ... run as root";
//  - a value the kernel rejects (EINVAL, EBUSY) -> InvalidArgument naming
//    the file and the value;
//  - a sensor that does not answer now (EAGAIN, ENODATA: power-gated)
//    -> Unavailable naming the file.
// RealSysfsIo holds no mutable state and is thread-safe. Test fakes (see
// tests/agent/platform/jetson) record writes.
#ifndef POWERSWEEP_AGENT_PLATFORM_JETSON_SYSFS_IO_H_
#define POWERSWEEP_AGENT_PLATFORM_JETSON_SYSFS_IO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace powersweep {
namespace jetson {

class SysfsIo {
 public:
  virtual ~SysfsIo() = default;

  // The root with no trailing slash ("" for "/").
  virtual const std::string& root() const = 0;
  // root() + path: where `path` really is on this machine.
  std::string Resolve(const std::string& path) const { return root() + path; }

  // Whole content (device-tree NULs and surrounding whitespace kept).
  virtual absl::StatusOr<std::string> Read(const std::string& path) = 0;
  // Writes `value` followed by a newline, as `echo value > path` does.
  virtual absl::Status Write(const std::string& path,
                             const std::string& value) = 0;
  // OK when `path` exists and this process may write it.
  virtual absl::Status CheckWritable(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  // Names of the entries of directory `dir`, sorted; empty when absent.
  virtual std::vector<std::string> List(const std::string& dir) = 0;
};

class RealSysfsIo : public SysfsIo {
 public:
  // `root`: "/" on a board; a trailing slash is ignored.
  explicit RealSysfsIo(const std::string& root);

  const std::string& root() const override { return root_; }
  absl::StatusOr<std::string> Read(const std::string& path) override;
  absl::Status Write(const std::string& path,
                     const std::string& value) override;
  absl::Status CheckWritable(const std::string& path) override;
  bool Exists(const std::string& path) override;
  std::vector<std::string> List(const std::string& dir) override;

 private:
  std::string root_;
};

// Content without NULs and surrounding whitespace.
std::string CleanText(const std::string& text);
// Reads and parses one integer; errors name the file.
absl::StatusOr<int64_t> ReadInt(SysfsIo& io, const std::string& path);
// Reads `path` cleaned; "" when it cannot be read.
std::string ReadTextOr(SysfsIo& io, const std::string& path);
// Parses "0 1 2 3", "0-3", "0-3,8" (cpu lists) or space/comma separated
// integers ("115200 192000 "). InvalidArgument on junk.
absl::StatusOr<std::vector<int64_t>> ParseIntList(const std::string& text);

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_SYSFS_IO_H_
