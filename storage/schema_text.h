// Text forms of the proto enums as stored in the database ('pending',
// 'train', 'native', 'measured', ...), the run-state transition table of
// store.h, and the comma-separated number lists of the telemetry table.
// Stateless and thread-safe.
#ifndef POWERSWEEP_STORAGE_SCHEMA_TEXT_H_
#define POWERSWEEP_STORAGE_SCHEMA_TEXT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "powersweep/v1/powersweep.pb.h"

namespace powersweep {

namespace v1 = ::powersweep::v1;

// "unspecified", "pending", "leased", "running", "done", "failed",
// "cancelled".
std::string StateText(v1::RunState state);
// InvalidArgument for text that is no state.
absl::StatusOr<v1::RunState> ParseState(absl::string_view text);

std::string TaskText(v1::Task task);            // "train", "infer"
std::string RuntimeText(v1::Runtime runtime);   // "native", "container"
std::string ProvenanceText(v1::Provenance p);   // "measured", "modeled", ...
// Unknown text maps to PROVENANCE_UNSPECIFIED.
v1::Provenance ParseProvenance(absl::string_view text);

// The transitions store.h allows: PENDING->LEASED|CANCELLED;
// LEASED->RUNNING|PENDING|FAILED|CANCELLED; RUNNING->DONE|FAILED|CANCELLED;
// FAILED->PENDING.
bool TransitionAllowed(v1::RunState from, v1::RunState to);

// "0.5,0.25" (shortest text that reads back to the same double).
std::string JoinDoubles(const std::vector<double>& values);
std::string JoinInts(const std::vector<int64_t>& values);
// Inverse of the above; empty text gives an empty list. InvalidArgument
// naming the bad element otherwise.
absl::StatusOr<std::vector<double>> SplitDoubles(absl::string_view text);
absl::StatusOr<std::vector<int64_t>> SplitInts(absl::string_view text);

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_SCHEMA_TEXT_H_
