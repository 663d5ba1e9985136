#include "controller/sweep/problem_list.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace powersweep {

absl::Status LimitProblemLines(const absl::Status& status, size_t max_lines) {
  if (status.ok()) return status;
  const std::vector<absl::string_view> lines =
      absl::StrSplit(status.message(), '\n');
  std::vector<std::string> kept;
  for (size_t i = 0; i < lines.size() && i < max_lines; ++i) {
    absl::string_view line = lines[i];
    if (line.size() > kMaxProblemLineChars) {
      kept.push_back(
          absl::StrCat(line.substr(0, kMaxProblemLineChars - 3), "..."));
    } else {
      kept.emplace_back(line);
    }
  }
  if (lines.size() > max_lines) {
    const size_t more = lines.size() - max_lines;
    kept.push_back(absl::StrCat("... and ", more, " more problem",
                                more == 1 ? "" : "s"));
  }
  return absl::Status(status.code(), absl::StrJoin(kept, "\n"));
}

}  // namespace powersweep
