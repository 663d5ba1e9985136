// Command-line handling around absl flags for binaries whose contract uses
// dashed flag names (--batch-size) and exit code 2 for bad arguments.
//
// absl flag names cannot contain '-', and absl::ParseCommandLine exits with
// code 1 on a bad flag. So a binary first calls NormalizeFlagArgs (turns
// "--batch-size=8" into "--batch_size=8"; arguments after a bare "--" are
// left alone), then CheckFlagArgs, which finds every error absl would exit
// on (unknown flag, missing or unparsable value) and returns it as
// kInvalidArgument naming the flag in its dashed form; only then it hands
// the normalized arguments to absl::ParseCommandLine, which cannot fail.
// IsHelpRequest spots --help / -h / help. FlagsHelp lists the flags defined
// in files whose path ends with `file_suffix`, dashed, with their help text
// and default. Stateless; call from main before threads start.
#ifndef POWERSWEEP_WORKLOADS_CLI_FLAG_ARGS_H_
#define POWERSWEEP_WORKLOADS_CLI_FLAG_ARGS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace powersweep {

std::vector<std::string> NormalizeFlagArgs(int argc, char** argv);

// `args` as NormalizeFlagArgs returns them (args[0] is the program).
// Fills `positional` with the non-flag arguments after args[0].
absl::Status CheckFlagArgs(const std::vector<std::string>& args,
                           std::vector<std::string>* positional);

bool IsHelpRequest(const std::vector<std::string>& args);

std::string FlagsHelp(absl::string_view file_suffix);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_CLI_FLAG_ARGS_H_
