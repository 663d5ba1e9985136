// powersweep: the command-line client of a powersweep controller.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "common/flags_usage.h"
#include "common/status_macros.h"
#include "controller/cli/best_verify.h"
#include "controller/cli/commands.h"
#include "controller/cli/control_channel.h"
#include "controller/cli/import_command.h"
#include "controller/cli/lab_commands.h"
#include "controller/cli/model_args.h"
#include "controller/cli/model_commands.h"
#include "controller/cli/report_command.h"
#include "controller/cli/top_command.h"
#include "controller/cli/trace_tables.h"
#include "controller/cli/usage.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, controller, "127.0.0.1:7070",
          "Address of powersweep-controller (host:port).");
ABSL_FLAG(std::string, tls_ca, "",
          "CA certificate (PEM) of the controller's certificate: talk TLS "
          "(default: plaintext).");
ABSL_FLAG(std::string, tls_cert, "",
          "Operator client certificate (PEM, OU=operator; make-lab-ca.sh DIR "
          "operator NAME); needs --tls_ca.");
ABSL_FLAG(std::string, tls_key, "", "The private key of --tls_cert (PEM).");
ABSL_FLAG(std::string, tls_server_name, "",
          "The name in the controller's certificate, when --controller "
          "addresses it by another name or IP.");
ABSL_FLAG(std::string, token_file, "",
          "File holding the controller's bearer token (its "
          "--control_token_file); default: the POWERSWEEP_TOKEN environment "
          "variable.");
ABSL_FLAG(std::string, format, "table", "Output format: table, csv or json.");
ABSL_FLAG(std::string, sweep, "",
          "Sweep id (runs, summary, compare, variability, export, watch, "
          "cancel, rerun, fit, report). fit takes several: --sweep 8,12 or "
          "--sweep 8 --sweep 12 fits their runs together.");
ABSL_FLAG(std::string, out, "",
          "export, report: output folder (created if missing); "
          "plan-profiling: the sweep file to write.");
ABSL_FLAG(bool, quiet, false, "submit: print only the sweep id.");
ABSL_FLAG(int64_t, run, 0,
          "cancel: only this run of the sweep; report: the run the "
          "over-time figure shows (default: the first done workload run).");
ABSL_FLAG(std::string, python, "/usr/bin/python3",
          "report: the Python that runs the plotting script (Debian's, with "
          "python3-matplotlib).");
ABSL_FLAG(std::string, report_script, "",
          "report: the plotting script (default: infra/report/plot_report.py "
          "of the source tree this CLI was built from).");
ABSL_FLAG(bool, failed, false,
          "rerun: re-queue the sweep's failed runs (with neither --failed nor "
          "--cancelled: both).");
ABSL_FLAG(bool, cancelled, false,
          "rerun: re-queue the sweep's cancelled runs (with neither --failed "
          "nor --cancelled: both).");
ABSL_FLAG(double, timeout_s, 0,
          "rerun: give the re-queued runs this per-run timeout in seconds "
          "(default: keep theirs), e.g. after they timed out.");
ABSL_FLAG(std::string, by, "runtime",
          "compare: the dimension whose two sides are compared (runtime: "
          "native vs container, or the two of --sides; page_cache: keep vs drop; device: the runs "
          "of two devices, named by --devices; data: synthetic vs real data; "
          "tenants: one tenant vs co-located copies).");
ABSL_FLAG(std::string, devices, "",
          "compare --by device: the two device ids compared, baseline "
          "first (xavier-0,xavier-3).");
ABSL_FLAG(std::string, sides, "",
          "compare --by runtime: the two runtimes compared, baseline first, "
          "of native, container, vm, container_in_vm (default "
          "native,container).");
ABSL_FLAG(std::string, metric, "",
          "variability: only this metric (minibatch_time, throughput, "
          "energy, energy_per_sample, incremental_energy, mean_power, "
          "idle_power); default every metric.");
