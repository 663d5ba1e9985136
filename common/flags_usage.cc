#include "common/flags_usage.h"

#include <string>

#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"

namespace powersweep {

void InitFlagsUsage(const char* usage) {
  absl::SetProgramUsageMessage(usage);
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "main.cc");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  config.version_string = [] { return std::string("powersweep 0.1.0\n"); };
  config.normalize_filename = [](absl::string_view file) {
    return std::string(file);
  };
  absl::SetFlagsUsageConfig(config);
}

}  // namespace powersweep
