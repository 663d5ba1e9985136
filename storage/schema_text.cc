#include "storage/schema_text.h"

#include <charconv>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace powersweep {

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
      // A rerun; or DONE when the controller had failed the run for a lost
      // agent and the agent's spooled result of that attempt arrived.
      return to == v1::RUN_STATE_PENDING || to == v1::RUN_STATE_DONE;
    case v1::RUN_STATE_CANCELLED:  // a rerun
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
