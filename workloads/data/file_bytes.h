// ReadFileBytes: the whole content of a file, gunzipped when it is a gzip
// file (detected by content, via zlib's gzopen/gzread; plain files are read
// as they are).
//
// Errors name the file: kNotFound when it does not exist, kPermissionDenied
// when it cannot be read, kDataLoss for a corrupt or truncated gzip stream
// or a read error. Stateless and thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_FILE_BYTES_H_
#define POWERSWEEP_WORKLOADS_DATA_FILE_BYTES_H_

#include <string>

#include "absl/status/statusor.h"

namespace powersweep {

absl::StatusOr<std::string> ReadFileBytes(const std::string& path);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_FILE_BYTES_H_
