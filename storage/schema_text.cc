#include "storage/schema_text.h"

#include <charconv>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

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

std::string TaskText(v1::Task task) {
  switch (task) {
    case v1::TASK_TRAIN: return "train";
    case v1::TASK_INFER: return "infer";
    case v1::TASK_BASELOAD: return "baseload";
    default: return "unspecified";
  }
}

std::string RuntimeText(v1::Runtime runtime) {
  switch (runtime) {
    case v1::RUNTIME_NATIVE: return "native";
    case v1::RUNTIME_CONTAINER: return "container";
    default: return "unspecified";
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

bool TransitionAllowed(v1::RunState from, v1::RunState to) {
  switch (from) {
    case v1::RUN_STATE_PENDING:
      return to == v1::RUN_STATE_LEASED || to == v1::RUN_STATE_CANCELLED;
    case v1::RUN_STATE_LEASED:
      return to == v1::RUN_STATE_RUNNING || to == v1::RUN_STATE_PENDING ||
             to == v1::RUN_STATE_FAILED || to == v1::RUN_STATE_CANCELLED;
    case v1::RUN_STATE_RUNNING:
      return to == v1::RUN_STATE_DONE || to == v1::RUN_STATE_FAILED ||
             to == v1::RUN_STATE_CANCELLED;
    case v1::RUN_STATE_FAILED:
      return to == v1::RUN_STATE_PENDING;
    default:
      return false;
  }
}

std::string JoinDoubles(const std::vector<double>& values) {
  std::string out;
  char buf[64];
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    auto res = std::to_chars(buf, buf + sizeof(buf), values[i]);
    out.append(buf, res.ptr);
  }
  return out;
}

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    absl::StrAppend(&out, values[i]);
  }
  return out;
}

absl::StatusOr<std::vector<double>> SplitDoubles(absl::string_view text) {
  std::vector<double> out;
  if (text.empty()) return out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    double v = 0;
    if (!absl::SimpleAtod(part, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad number '", part, "' in list '", text, "'"));
    }
    out.push_back(v);
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> SplitInts(absl::string_view text) {
  std::vector<int64_t> out;
  if (text.empty()) return out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(part, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad integer '", part, "' in list '", text, "'"));
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace powersweep
