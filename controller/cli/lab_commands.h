// The powersweep CLI's lab operations: `devices drain|undrain|forget ID`,
// `rerun --sweep ID [--failed] [--cancelled]`, and the table of
// `powersweep devices` (connection, drain state, health). Commands take a
// connected Control stub, write their report to `out` and errors to `err`,
// and return the exit code (commands.h).
#ifndef POWERSWEEP_CONTROLLER_CLI_LAB_COMMANDS_H_
#define POWERSWEEP_CONTROLLER_CLI_LAB_COMMANDS_H_

#include <iosfwd>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "controller/cli/commands.h"
#include "controller/cli/format.h"
#include "powersweep/v1/control.grpc.pb.h"

namespace powersweep {

// "drain", "undrain", "forget" -> the action; nullopt for anything else.
std::optional<v1::DeviceAction> ParseDeviceAction(const std::string& word);

// One row per device: id, class, platform, host, cores, runtimes,
// connected, drained, health ("ok", "FAILING: <reason>", "-" never
// checked), the time of the last check, current run, last seen. Times in
// `zone`.
Table DevicesTable(const v1::ListDevicesResponse& devices, absl::TimeZone zone);

// `devices drain|undrain|forget ID`: prints what the controller did.
int CmdDeviceState(v1::Control::StubInterface* stub, v1::DeviceAction action,
                   const std::string& device_id, const CliOptions& opt,
                   std::ostream& out, std::ostream& err);

// `rerun --sweep ID`: re-queues the sweep's failed (`failed`) and/or
// cancelled (`cancelled`; neither: both) runs; prints how many, and the
// runs it left out and why. `timeout_s` > 0 (--timeout_s): the re-queued
// runs get that timeout instead of their own.
int CmdRerun(v1::Control::StubInterface* stub, bool failed, bool cancelled,
             double timeout_s, const CliOptions& opt, std::ostream& out,
             std::ostream& err);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_LAB_COMMANDS_H_
