// The powersweep CLI's commands. Each takes a connected Control stub and
// its options, writes its report to `out` (and progress to `err`), and
// returns the process exit code. Thread-compatible (one command at a time).
#ifndef POWERSWEEP_CONTROLLER_CLI_COMMANDS_H_
#define POWERSWEEP_CONTROLLER_CLI_COMMANDS_H_

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "controller/cli/format.h"
#include "powersweep/v1/control.grpc.pb.h"

namespace powersweep {

struct CliOptions {
  std::string controller;  // for error messages
  OutputFormat format = OutputFormat::kTable;
  bool quiet = false;
  double interval_s = 0.5;
  std::string out_dir;
  int64_t sweep_id = 0;              // the first of sweep_ids, or 0
  std::vector<int64_t> sweep_ids;    // fit: every --sweep, in order
  std::string by = "runtime";  // compare
  std::vector<std::string> devices;  // compare --by device: baseline, other
  std::vector<std::string> sides;    // compare --by runtime: baseline, other
  std::string metric;          // variability: one metric, "" = all
  bool save_offsets = false;   // variability: store calibration offsets
  int64_t run_id = 0;          // cancel
};

// Exit codes: 0 ok, 1 a run failed (watch) or the request failed,
// 2 bad usage, 3 controller unreachable.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUnreachable = 3;

// A client context with a deadline `deadline_s` from now.
std::unique_ptr<grpc::ClientContext> RpcContext(double deadline_s = 30);
// Prints a failed call's error on `err` (naming the controller when it is
// unreachable) and returns the exit code for it.
int ReportRpcError(const grpc::Status& st, const CliOptions& opt,
                   std::ostream& err);
int CmdSubmit(v1::Control::StubInterface* stub, const std::string& file,
              const CliOptions& opt, std::ostream& out, std::ostream& err);
int CmdWatch(v1::Control::StubInterface* stub, const CliOptions& opt,
             std::ostream& out, std::ostream& err);
int CmdStatus(v1::Control::StubInterface* stub, const CliOptions& opt,
              std::ostream& out, std::ostream& err);
int CmdDevices(v1::Control::StubInterface* stub, const CliOptions& opt,
               std::ostream& out, std::ostream& err);
// `devices --modes DEVICE`: the presets of the device's class and the size
// of its custom mode space (the size line goes to `err` for csv/json so
// `out` stays machine-readable).
int CmdDeviceModes(v1::Control::StubInterface* stub, const std::string& device,
                   const CliOptions& opt, std::ostream& out, std::ostream& err);
int CmdRuns(v1::Control::StubInterface* stub, const CliOptions& opt,
            std::ostream& out, std::ostream& err);
// Per cell, native vs container (--by runtime; page_cache: kept vs
// dropped; device: --devices A,B) with Welch's t-test; the
// method and any warnings (e.g. different provenance) follow the table on
// `err` for csv/json so the output stays machine-readable.
int CmdCompare(v1::Control::StubInterface* stub, const CliOptions& opt,
               std::ostream& out, std::ostream& err);
// Per cell, how much the devices that ran it differ (variability_format.h
// for the three formats); for csv the warnings and the method go to `err`
// so the output stays machine-readable (json holds them).
int CmdVariability(v1::Control::StubInterface* stub, const CliOptions& opt,
                   std::ostream& out, std::ostream& err);
// Cancels the sweep's runs that have not ended (--run: one of them).
int CmdCancel(v1::Control::StubInterface* stub, const CliOptions& opt,
              std::ostream& out, std::ostream& err);
int CmdSummary(v1::Control::StubInterface* stub, const CliOptions& opt,
               std::ostream& out, std::ostream& err);
int CmdExport(v1::Control::StubInterface* stub, const CliOptions& opt,
              std::ostream& out, std::ostream& err);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_COMMANDS_H_