ABSL_FLAG(bool, save_offsets, false,
          "variability: also store each device's calibration offsets (time "
          "and energy over its class mean, from every metric of this sweep) "
          "for fit --instances offsets and predict --device.");
ABSL_FLAG(std::string, modes, "",
          "devices: list the power modes of this device id instead; "
          "plan-profiling: how many modes to propose.");
ABSL_FLAG(double, interval_s, 0.5,
          "watch: seconds between progress updates; top: between frames "
          "(default 2 for top).");
ABSL_FLAG(int32_t, iterations, 0,
          "top: frames to show before exiting (0: until Ctrl-C).");
ABSL_FLAG(std::string, device, "",
          "import-tegrastats: the registered device the log comes from. "
          "predict, best, pareto: answer for this device (its own model when "
          "fitted per device, else the class model times its calibration "
          "offsets).");
ABSL_FLAG(std::string, instances, "pooled",
          "fit: how device instances are treated: pooled (one class), "
          "offsets (each run divided by its device's calibration offsets "
          "from `variability --save-offsets`) or per_device (a model per "
          "device).");
ABSL_FLAG(double, interval_ms, 1000,
          "import-tegrastats: the log's tegrastats --interval, for lines "
          "without a date.");

// Model commands (fit, models, predict, best, pareto, plan-profiling).
// Flags may be written with dashes: --device-class = --device_class.
ABSL_FLAG(std::string, workload, "",
          "models, predict, best, pareto, plan-profiling: the model "
          "(workload) name, e.g. lenet5.");
ABSL_FLAG(std::string, device_class, "",
          "The device class, e.g. xavier-agx, host.");
ABSL_FLAG(std::string, dataset, "", "Model commands: the dataset.");
ABSL_FLAG(std::string, task, "", "Model commands: train or infer.");
ABSL_FLAG(int32_t, batch_size, 0, "Model commands: the batch size.");
ABSL_FLAG(int32_t, loader_workers, -1,
          "Model commands: the loader workers (-1: any).");
ABSL_FLAG(int64_t, model_id, 0, "predict, best, pareto: this stored model.");
ABSL_FLAG(std::string, preset, "",
          "predict: preset name(s), comma-separated (MAXN,MODE_15W).");
ABSL_FLAG(std::string, max_epoch_time, "",
          "best: least energy with epoch time under this (90s, 1.5min, "
          "500ms).");
ABSL_FLAG(std::string, max_power, "",
          "best: fastest with mean power under this (15W, 9000mW).");
ABSL_FLAG(std::string, max_energy, "",
          "best: fastest with epoch energy under this (300J, 1.2kJ).");
ABSL_FLAG(bool, conservative, false,
          "best: judge the budget on the prediction intervals' upper ends.");
ABSL_FLAG(bool, measured, false,
          "pareto, best: only the measured modes, with their measured "
          "figures.");
ABSL_FLAG(int32_t, candidates, 0,
          "best: also list the next best modes that meet the budget, this "
          "many in all.");
ABSL_FLAG(int32_t, verify, 0,
          "best: this many rounds of running the latest fit's pick once "
          "(on --device, or any device of the class) and refitting, then "
          "answer from the measured modes (e.g. --verify 3).");
ABSL_FLAG(int64_t, reference_model, 0,
          "fit: transfer from this stored model of another workload "
          "(`powersweep models`): its form and coefficients are the prior "
          "of the new fit, for new workloads profiled at a few modes");
ABSL_FLAG(int64_t, after_sweep, 0,
          "plan-profiling: propose modes beyond those this sweep profiled.");
ABSL_FLAG(int64_t, minibatches, 0,
          "plan-profiling: minibatches per run (default 200).");
ABSL_FLAG(int32_t, repetitions, 0,
          "plan-profiling: repetitions per mode (default 1).");
ABSL_FLAG(int32_t, top, 10,
          "traces: the most frequent system calls shown per cell (0 = all).");

