// The parts of a telemetry sample the fixed columns of `telemetry` do not
// hold (rails, temperatures, memory clock, kernel counters), as stored.
//
// Since schema version 7 they are stored in telemetry.extras_pb: the
// protobuf bytes of a TelemetrySample holding only those fields (NULL when
// there are none). Rows stored by older versions hold the same message as
// JSON text in telemetry.rails_json; readers accept both.
// Stateless and thread-safe.
#ifndef POWERSWEEP_STORAGE_TELEMETRY_EXTRAS_H_
#define POWERSWEEP_STORAGE_TELEMETRY_EXTRAS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

// Serializes the extras of `sample` into `*out` (cleared first); leaves it
// empty when the sample has none.
void EncodeTelemetryExtras(const v1::TelemetrySample& sample, std::string* out);

// Merges stored extras into `*sample`: `bytes` from extras_pb, or, when
// `is_json`, the rails_json text of an older row. InvalidArgument when
// they do not parse.
absl::Status DecodeTelemetryExtras(absl::string_view bytes, bool is_json,
                                   v1::TelemetrySample* sample);

// The rails_json text of stored extras (what versions before 7 stored and
// the CSV export shows): the one-line JSON of the message in `bytes`.
absl::StatusOr<std::string> TelemetryExtrasJson(absl::string_view bytes);

// The plain-SQL columns of schema 14 (telemetry.rails_mw and
// telemetry.temperatures_c; the views telemetry_rails and
// telemetry_temperatures read them with json_each): a one-line JSON object
// name -> value, {"VDD_IN":4321.5,"VDD_CPU_GPU_CV":1200}, in the sample's
// order; "" (stored as NULL) when the sample has none.
std::string RailsColumn(const v1::TelemetrySample& sample);
std::string TemperaturesColumn(const v1::TelemetrySample& sample);

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_TELEMETRY_EXTRAS_H_
