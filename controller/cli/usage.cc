#include "controller/cli/usage.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace powersweep {

const char kUsage[] =
    "powersweep: submit and follow sweeps on a powersweep controller.\n\n"
    "Usage: powersweep [flags] COMMAND [ARGS]\n\n"
    "Commands:\n"
    "  submit FILE             validate and queue the sweep in FILE (YAML);\n"
    "                          prints the sweep id\n"
    "  watch SWEEP             live progress until the sweep ends; exit 1 if\n"
    "                          any run failed\n"
    "  status                  every sweep with its run counts\n"
    "  devices                 registered devices: connected, drained, health\n"
    "                          (ok, or FAILING with the reason) and when it\n"
    "                          was checked, what they run now\n"
    "  devices drain ID        the device takes no new runs (its current run\n"
    "                          finishes normally); kept across restarts\n"
    "  devices undrain ID      the device takes runs again\n"
    "  devices forget ID       the device leaves the listings and the devices\n"
    "                          sweeps are validated against (its runs and data\n"
    "                          stay); refused while it is connected and not\n"
    "                          drained; it comes back if its agent registers\n"
    "  devices --modes DEVICE  the power modes of DEVICE: the nvpmodel\n"
    "                          presets and study modes of its class (name,\n"
    "                          cores, CPU/GPU/EMC MHz; '-' not given, 'max'\n"
    "                          uncapped), the size of its custom space and\n"
    "                          the CPU/GPU/EMC MHz a custom mode may set;\n"
    "                          a class name instead (thor, orin-nx, ...)\n"
    "                          lists the class's, no device needed\n"
    "  top [--interval_s S] [--iterations N]\n"
    "                          live view of every device: state, current\n"
    "                          run, power (and its source), temperature,\n"
    "                          CPU/GPU utilization and clocks, EMC clock,\n"
    "                          memory; refreshes every S s (default 2)\n"
    "                          until Ctrl-C or N frames\n"
    "  runs --sweep ID         one row per run with its measurements\n"
    "  summary --sweep ID      one row per matrix cell, mean ± sd over\n"
    "                          repetitions\n"
    "  rerun --sweep ID [--failed] [--cancelled] [--timeout_s S]\n"
    "                          re-queue the sweep's runs that ended failed\n"
    "                          and/or cancelled (default both) as a new\n"
    "                          attempt, keeping every earlier attempt's data;\n"
    "                          --timeout_s gives them a new per-run timeout;\n"
    "                          prints how many were re-queued\n"
    "  cancel --sweep ID [--run ID]\n"
    "                          cancel the sweep's runs that have not ended\n"
    "                          (running ones are stopped on their agents)\n"
    "  compare --sweep ID [--by runtime|page_cache|device|data|tenants]\n"
    "          [--devices A,B] [--sides A,B]\n"
    "                          per matrix cell, native vs container (or two\n"
    "                          of native, container, vm, container_in_vm in\n"
    "                          --sides; or page cache kept vs dropped, or\n"
    "                          device A vs device B with --by device, or\n"
    "                          synthetic vs real data with --by data, or one\n"
    "                          tenant vs co-located copies with --by\n"
    "                          tenants): each metric's mean and 95% CI per\n"
    "                          side, the difference in %, Welch's t-test\n"
    "                          p-value; warns when the builds differ\n"
    "  traces --sweep ID [--top N]\n"
    "                          the kernel event traces of a sweep with\n"
    "                          `traces` (docs/traces.md) per matrix cell:\n"
    "                          the N most frequent system calls (default\n"
    "                          10), block requests, write-backs by reason\n"
    "                          with their intervals, faults, switches, and\n"
    "                          why a trace is missing\n"
    "  variability --sweep ID [--metric NAME] [--save-offsets]\n"
    "                          per matrix cell, how much the devices that\n"
    "                          ran it differ: per device n, mean, 95% CI\n"
    "                          and mean start temperature of each metric;\n"
    "                          across devices the between- and within-device\n"
    "                          SD, ICC(1), CV of the device means, one-way\n"
    "                          ANOVA F-test p-value, max/min and outlier\n"
    "                          devices (leave-one-out 95% prediction\n"
    "                          interval, 3+ devices). Metrics:\n"
    "                          minibatch_time, throughput, energy,\n"
    "                          energy_per_sample, incremental_energy,\n"
    "                          mean_power, idle_power. --format csv: one\n"
    "                          row per cell x metric x device plus an\n"
    "                          'across' row; json: numbers as numbers,\n"
    "                          null where a figure is missing.\n"
    "                          --save-offsets also stores each device's\n"
    "                          time and energy over its class mean (the\n"
    "                          mean over the sweep's cells) for fit\n"
    "                          --instances offsets and predict --device\n"
    "  import-tegrastats FILE --device ID [--interval_ms 1000]\n"
    "                          store a tegrastats log (JetPack 4/5/6) as the\n"
    "                          telemetry of a new run (state done); prints\n"
    "                          the run, its sweep and the sample count\n"
    "  export --sweep ID --out DIR\n"
    "                          write runs.csv, minibatches.csv, telemetry.csv\n"
    "  report --sweep ID --out DIR [--run ID]\n"
    "                          DIR/index.html (offline, SVGs inline) and per\n"
    "                          figure a PNG, an SVG and the CSV behind it:\n"
    "                          Pareto fronts, minibatch time split, baseload\n"
    "                          vs incremental energy, native vs container\n"
    "                          distributions, one run over time (--run),\n"
    "                          predicted vs measured held-out modes,\n"
    "                          per-device variability; figures that do not\n"
    "                          apply are left out with the reason. Needs\n"
    "                          python3-matplotlib (--python, --report_script)\n"
    "\nTime and energy models per power mode (figures are per epoch; all are\n"
    "predictions unless marked measured, and every output names the model,\n"
    "the runs it was fitted on and whether the data was measured, modeled\n"
    "or simulated):\n"
    "  fit --sweep ID[,ID...] [--instances pooled|offsets|per_device]\n"
    "      [--reference-model M]\n"
    "                          fit and store a time and an energy model per\n"
    "                          workload and device class of the sweeps' done\n"
    "                          runs (several sweeps: fitted together): form,\n"
    "                          coefficients, in-sample and cross-validated\n"
    "                          MAPE, coverage of the 90% intervals on held-\n"
    "                          out modes, every candidate form. With\n"
    "                          --reference-model M (a model of another\n"
    "                          workload fitted on a full profile): transfer,\n"
    "                          M's form and coefficients as the prior, for a\n"
    "                          new workload profiled at a few (3+) modes\n"
    "  models [--workload W --device-class C ...] [--device ID]\n"
    "                          the stored models, class and per-device (with\n"
    "                          --device: that device's own)\n"
    "  predict --workload W --device-class C --mode cores=4,cpu_mhz=1190.4,\n"
    "          gpu_mhz=1377,mem_mhz=2133 [--mode ...] [--preset MAXN,...]\n"
    "                          epoch time, energy and power with 90%\n"
    "                          intervals (knobs left out: the maximum)\n"
    "  best --workload W --device-class C --max-epoch-time 90s |\n"
    "       --max-power 15W | --max-energy 300J [--conservative]\n"
    "       [--candidates N] [--measured] [--verify N]\n"
    "                          the mode with the least energy under a time\n"
    "                          budget, or the fastest under a power/energy\n"
    "                          budget (mean power over the minibatches),\n"
    "                          over the class's whole mode space; --measured:\n"
    "                          over the measured modes; --verify 3: up to 3\n"
    "                          rounds of run the pick, refit; answer measured\n"
    "  pareto --workload W --device-class C [--measured] [--format csv]\n"
    "                          the time-energy Pareto front, and whether\n"
    "                          MAXN (the default mode) is on it\n"
    "  plan-profiling --device-class C --modes K [--after-sweep ID]\n"
    "          [--workload lenet5 --batch-size 64 --task train ...]\n"
    "          [--out FILE]       the K modes to profile for the most\n"
    "                          reliable fit, as a sweep file for `submit`\n"
    "  (models, predict, best, pareto also take --dataset, --task,\n"
    "  --batch-size, --loader-workers, --model-id to pick one model;\n"
    "  predict, best, pareto take --device ID to answer for one device)\n\n"
    "Security: --tls_ca talks TLS; a controller with a --control_token_file\n"
    "takes the token from --token_file or $POWERSWEEP_TOKEN, or an operator\n"
    "certificate (--tls_cert, --tls_key).\n\n"
    "Exit codes: 0 ok, 1 failed request or failed runs, 2 bad usage,\n"
    "3 controller unreachable.";

