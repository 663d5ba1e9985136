// Command-line values of the model commands (fit, models, predict, best,
// pareto, plan-profiling): budgets with units, power modes, and the
// argument pre-pass that lets flags be written with dashes
// (--device-class = --device_class) and lets --mode repeat.
//
// Errors: InvalidArgument whose message starts with the flag, e.g.
//   "--max-epoch-time: '90' has no unit (use s, ms or min, e.g. 90s)"
//   "--mode: unknown key 'gpu' in 'gpu=1377' (known: cores, cpu_mhz, ...)"
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CLI_MODEL_ARGS_H_
#define POWERSWEEP_CONTROLLER_CLI_MODEL_ARGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/workload.pb.h"

namespace powersweep {

// Seconds from "90s", "90 s", "1500ms", "1.5min".
absl::StatusOr<double> ParseTimeBudget(const std::string& flag,
                                       const std::string& text);
// Watts from "15W", "15000mW".
absl::StatusOr<double> ParsePowerBudget(const std::string& flag,
                                        const std::string& text);
// Joules from "300J", "1.2kJ".
absl::StatusOr<double> ParseEnergyBudget(const std::string& flag,
                                         const std::string& text);

// "cores=4,cpu_mhz=1190.4,gpu_mhz=1377,mem_mhz=2133" (keys: cores,
// cpu_mhz, cpu_khz, gpu_mhz, gpu_hz, mem_mhz, mem_hz, preset, and the
// PowerMode field names cpu_cores, cpu_freq_khz, gpu_freq_hz, mem_freq_hz).
// MHz values are rounded to the nearest kHz (CPU) or Hz (GPU, memory).
absl::StatusOr<v1::PowerMode> ParseModeFlag(const std::string& text);

// "train" or "infer"; "" is TASK_UNSPECIFIED.
absl::StatusOr<v1::Task> ParseTaskFlag(const std::string& flag,
                                       const std::string& text);

// A positive integer.
absl::StatusOr<int> ParsePositiveIntFlag(const std::string& flag,
                                         const std::string& text);

// The arguments for absl::ParseCommandLine, with every `--name-with-dashes`
// (before any '=') spelt with underscores, every `--mode X` / `--mode=X`
// taken out into `modes`, in order, and every `--sweep X` / `--sweep=X`
// joined into one `--sweep=X,Y` (`fit --sweep 8 --sweep 12` is
// `fit --sweep 8,12`).
struct PreparedArgs {
  std::vector<std::string> args;
  std::vector<std::string> modes;
  std::string problem;  // "--mode: missing value" when the last arg is --mode
};
PreparedArgs PrepareArgs(int argc, char** argv);

// "8", "8,12" (and spaces): the positive sweep ids, in order, without
// repeats. InvalidArgument naming --sweep and the bad entry.
absl::StatusOr<std::vector<int64_t>> ParseSweepsFlag(const std::string& text);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_MODEL_ARGS_H_
