// The powersweep CLI's usage text: every command, what it prints, the
// flags that matter for it and the exit codes (`powersweep --help`, and
// after a usage error).
#ifndef POWERSWEEP_CONTROLLER_CLI_USAGE_H_
#define POWERSWEEP_CONTROLLER_CLI_USAGE_H_

namespace powersweep {

extern const char kUsage[];

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_USAGE_H_
