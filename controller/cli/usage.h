// The powersweep CLI's usage text: every command, what it prints, the
// flags that matter for it and the exit codes (`powersweep --help`, and
// after a usage error).
#ifndef POWERSWEEP_CONTROLLER_CLI_USAGE_H_
#define POWERSWEEP_CONTROLLER_CLI_USAGE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace powersweep {

extern const char kUsage[];

// What a usage error prints after its "error: ..." line: the entry (or
// entries, e.g. `devices`) of `command` in kUsage, else the list of
// commands, and a pointer to `powersweep --help` for the rest; a few
// lines, not the whole help.
std::string ShortUsage(absl::string_view command);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_USAGE_H_
