// `powersweep top`: the live view of the fleet (top_view.h), refreshed
// every `interval_s` until interrupted (Ctrl-C) or, with `iterations` > 0,
// after that many frames. On a terminal each frame replaces the previous
// one (the screen is cleared); otherwise frames follow each other,
// separated by a blank line. --format csv|json prints the device table of
// one frame in that format and exits (for scripts). Thread-compatible.
#ifndef POWERSWEEP_CONTROLLER_CLI_TOP_COMMAND_H_
#define POWERSWEEP_CONTROLLER_CLI_TOP_COMMAND_H_

#include <iosfwd>

#include "controller/cli/commands.h"
#include "powersweep/v1/control.grpc.pb.h"

namespace powersweep {

int CmdTop(v1::Control::StubInterface* stub, const CliOptions& opt,
           int iterations, bool tty, std::ostream& out, std::ostream& err);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_TOP_COMMAND_H_
