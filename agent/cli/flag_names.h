// Dashed flag names for the agent's command line. absl flag names cannot
// contain '-', but the documented flags are dashed (--device-id). This
// rewrites the name part of every "-x" / "--x[=v]" argument, '-' -> '_',
// leaving values and everything after a bare "--" untouched; and merges
// repeated list flags. Stateless.
#ifndef POWERSWEEP_AGENT_CLI_FLAG_NAMES_H_
#define POWERSWEEP_AGENT_CLI_FLAG_NAMES_H_

#include <string>
#include <vector>

namespace powersweep {

std::vector<std::string> UnderscoreFlagNames(int argc, char** argv);

// absl keeps only the last value of a repeated flag. This merges every
// "--name=V" / "--name V" occurrence (args as UnderscoreFlagNames returns
// them) into one "--name=V1,V2,..." at the place of the first one.
std::vector<std::string> MergeRepeatedFlag(const std::vector<std::string>& args,
                                           const std::string& name);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_CLI_FLAG_NAMES_H_
