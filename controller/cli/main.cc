// powersweep: the command-line client of a powersweep controller.
#include <sys/stat.h>

#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "common/flags_usage.h"
#include "controller/cli/commands.h"
#include "controller/cli/import_command.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, controller, "127.0.0.1:7070",
          "Address of powersweep-controller (host:port).");
ABSL_FLAG(std::string, format, "table", "Output format: table, csv or json.");
ABSL_FLAG(int64_t, sweep, 0, "Sweep id (runs, summary, export, watch).");
ABSL_FLAG(std::string, out, "", "Output folder for export (created if missing).");
ABSL_FLAG(bool, quiet, false, "submit: print only the sweep id.");
ABSL_FLAG(std::string, modes, "",
          "devices: list the power modes of this device id instead.");
ABSL_FLAG(double, interval_s, 0.5, "watch: seconds between progress updates.");
ABSL_FLAG(std::string, device, "",
          "import-tegrastats: the registered device the log comes from.");
ABSL_FLAG(double, interval_ms, 1000,
          "import-tegrastats: the log's tegrastats --interval, for lines "
          "without a date.");

namespace {

constexpr char kUsage[] =
    "powersweep: submit and follow sweeps on a powersweep controller.\n\n"
    "Usage: powersweep [flags] COMMAND [ARGS]\n\n"
    "Commands:\n"
    "  submit FILE             validate and queue the sweep in FILE (YAML);\n"
    "                          prints the sweep id\n"
    "  watch SWEEP             live progress until the sweep ends; exit 1 if\n"
    "                          any run failed\n"
    "  status                  every sweep with its run counts\n"
    "  devices                 registered devices and what they run now\n"
    "  devices --modes DEVICE  the power modes of DEVICE: the nvpmodel\n"
    "                          presets and study modes of its class (name,\n"
    "                          cores, CPU/GPU/EMC MHz; '-' not given, 'max'\n"
    "                          uncapped) and the size of its custom space\n"
    "  runs --sweep ID         one row per run with its measurements\n"
    "  summary --sweep ID      one row per matrix cell, mean ± sd over\n"
    "                          repetitions\n"
    "  import-tegrastats FILE --device ID [--interval_ms 1000]\n"
    "                          store a tegrastats log (JetPack 4/5/6) as the\n"
    "                          telemetry of a new run (state done); prints\n"
    "                          the run, its sweep and the sample count\n"
    "  export --sweep ID --out DIR\n"
    "                          write runs.csv, minibatches.csv, telemetry.csv\n\n"
    "Exit codes: 0 ok, 1 failed request or failed runs, 2 bad usage,\n"
    "3 controller unreachable.";

int Usage(const std::string& problem) {
  std::cerr << "error: " << problem << "\n\n" << kUsage << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  powersweep::InitFlagsUsage(kUsage);
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() < 2) return Usage("missing COMMAND");
  const std::string cmd = args[1];

  powersweep::CliOptions opt;
  opt.controller = absl::GetFlag(FLAGS_controller);
  opt.quiet = absl::GetFlag(FLAGS_quiet);
  opt.interval_s = absl::GetFlag(FLAGS_interval_s);
  opt.out_dir = absl::GetFlag(FLAGS_out);
  opt.sweep_id = absl::GetFlag(FLAGS_sweep);
  auto format = powersweep::ParseOutputFormat(absl::GetFlag(FLAGS_format));
  if (!format.ok()) return Usage(std::string(format.status().message()));
  opt.format = *format;
  // `watch 3` and `watch --sweep 3` both work.
  if (cmd == "watch" && args.size() >= 3) opt.sweep_id = std::atoll(args[2]);

  auto channel = grpc::CreateChannel(opt.controller,
                                     grpc::InsecureChannelCredentials());
  auto stub = powersweep::v1::Control::NewStub(channel);
  auto& out = std::cout;
  auto& err = std::cerr;

  if (cmd == "submit") {
    if (args.size() != 3) return Usage("submit takes one FILE");
    return powersweep::CmdSubmit(stub.get(), args[2], opt, out, err);
  }
  if (cmd == "status") return powersweep::CmdStatus(stub.get(), opt, out, err);
  if (cmd == "import-tegrastats") {
    if (args.size() != 3) return Usage("import-tegrastats takes one FILE");
    powersweep::ImportOptions imp;
    imp.file = args[2];
    imp.device_id = absl::GetFlag(FLAGS_device);
    imp.interval_ms = absl::GetFlag(FLAGS_interval_ms);
    if (imp.device_id.empty()) {
      return Usage("import-tegrastats: --device ID is required");
    }
    if (!(imp.interval_ms > 0)) {
      return Usage("import-tegrastats: --interval_ms must be positive");
    }
    return powersweep::CmdImportTegrastats(stub.get(), imp, opt, out, err);
  }
  if (cmd == "devices") {
    const std::string modes = absl::GetFlag(FLAGS_modes);
    if (!modes.empty()) {
      return powersweep::CmdDeviceModes(stub.get(), modes, opt, out, err);
    }
    return powersweep::CmdDevices(stub.get(), opt, out, err);
  }
  if (cmd == "watch" || cmd == "runs" || cmd == "summary" || cmd == "export") {
    if (opt.sweep_id <= 0) {
      return Usage(cmd + ": --sweep: a positive sweep id is required");
    }
    if (cmd == "watch") return powersweep::CmdWatch(stub.get(), opt, out, err);
    if (cmd == "runs") return powersweep::CmdRuns(stub.get(), opt, out, err);
    if (cmd == "summary") {
      return powersweep::CmdSummary(stub.get(), opt, out, err);
    }
    if (opt.out_dir.empty()) return Usage("export: --out DIR is required");
    mkdir(opt.out_dir.c_str(), 0755);
    return powersweep::CmdExport(stub.get(), opt, out, err);
  }
  return Usage("unknown command '" + cmd + "'");
}
