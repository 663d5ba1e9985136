#include "controller/core/agent_data_check.h"

#include <cmath>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace powersweep {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

struct Range {
  double min;
  double max;
  const char* unit;
};

constexpr double kSeconds = 1e7;  // 115 days
constexpr double kJoules = 1e10;  // 100 kW for a day
constexpr double kMilliwatts = 1e8;

// Fields by name (in any message of a batch or a result).
const std::map<std::string, Range>& Ranges() {
  static const auto* ranges = new std::map<std::string, Range>{
      {"energy_j", {0, kJoules, " J"}},
      {"energy_stall_j", {0, kJoules, " J"}},
      {"energy_compute_j", {0, kJoules, " J"}},
      {"incremental_energy_j", {-kJoules, kJoules, " J"}},
      {"duration_s", {0, kSeconds, " s"}},
      {"energy_span_s", {0, kSeconds, " s"}},
      {"sampler_cpu_s", {0, kSeconds, " s"}},
      {"workload_offset_s", {-kSeconds, kSeconds, " s"}},
      {"t_start_s", {0, kSeconds, " s"}},
      {"stall_s", {0, kSeconds, " s"}},
      {"compute_s", {0, kSeconds, " s"}},
      {"e2e_s", {0, kSeconds, " s"}},
      {"ttft_s", {0, kSeconds, " s"}},
      {"per_token_s", {0, kSeconds, " s"}},
      {"mean_ttft_s", {0, kSeconds, " s"}},
      {"mean_per_token_s", {0, kSeconds, " s"}},
      {"t_s", {0, kSeconds, " s"}},
      {"proc_cpu_s", {0, kSeconds, " s"}},
      {"cpu_s", {0, kSeconds, " s"}},
      {"power_mw", {0, kMilliwatts, " mW"}},
      {"baseload_power_mw", {0, kMilliwatts, " mW"}},
      {"util", {0, 1e3, ""}},
      {"cpu_util", {0, 1e3, ""}},
      {"gpu_util", {0, 1e3, ""}},
      {"agent_cpu_fraction", {0, 1e3, ""}},
      {"other_cpu_cores", {0, 1e5, " cores"}},
      {"celsius", {-273.15, 1e4, " C"}},
  };
  return *ranges;
}

constexpr Range kAnyNumber{-1e30, 1e30, ""};

std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return absl::StrFormat("%.6g", v);
}

absl::Status CheckValue(const std::string& path, const std::string& name,
                        double v) {
  const auto it = Ranges().find(name);
  const Range r = it != Ranges().end() ? it->second : kAnyNumber;
  if (std::isfinite(v) && v >= r.min && v <= r.max) return absl::OkStatus();
  if (!std::isfinite(v)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is ", Number(v), " (not a finite number)"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, " is ", Number(v), r.unit, ", outside [",
                   Number(r.min), ", ", Number(r.max), "]", r.unit));
}

absl::Status CheckMessage(const Message& m, const std::string& prefix) {
  const Reflection* refl = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  refl->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    const std::string base =
        prefix.empty() ? f->name() : prefix + "." + f->name();
    const int n = f->is_repeated() ? refl->FieldSize(m, f) : 1;
    for (int i = 0; i < n; ++i) {
      const std::string path =
          f->is_repeated() ? absl::StrCat(base, "[", i, "]") : base;
      absl::Status st;
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_DOUBLE:
          st = CheckValue(path, f->name(),
                          f->is_repeated() ? refl->GetRepeatedDouble(m, f, i)
                                           : refl->GetDouble(m, f));
          break;
        case FieldDescriptor::CPPTYPE_FLOAT:
          st = CheckValue(path, f->name(),
                          f->is_repeated() ? refl->GetRepeatedFloat(m, f, i)
                                           : refl->GetFloat(m, f));
          break;
        case FieldDescriptor::CPPTYPE_MESSAGE:
          st = CheckMessage(f->is_repeated() ? refl->GetRepeatedMessage(m, f, i)
                                             : refl->GetMessage(m, f),
                            path);
          break;
        default:
          break;
      }
      if (!st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAgentBatch(const v1::DataBatch& batch) {
  if (batch.seq() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("seq is ", batch.seq(), " (batches count from 1)"));
  }
  return CheckMessage(batch, "");
}

absl::Status CheckAgentResult(const v1::RunResult& result) {
  return CheckMessage(result, "result");
}

}  // namespace powersweep
