#include "common/enum_text.h"

#include "absl/strings/str_cat.h"

namespace powersweep {

std::string StateText(v1::RunState state) {
  switch (state) {
    case v1::RUN_STATE_PENDING: return "pending";
    case v1::RUN_STATE_LEASED: return "leased";
    case v1::RUN_STATE_RUNNING: return "running";
    case v1::RUN_STATE_DONE: return "done";
    case v1::RUN_STATE_FAILED: return "failed";
    case v1::RUN_STATE_CANCELLED: return "cancelled";
    default: return "unspecified";
  }
}

absl::StatusOr<v1::RunState> ParseState(absl::string_view text) {
  for (int s = v1::RunState_MIN; s <= v1::RunState_MAX; ++s) {
    auto state = static_cast<v1::RunState>(s);
    if (StateText(state) == text) return state;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown run state '", text, "' in the database"));
}

bool IsFinal(v1::RunState state) {
  return state == v1::RUN_STATE_DONE || state == v1::RUN_STATE_FAILED ||
         state == v1::RUN_STATE_CANCELLED;
}

std::string TaskText(v1::Task task) {
  switch (task) {
    case v1::TASK_TRAIN: return "train";
    case v1::TASK_INFER: return "infer";
    case v1::TASK_BASELOAD: return "baseload";
    default: return "unspecified";
  }
}

std::optional<v1::Task> ParseWorkloadTask(absl::string_view text) {
  if (text == "train") return v1::TASK_TRAIN;
  if (text == "infer") return v1::TASK_INFER;
  return std::nullopt;
}

std::string RuntimeText(v1::Runtime runtime) {
  switch (runtime) {
    case v1::RUNTIME_NATIVE: return "native";
    case v1::RUNTIME_CONTAINER: return "container";
    case v1::RUNTIME_VM: return "vm";
    case v1::RUNTIME_CONTAINER_IN_VM: return "container_in_vm";
    default: return "unspecified";
  }
}

std::optional<v1::Runtime> ParseRuntime(absl::string_view text) {
  if (text == "native") return v1::RUNTIME_NATIVE;
  if (text == "container") return v1::RUNTIME_CONTAINER;
  if (text == "vm") return v1::RUNTIME_VM;
  if (text == "container_in_vm") return v1::RUNTIME_CONTAINER_IN_VM;
  return std::nullopt;
}

bool RunsInVm(v1::Runtime runtime) {
  return runtime == v1::RUNTIME_VM || runtime == v1::RUNTIME_CONTAINER_IN_VM;
}

bool RunsInContainer(v1::Runtime runtime) {
  return runtime == v1::RUNTIME_CONTAINER ||
         runtime == v1::RUNTIME_CONTAINER_IN_VM;
}

std::string TraceText(v1::Trace trace) {
  switch (trace) {
    case v1::TRACE_SYSCALLS:
      return "syscalls";
    case v1::TRACE_BLOCK:
      return "block";
    case v1::TRACE_WRITEBACK:
      return "writeback";
    case v1::TRACE_PAGE_FAULTS:
      return "page_faults";
    case v1::TRACE_SCHED:
      return "sched";
    default:
      return "unspecified";
  }
}

std::string ProvenanceText(v1::Provenance p) {
  switch (p) {
    case v1::PROVENANCE_MEASURED: return "measured";
    case v1::PROVENANCE_EMULATED: return "emulated";
    case v1::PROVENANCE_MODELED: return "modeled";
    case v1::PROVENANCE_SIMULATED: return "simulated";
    default: return "unspecified";
  }
}

v1::Provenance ParseProvenance(absl::string_view text) {
  for (int p = v1::Provenance_MIN; p <= v1::Provenance_MAX; ++p) {
    auto prov = static_cast<v1::Provenance>(p);
    if (ProvenanceText(prov) == text) return prov;
  }
  return v1::PROVENANCE_UNSPECIFIED;
}

}  // namespace powersweep
