#include "common/proto_json.h"

#include "google/protobuf/util/json_util.h"

namespace powersweep {

std::string ToJsonLine(const google::protobuf::Message& msg) {
  std::string out;
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  auto st = google::protobuf::util::MessageToJsonString(msg, &out, opts);
  if (!st.ok()) return "{}";
  return out;
}

absl::Status FromJson(const std::string& json,
                      google::protobuf::Message* msg) {
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = false;
  auto st = google::protobuf::util::JsonStringToMessage(json, msg, opts);
  if (!st.ok()) {
    return absl::InvalidArgumentError(std::string(st.message()));
  }
  return absl::OkStatus();
}

}  // namespace powersweep
