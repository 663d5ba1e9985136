// Text forms of the proto enums ('pending', 'train', 'native',
// 'measured', ...), as stored in the database and shown by the CLI.
// Stateless and thread-safe.
#ifndef POWERSWEEP_COMMON_ENUM_TEXT_H_
#define POWERSWEEP_COMMON_ENUM_TEXT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/traces.pb.h"
#include "powersweep/v1/workload.pb.h"

namespace powersweep {

// "unspecified", "pending", "leased", "running", "done", "failed",
// "cancelled".
std::string StateText(v1::RunState state);
// InvalidArgument for text that is no state.
absl::StatusOr<v1::RunState> ParseState(absl::string_view text);
// Done, failed or cancelled: the run has ended and its row stays as it is
// (a failed run may be retried, as a new attempt).
bool IsFinal(v1::RunState state);

std::string TaskText(v1::Task task);            // "train", "infer"
// "train" -> TASK_TRAIN, "infer" -> TASK_INFER: the tasks a workload runs
// (baseload runs are the controller's own); nullopt for any other text.
std::optional<v1::Task> ParseWorkloadTask(absl::string_view text);
// "native", "container", "vm", "container_in_vm".
std::string RuntimeText(v1::Runtime runtime);
// The inverse of RuntimeText for the four runtimes; nullopt otherwise.
std::optional<v1::Runtime> ParseRuntime(absl::string_view text);
// Whether runs of `runtime` run in a QEMU virtual machine (vm,
// container_in_vm) / in a workload container image (container,
// container_in_vm).
bool RunsInVm(v1::Runtime runtime);
bool RunsInContainer(v1::Runtime runtime);
// "syscalls", "block", "writeback", "page_faults", "sched" (the sweep
// file's spelling); "unspecified" for anything else.
std::string TraceText(v1::Trace trace);
std::string ProvenanceText(v1::Provenance p);   // "measured", "modeled", ...
// Unknown text maps to PROVENANCE_UNSPECIFIED.
v1::Provenance ParseProvenance(absl::string_view text);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_ENUM_TEXT_H_
