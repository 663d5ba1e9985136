// Sets up absl flags' --help for a powersweep binary: the usage text, the
// version, and which flags --help lists (those defined in the binary's own
// main.cc; absl's default filter would match none of ours). Call once from
// main() before absl::ParseCommandLine. Not thread-safe.
#ifndef POWERSWEEP_COMMON_FLAGS_USAGE_H_
#define POWERSWEEP_COMMON_FLAGS_USAGE_H_

namespace powersweep {

void InitFlagsUsage(const char* usage);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_FLAGS_USAGE_H_
