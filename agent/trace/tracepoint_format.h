// TracepointFormat: what tracefs says about one tracepoint
// (events/<system>/<name>/format): its id, where each field sits in a raw
// record, and the names a field's numbers print as.
//
// The raw record the kernel hands perf (PERF_SAMPLE_RAW) has the layout
// the format file gives, common fields first: its first two bytes are the
// tracepoint id (common_type), so one ring buffer can carry several
// tracepoints. Offsets and sizes differ between kernels (block_rq_insert
// gained fields in 5.x, writeback_start's `reason` moved); nothing here
// assumes them.
//
// ParseTracepointFormat is pure and thread-safe. A format without an ID
// line or with a malformed field line is InvalidArgument naming the line.
#ifndef POWERSWEEP_AGENT_TRACE_TRACEPOINT_FORMAT_H_
#define POWERSWEEP_AGENT_TRACE_TRACEPOINT_FORMAT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace powersweep {

struct TracepointField {
  std::string name;  // "nr_sector"; an array's name without its [N]
  int offset = 0;
  int size = 0;
  bool is_signed = false;
};

struct TracepointFormat {
  std::string name;  // "writeback_start"
  int id = 0;
  std::vector<TracepointField> fields;
  // __print_symbolic(REC->field, { 0, "background" }, ...) of the print
  // format, per field: number -> name.
  std::map<std::string, std::map<int64_t, std::string>> symbols;

  const TracepointField* Field(absl::string_view field) const;
};

absl::StatusOr<TracepointFormat> ParseTracepointFormat(absl::string_view text);

// The integer of `field` in `record` (sign-extended when the field is
// signed; sizes 1, 2, 4 and 8); nullopt when the record is too short or
// the size is not one of those.
std::optional<int64_t> ReadField(const TracepointField& field,
                                 const uint8_t* record, size_t record_size);
// A char[N] field up to its first NUL ("" when the record is too short).
std::string ReadCharField(const TracepointField& field, const uint8_t* record,
                          size_t record_size);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TRACE_TRACEPOINT_FORMAT_H_
