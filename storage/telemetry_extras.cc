#include "storage/telemetry_extras.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/proto_json.h"
#include "common/status_macros.h"
#include "google/protobuf/io/coded_stream.h"

namespace powersweep {

void EncodeTelemetryExtras(const v1::TelemetrySample& sample, std::string* out) {
  out->clear();
  if (sample.rails_size() == 0 && sample.temperatures_size() == 0 &&
      sample.mem_freq_hz() == 0 && !sample.has_counters()) {
    return;
  }
  // One scratch message per thread: Clear() keeps its allocations, so the
  // steady state copies the few fields without allocating.
  thread_local v1::TelemetrySample extras;
  extras.Clear();
  *extras.mutable_rails() = sample.rails();
  *extras.mutable_temperatures() = sample.temperatures();
  extras.set_mem_freq_hz(sample.mem_freq_hz());
  if (sample.has_counters()) *extras.mutable_counters() = sample.counters();
  extras.SerializeToString(out);
}

absl::Status DecodeTelemetryExtras(absl::string_view bytes, bool is_json,
                                   v1::TelemetrySample* sample) {
  if (is_json) return FromJson(std::string(bytes), sample);
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  if (!sample->MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    return absl::InvalidArgumentError(
        absl::StrCat("telemetry extras_pb (", bytes.size(),
                     " bytes) is not a TelemetrySample"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> TelemetryExtrasJson(absl::string_view bytes) {
  v1::TelemetrySample extras;
  PS_RETURN_IF_ERROR(DecodeTelemetryExtras(bytes, /*is_json=*/false, &extras));
  return ToJsonLine(extras);
}

namespace {

// `name` as a JSON string (quotes, backslashes and control characters
// escaped).
void AppendJsonString(absl::string_view name, std::string* out) {
  out->push_back('"');
  for (char c : name) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppendFormat(out, "\\u%04x", static_cast<unsigned char>(c));
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

template <typename Items, typename Name, typename Value>
std::string JsonObject(const Items& items, Name name, Value value) {
  if (items.empty()) return "";
  std::string out = "{";
  for (const auto& item : items) {
    const double v = value(item);
    if (!std::isfinite(v)) continue;  // JSON has no NaN: no reading
    if (out.size() > 1) out.push_back(',');
    AppendJsonString(name(item), &out);
    absl::StrAppendFormat(&out, ":%.10g", v);  // the readings' precision
  }
  if (out.size() == 1) return "";
  out.push_back('}');
  return out;
}

}  // namespace

std::string RailsColumn(const v1::TelemetrySample& sample) {
  return JsonObject(
      sample.rails(), [](const v1::RailSample& r) { return r.name(); },
      [](const v1::RailSample& r) { return r.power_mw(); });
}

std::string TemperaturesColumn(const v1::TelemetrySample& sample) {
  return JsonObject(
      sample.temperatures(), [](const v1::Temperature& t) { return t.name(); },
      [](const v1::Temperature& t) { return t.celsius(); });
}

}  // namespace powersweep
