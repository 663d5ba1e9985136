// ProcFile: a file kept open and re-read from offset 0 with pread on every
// Read(), the cheap way to poll /proc and /sys. Not thread-safe: one owner.
#ifndef POWERSWEEP_AGENT_TELEMETRY_PROC_FILE_H_
#define POWERSWEEP_AGENT_TELEMETRY_PROC_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace powersweep {

class ProcFile {
 public:
  ProcFile() = default;
  explicit ProcFile(std::string path);
  ~ProcFile();
  ProcFile(ProcFile&& other) noexcept;
  ProcFile& operator=(ProcFile&& other) noexcept;
  ProcFile(const ProcFile&) = delete;
  ProcFile& operator=(const ProcFile&) = delete;

  // Whole current content. NotFound naming the path when it cannot be
  // opened (retried on the next Read), Internal on read errors.
  absl::StatusOr<std::string> Read();
  // The same into `*out` (replaced), reusing its capacity: no allocation
  // once it has grown to the file's size. Same errors.
  absl::Status ReadInto(std::string* out);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TELEMETRY_PROC_FILE_H_