namespace {

// The command of this invocation, for the usage of a usage error.
std::string g_command;

// A usage error: the problem and the command's usage (a few lines; the
// whole text is --help's).
int Usage(const std::string& problem) {
  std::cerr << "error: " << problem << "\n"
            << powersweep::ShortUsage(g_command) << "\n";
  return 2;
}

// The stored-model selector of the model commands' flags.
absl::StatusOr<powersweep::v1::ModelSelector> SelectorFromFlags() {
  powersweep::v1::ModelSelector s;
  s.set_model_id(absl::GetFlag(FLAGS_model_id));
  s.set_device_class(absl::GetFlag(FLAGS_device_class));
  s.set_model(absl::GetFlag(FLAGS_workload));
  s.set_dataset(absl::GetFlag(FLAGS_dataset));
  PS_ASSIGN_OR_RETURN(auto task, powersweep::ParseTaskFlag(
                                     "--task", absl::GetFlag(FLAGS_task)));
  s.set_task(task);
  s.set_batch_size(absl::GetFlag(FLAGS_batch_size));
  if (absl::GetFlag(FLAGS_loader_workers) >= 0) {
    s.set_loader_workers(absl::GetFlag(FLAGS_loader_workers));
  }
  PS_ASSIGN_OR_RETURN(std::vector<int64_t> sweeps,
                      powersweep::ParseSweepsFlag(absl::GetFlag(FLAGS_sweep)));
  if (!sweeps.empty()) s.set_sweep_id(sweeps.front());
  return s;
}

// fit, models, predict, best, pareto, plan-profiling; -1 when `cmd` is
// none of them.
int ModelCommand(const std::string& cmd, const std::vector<char*>& args,
                 const std::vector<std::string>& modes,
                 powersweep::v1::Control::StubInterface* stub,
                 const powersweep::CliOptions& opt) {
  auto& out = std::cout;
  auto& err = std::cerr;
  if (cmd == "fit") {
    if (opt.sweep_id <= 0) {
      return Usage("fit: --sweep: a positive sweep id is required");
    }
    return powersweep::CmdFit(stub, opt, absl::GetFlag(FLAGS_instances),
                              absl::GetFlag(FLAGS_reference_model), out, err);
  }
  if (cmd != "models" && cmd != "predict" && cmd != "best" &&
      cmd != "pareto" && cmd != "plan-profiling") {
    return -1;
  }
  if (args.size() != 2) return Usage(cmd + " takes no positional arguments");
  auto selector = SelectorFromFlags();
  if (!selector.ok()) return Usage(std::string(selector.status().message()));
  if (cmd == "models") {
    // --device: that device's own models (fit --instances per_device).
    selector->set_device_id(absl::GetFlag(FLAGS_device));
    return powersweep::CmdModels(stub, *selector, opt, out, err);
  }
  if (cmd == "plan-profiling") {
    powersweep::v1::PlanProfilingRequest req;
    req.set_device_class(selector->device_class());
    if (req.device_class().empty()) {
      return Usage("plan-profiling: --device-class is required");
    }
    auto k = powersweep::ParsePositiveIntFlag("--modes",
                                              absl::GetFlag(FLAGS_modes));
    if (!k.ok()) {
      return Usage("plan-profiling: " + std::string(k.status().message()));
    }
    req.set_k(*k);
    req.set_after_sweep_id(absl::GetFlag(FLAGS_after_sweep));
    req.set_model(selector->model());
    req.set_dataset(selector->dataset());
    req.set_task(selector->task());
    req.set_batch_size(selector->batch_size());
    req.set_loader_workers(std::max(0, absl::GetFlag(FLAGS_loader_workers)));
    req.set_minibatches(absl::GetFlag(FLAGS_minibatches));
    req.set_repetitions(absl::GetFlag(FLAGS_repetitions));
    return powersweep::CmdPlanProfiling(stub, req, absl::GetFlag(FLAGS_out),
                                        opt, out, err);
  }
  if (selector->model_id() == 0 &&
      (selector->model().empty() || selector->device_class().empty())) {
    return Usage(cmd + ": --workload W and --device-class C (or --model-id) "
                       "are required");
  }
  if (cmd == "predict") {
    powersweep::v1::PredictRequest req;
    *req.mutable_selector() = *selector;
    req.set_device_id(absl::GetFlag(FLAGS_device));
    for (const std::string& m : modes) {
      auto mode = powersweep::ParseModeFlag(m);
      if (!mode.ok()) {
        return Usage("predict: " + std::string(mode.status().message()));
      }
      *req.add_modes() = *mode;
    }
    for (absl::string_view p :
         absl::StrSplit(absl::GetFlag(FLAGS_preset), ',', absl::SkipEmpty())) {
      req.add_modes()->set_preset(std::string(p));
    }
    if (req.modes().empty()) {
      return Usage("predict: give at least one --mode or --preset");
    }
    return powersweep::CmdPredict(stub, req, opt, out, err);
  }
  if (cmd == "best") {
    powersweep::v1::BestRequest req;
    *req.mutable_selector() = *selector;
    req.set_device_id(absl::GetFlag(FLAGS_device));
    req.set_conservative(absl::GetFlag(FLAGS_conservative));
    int budgets = 0;
    if (const std::string t = absl::GetFlag(FLAGS_max_epoch_time); !t.empty()) {
      auto v = powersweep::ParseTimeBudget("--max-epoch-time", t);
      if (!v.ok()) return Usage("best: " + std::string(v.status().message()));
      req.set_max_epoch_time_s(*v);
      ++budgets;
    }
    if (const std::string t = absl::GetFlag(FLAGS_max_power); !t.empty()) {
      auto v = powersweep::ParsePowerBudget("--max-power", t);
      if (!v.ok()) return Usage("best: " + std::string(v.status().message()));
      req.set_max_power_w(*v);
      ++budgets;
    }
    if (const std::string t = absl::GetFlag(FLAGS_max_energy); !t.empty()) {
      auto v = powersweep::ParseEnergyBudget("--max-energy", t);
      if (!v.ok()) return Usage("best: " + std::string(v.status().message()));
      req.set_max_energy_j(*v);
      ++budgets;
    }
    if (budgets != 1) {
      return Usage("best: give exactly one of --max-epoch-time, --max-power, "
                   "--max-energy");
    }
    const int32_t verify = absl::GetFlag(FLAGS_verify);
    const int32_t candidates = absl::GetFlag(FLAGS_candidates);
    if (verify < 0 || verify > 10) {
      return Usage("best: --verify: from 1 to 10 rounds");
    }
    if (candidates < 0 || candidates > 100) {
      return Usage("best: --candidates: from 1 to 100");
    }
    req.set_measured_only(absl::GetFlag(FLAGS_measured));
    if (verify > 0) {
      if (req.measured_only()) {
        return Usage("best: --verify answers from measurements already; "
                     "leave out --measured");
      }
      return powersweep::CmdBestVerify(stub, req, verify, opt, out, err);
    }
    req.set_candidates(candidates);
    return powersweep::CmdBest(stub, req, opt, out, err);
  }
  powersweep::v1::ParetoRequest req;
  *req.mutable_selector() = *selector;
  req.set_device_id(absl::GetFlag(FLAGS_device));
  req.set_measured_only(absl::GetFlag(FLAGS_measured));
  return powersweep::CmdPareto(stub, req, opt, out, err);
}

}  // namespace

