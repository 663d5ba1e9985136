#include "agent/runtime/runtime.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace powersweep {

std::string ExitStatus::FailureReason() const {
  if (cancelled) return absl::StrCat("cancelled: ", cancel_reason);
  if (timed_out) return absl::StrFormat("timed out after %g s", timeout_s);
  std::string tail =
      last_stderr_line.empty() ? "" : absl::StrCat(": ", last_stderr_line);
  if (term_signal != 0) {
    return absl::StrCat("workload killed by signal ", term_signal, tail);
  }
  if (exit_code != 0) {
    return absl::StrCat("workload exited with code ", exit_code, tail);
  }
  return "";
}

}  // namespace powersweep
