// Small file-system helpers shared by the data set readers and the
// generator: path joining, existence checks, sizes, listing and writing
// whole files.
//
// Errors name the path and the reason (strerror): kNotFound for a missing
// path, kPermissionDenied, kResourceExhausted for a full disk, kInternal for
// other write failures, kDataLoss for other read failures. Stateless and
// thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_FILE_UTIL_H_
#define POWERSWEEP_WORKLOADS_DATA_FILE_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace powersweep {

// dir + "/" + name (no doubled slash when dir ends with one).
std::string JoinPath(const std::string& dir, const std::string& name);

bool IsRegularFile(const std::string& path);
bool IsDirectory(const std::string& path);

// Size in bytes of a regular file; an error naming the path otherwise.
absl::StatusOr<int64_t> FileSize(const std::string& path);

// Sum of FileSize over `paths`.
absl::StatusOr<int64_t> TotalFileSize(const std::vector<std::string>& paths);

// The names (not paths) of the entries of `dir`, sorted bytewise; "." and
// ".." excluded.
absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& dir);

// Creates `dir` and its missing parents (like mkdir -p).
absl::Status MakeDirectories(const std::string& dir);

// Writes `bytes` to `path`, replacing any existing file.
absl::Status WriteWholeFile(const std::string& path, const std::string& bytes);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_FILE_UTIL_H_
