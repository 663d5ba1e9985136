// `powersweep import-tegrastats FILE --device ID [--interval_ms 1000]`:
// parses a tegrastats log (controller/importer/tegrastats.h) and streams
// its samples to Control.ImportTelemetry in chunks of `chunk_samples`, so
// logs of any length fit the gRPC message limit. Prints the new run's id,
// its sweep (for `runs`/`export --sweep`) and the number of samples, plus
// the count of lines skipped with the first problem on `err`.
// Exit codes as the other commands: 0 ok, 1 failed (e.g. unreadable file,
// unknown device), 3 controller unreachable.
#ifndef POWERSWEEP_CONTROLLER_CLI_IMPORT_COMMAND_H_
#define POWERSWEEP_CONTROLLER_CLI_IMPORT_COMMAND_H_

#include <iosfwd>
#include <string>

#include "controller/cli/commands.h"
#include "powersweep/v1/control.grpc.pb.h"

namespace powersweep {

struct ImportOptions {
  std::string file;
  std::string device_id;
  double interval_ms = 1000;
  int chunk_samples = 2000;
};

int CmdImportTegrastats(v1::Control::StubInterface* stub,
                        const ImportOptions& import, const CliOptions& opt,
                        std::ostream& out, std::ostream& err);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_IMPORT_COMMAND_H_
