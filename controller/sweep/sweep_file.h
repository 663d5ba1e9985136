// Sweep files: YAML read into a v1::SweepSpec, and a SweepSpec written as
// YAML that reads back into an equal SweepSpec (SweepYaml).
//
// The keys are exactly the SweepSpec proto field names (name,
// device_classes, models, datasets, tasks, batch_sizes, loader_workers,
// power_modes, runtimes, repetitions, epochs, minibatches, duration_s, seed,
// threads, telemetry_hz, timeout_s, max_retries). Every list axis also
// accepts a single value (`batch_sizes: 32` = `batch_sizes: [32]`).
// tasks take train|infer, runtimes native|container|vm|container_in_vm. A
// power mode is either
// a preset name (`MAXN`) or a map with keys preset, cpu_cores, cpu_freq_khz,
// gpu_freq_hz, mem_freq_hz; cpu_freq_mhz, gpu_freq_mhz and mem_freq_mhz are
// accepted as conveniences and converted. An empty value (`models:`)
// leaves the field unset.
//
// This is a syntax check only (keys and types); ValidateSweep checks the
// values. Errors are InvalidArgument with one line per problem, all problems
// at once, each naming the key and its line, e.g.
//   unknown key 'batchsize' at line 4 (known keys: name, ...)
//   batch_sizes[1] at line 6: expected an integer, got 'abc'
// Errors from LoadSweepFile start every line with the file's path; a file
// that cannot be read is NotFound / PermissionDenied / InvalidArgument.
//
// yaml-cpp exceptions are caught here and never escape. Thread-safe (no
// shared state).
#ifndef POWERSWEEP_CONTROLLER_SWEEP_SWEEP_FILE_H_
#define POWERSWEEP_CONTROLLER_SWEEP_SWEEP_FILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "powersweep/v1/sweep.pb.h"

namespace powersweep {

absl::StatusOr<v1::SweepSpec> ParseSweepYaml(const std::string& text);

absl::StatusOr<v1::SweepSpec> LoadSweepFile(const std::string& path);

// A sweep file for `spec` that ParseSweepYaml reads back into an equal
// SweepSpec: the `comment` lines first ("# " prepended to each), then one
// line per set field (fields at their default are left out) in field-number
// order, written the way the reader reads them (the same proto descriptors):
// lists in flow style, strings double-quoted, enums in their YAML spelling
// (train, container), power modes as maps of their set fields, numbers
// exactly.
std::string SweepYaml(const v1::SweepSpec& spec,
                      const std::vector<std::string>& comment = {});

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_SWEEP_FILE_H_
