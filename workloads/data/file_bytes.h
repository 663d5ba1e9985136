// ReadFileBytes: the whole content of a file, gunzipped when it is a gzip
// file (detected by content, via zlib's gzopen/gzread; plain files are read
// as they are). ReadPlainFile: the bytes of a file as stored (no gunzip),
// with one read per call where the kernel allows it (JPEG samples).
//
// Errors name the file: kNotFound when it does not exist, kPermissionDenied
// when it cannot be read, kDataLoss for a corrupt or truncated gzip stream
// or a read error (ReadPlainFile: kDataLoss when the file changes size while
// being read). Stateless and thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_FILE_BYTES_H_
#define POWERSWEEP_WORKLOADS_DATA_FILE_BYTES_H_

#include <string>

#include "absl/status/statusor.h"

namespace powersweep {

absl::StatusOr<std::string> ReadFileBytes(const std::string& path);
absl::StatusOr<std::string> ReadPlainFile(const std::string& path);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_FILE_BYTES_H_
