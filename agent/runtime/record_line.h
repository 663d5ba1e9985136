// Decoding one record line of the workload (the one-line protobuf JSON of a
// WorkloadEvent, docs/ARCHITECTURE.md "Workload command line and records").
//
// Minibatch lines are nearly every line and their shape is fixed, so they
// take a hand-written decoder: {"minibatch":{...}} whose members are
// MinibatchRecord fields by their proto names with plain JSON numbers
// (int64 also as a quoted integer, as the JSON printer writes it). Any other
// line, or any minibatch line outside that shape (other spellings, quoted
// doubles, NaN, duplicate or unknown keys, out-of-range integers, bad
// syntax), goes to the protobuf JSON parser (common/proto_json.h), so the
// result is always the one that parser gives.
// Stateless and thread-safe.
#ifndef POWERSWEEP_AGENT_RUNTIME_RECORD_LINE_H_
#define POWERSWEEP_AGENT_RUNTIME_RECORD_LINE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "powersweep/v1/records.pb.h"

namespace powersweep {

// Replaces `*event` with the line's event; InvalidArgument (the JSON
// parser's message) when it does not parse.
absl::Status ParseRecordLine(absl::string_view line, v1::WorkloadEvent* event);

// The fast path alone: true when `line` has the minibatch shape above and
// `*record` (cleared first) now holds it; false (record unspecified) for
// every other line.
bool ParseMinibatchLine(absl::string_view line, v1::MinibatchRecord* record);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_RECORD_LINE_H_
