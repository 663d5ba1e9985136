// Build fingerprints: which exact binary and which exact library a run used.
//
// BuildIdOfFile(path) returns "build-id:<lower-case hex>" from the GNU
// build-id note (NT_GNU_BUILD_ID, owner "GNU") of an ELF64 file, found
// through its PT_NOTE program headers or, failing that, its SHT_NOTE
// sections. When the file is not ELF64 or carries no build-id (including a
// malformed header), it returns "sha256:<hex>" of the whole file. A file
// that cannot be opened or read is an error naming the file (kNotFound,
// kPermissionDenied or kDataLoss).
//
// LoadedLibraryPath(substring) returns the path of the first shared object
// loaded into this process whose path contains `substring` (e.g.
// "libtorch_cpu"), or "" when none is loaded.
//
// Sha256Hex(bytes) is the lower-case hex SHA-256 digest (FIPS 180-4).
//
// All functions are stateless and thread-safe.
#ifndef POWERSWEEP_COMMON_FINGERPRINT_H_
#define POWERSWEEP_COMMON_FINGERPRINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace powersweep {

absl::StatusOr<std::string> BuildIdOfFile(const std::string& path);

std::string LoadedLibraryPath(absl::string_view substring);

std::string Sha256Hex(absl::string_view bytes);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_FINGERPRINT_H_
