// The run-state transition table of store.h and the comma-separated number
// lists of the telemetry table. The text forms of the proto enums stored in
// the database come from common/enum_text.h.
// Stateless and thread-safe.
#ifndef POWERSWEEP_STORAGE_SCHEMA_TEXT_H_
#define POWERSWEEP_STORAGE_SCHEMA_TEXT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/enum_text.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

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