int main(int argc, char** argv) {
  powersweep::InitFlagsUsage(powersweep::kUsage);
  // --flag-with-dashes is --flag_with_dashes; --mode may repeat.
  powersweep::PreparedArgs prepared = powersweep::PrepareArgs(argc, argv);
  if (!prepared.problem.empty()) return Usage(prepared.problem);
  std::vector<char*> raw;
  for (std::string& a : prepared.args) raw.push_back(a.data());
  std::vector<char*> args =
      absl::ParseCommandLine(static_cast<int>(raw.size()), raw.data());
  if (args.size() < 2) return Usage("missing COMMAND");
  const std::string cmd = args[1];
  g_command = cmd;

  powersweep::CliOptions opt;
  opt.controller = absl::GetFlag(FLAGS_controller);
  opt.quiet = absl::GetFlag(FLAGS_quiet);
  opt.interval_s = absl::GetFlag(FLAGS_interval_s);
  opt.out_dir = absl::GetFlag(FLAGS_out);
  absl::StatusOr<std::vector<int64_t>> sweeps =
      powersweep::ParseSweepsFlag(absl::GetFlag(FLAGS_sweep));
  if (!sweeps.ok()) return Usage(std::string(sweeps.status().message()));
  if (sweeps->size() > 1 && cmd != "fit") {
    return Usage(cmd + ": --sweep: one sweep id (only fit takes several)");
  }
  opt.sweep_ids = *sweeps;
  opt.sweep_id = sweeps->empty() ? 0 : sweeps->front();
  opt.by = absl::GetFlag(FLAGS_by);
  for (absl::string_view d : absl::StrSplit(absl::GetFlag(FLAGS_devices), ',',
                                            absl::SkipWhitespace())) {
    opt.devices.emplace_back(absl::StripAsciiWhitespace(d));
  }
  for (absl::string_view s : absl::StrSplit(absl::GetFlag(FLAGS_sides), ',',
                                            absl::SkipWhitespace())) {
    opt.sides.emplace_back(absl::StripAsciiWhitespace(s));
  }
  opt.metric = absl::GetFlag(FLAGS_metric);
  opt.save_offsets = absl::GetFlag(FLAGS_save_offsets);
  opt.run_id = absl::GetFlag(FLAGS_run);
  auto format = powersweep::ParseOutputFormat(absl::GetFlag(FLAGS_format));
  if (!format.ok()) return Usage(std::string(format.status().message()));
  opt.format = *format;
  // `watch 3` and `watch --sweep 3` both work.
  if (cmd == "watch" && args.size() >= 3) opt.sweep_id = std::atoll(args[2]);

  powersweep::ControlChannelOptions channel_options;
  channel_options.controller = opt.controller;
  channel_options.tls_ca = absl::GetFlag(FLAGS_tls_ca);
  channel_options.tls_cert = absl::GetFlag(FLAGS_tls_cert);
  channel_options.tls_key = absl::GetFlag(FLAGS_tls_key);
  channel_options.tls_server_name = absl::GetFlag(FLAGS_tls_server_name);
  channel_options.token_file = absl::GetFlag(FLAGS_token_file);
  if (const char* env = std::getenv(powersweep::kTokenEnvVar)) {
    channel_options.env_token = env;
  }
  auto channel = powersweep::MakeControlChannel(channel_options);
  if (!channel.ok()) return Usage(std::string(channel.status().message()));
  auto stub = powersweep::v1::Control::NewStub(*channel);
  auto& out = std::cout;
  auto& err = std::cerr;

  if (cmd == "submit") {
    if (args.size() != 3) return Usage("submit takes one FILE");
    return powersweep::CmdSubmit(stub.get(), args[2], opt, out, err);
  }
  if (cmd == "status") return powersweep::CmdStatus(stub.get(), opt, out, err);
  if (int rc = ModelCommand(cmd, args, prepared.modes, stub.get(), opt);
      rc >= 0) {
    return rc;
  }
  if (!prepared.modes.empty()) return Usage("--mode is for predict only");
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
  if (cmd == "devices" && args.size() >= 3) {
    const auto action = powersweep::ParseDeviceAction(args[2]);
    if (!action.has_value()) {
      return Usage(std::string("devices: unknown subcommand '") + args[2] +
                   "' (drain, undrain or forget)");
    }
    if (args.size() != 4) {
      return Usage(std::string("devices ") + args[2] + " takes one device ID");
    }
    return powersweep::CmdDeviceState(stub.get(), *action, args[3], opt, out,
                                      err);
  }
  if (cmd == "top") {
    if (args.size() != 2) return Usage("top takes no arguments");
    if (absl::GetFlag(FLAGS_iterations) < 0) {
      return Usage("top: --iterations must be 0 (until Ctrl-C) or positive");
    }
    // --interval_s defaults to watch's 0.5 s; a live view refreshes every
    // 2 s unless told otherwise.
    if (absl::GetFlag(FLAGS_interval_s) == 0.5) opt.interval_s = 2;
    if (!(opt.interval_s > 0)) return Usage("top: --interval_s must be positive");
    return powersweep::CmdTop(stub.get(), opt, absl::GetFlag(FLAGS_iterations),
                              isatty(STDOUT_FILENO) != 0, out, err);
  }
  if (cmd == "devices") {
    const std::string modes = absl::GetFlag(FLAGS_modes);
    if (!modes.empty()) {
      return powersweep::CmdDeviceModes(stub.get(), modes, opt, out, err);
    }
    return powersweep::CmdDevices(stub.get(), opt, out, err);
  }
  if (cmd == "rerun") {
    if (opt.sweep_id <= 0) {
      return Usage("rerun: --sweep: a positive sweep id is required");
    }
    const double timeout_s = absl::GetFlag(FLAGS_timeout_s);
    if (timeout_s < 0 || !std::isfinite(timeout_s)) {
      return Usage("rerun: --timeout_s: must be a positive number of seconds");
    }
    return powersweep::CmdRerun(stub.get(), absl::GetFlag(FLAGS_failed),
                                absl::GetFlag(FLAGS_cancelled), timeout_s, opt,
                                out, err);
  }
  if (cmd == "report") {
    if (opt.sweep_id <= 0) {
      return Usage("report: --sweep: a positive sweep id is required");
    }
    if (opt.out_dir.empty()) return Usage("report: --out DIR is required");
    powersweep::ReportOptions report;
    report.out_dir = opt.out_dir;
    report.run_id = opt.run_id;
    report.python = absl::GetFlag(FLAGS_python);
    report.script = absl::GetFlag(FLAGS_report_script);
    return powersweep::CmdReport(stub.get(), opt, report, out, err);
  }
  if (cmd == "watch" || cmd == "runs" || cmd == "summary" ||
      cmd == "export" || cmd == "compare" || cmd == "cancel" ||
      cmd == "variability" || cmd == "traces") {
    if (opt.sweep_id <= 0) {
      return Usage(cmd + ": --sweep: a positive sweep id is required");
    }
    if (cmd == "watch") return powersweep::CmdWatch(stub.get(), opt, out, err);
    if (cmd == "runs") return powersweep::CmdRuns(stub.get(), opt, out, err);
    if (cmd == "summary") {
      return powersweep::CmdSummary(stub.get(), opt, out, err);
    }
    if (cmd == "cancel") {
      return powersweep::CmdCancel(stub.get(), opt, out, err);
    }
    if (cmd == "compare") {
      const bool by_device = opt.by == "device";
      if (by_device && opt.devices.size() != 2) {
        return Usage("compare --by device: --devices A,B names the two "
                     "devices (baseline first)");
      }
      if (!by_device && !opt.devices.empty()) {
        return Usage("--devices is for compare --by device");
      }
      if (opt.by != "runtime" && !opt.sides.empty()) {
        return Usage("--sides is for compare --by runtime");
      }
      return powersweep::CmdCompare(stub.get(), opt, out, err);
    }
    if (cmd == "variability") {
      return powersweep::CmdVariability(stub.get(), opt, out, err);
    }
    if (cmd == "traces") {
      const int32_t top = absl::GetFlag(FLAGS_top);
      if (top < 0) return Usage("traces: --top: must be 0 (all) or more");
      return powersweep::CmdTraces(stub.get(), opt, top, out, err);
    }
    if (opt.out_dir.empty()) return Usage("export: --out DIR is required");
    mkdir(opt.out_dir.c_str(), 0755);
    return powersweep::CmdExport(stub.get(), opt, out, err);
  }
  return Usage("unknown command '" + cmd + "'");
}