namespace {

// An entry's first line: two spaces, then the command (continuation lines
// are indented further).
bool IsEntryStart(absl::string_view line) {
  return line.size() > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ';
}

absl::string_view EntryCommand(absl::string_view line) {
  line.remove_prefix(2);
  return line.substr(0, line.find(' '));
}

}  // namespace

std::string ShortUsage(absl::string_view command) {
  const std::vector<absl::string_view> lines = absl::StrSplit(kUsage, '\n');
  std::vector<std::string> entry, commands;
  bool in_entry = false;
  for (absl::string_view line : lines) {
    if (IsEntryStart(line) && !absl::StartsWith(line, "  (")) {
      const absl::string_view name = EntryCommand(line);
      if (!absl::StartsWith(name, "-") &&
          (commands.empty() || commands.back() != name)) {
        commands.emplace_back(name);
      }
      in_entry = !command.empty() && name == command;
    } else if (line.empty() || !absl::StartsWith(line, "   ")) {
      in_entry = false;
    }
    if (in_entry) entry.emplace_back(line);
  }
  const std::string more = "(powersweep --help lists every command and flag)";
  if (!entry.empty()) {
    return absl::StrCat("usage: powersweep [flags] ", command, " ...\n",
                        absl::StrJoin(entry, "\n"), "\n", more);
  }
  return absl::StrCat("usage: powersweep [flags] COMMAND [ARGS]\ncommands: ",
                      absl::StrJoin(commands, ", "), "\n", more);
}

}  // namespace powersweep
