// Conversions between protobuf messages and JSON, and between absl::Status
// and gRPC status. Stateless and thread-safe.
#ifndef POWERSWEEP_COMMON_PROTO_JSON_H_
#define POWERSWEEP_COMMON_PROTO_JSON_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"

namespace powersweep {

// One-line JSON (no newlines), proto field names, defaults omitted.
std::string ToJsonLine(const google::protobuf::Message& msg);
// Parses JSON into `msg`; unknown fields are an error naming the field.
absl::Status FromJson(const std::string& json, google::protobuf::Message* msg);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_PROTO_JSON_H_
