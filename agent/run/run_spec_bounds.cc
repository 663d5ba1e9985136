#include "agent/run/run_spec_bounds.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace powersweep {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using Problems = std::vector<std::string>;

constexpr double kAnyId = static_cast<double>(std::numeric_limits<int64_t>::max());
constexpr double kAnyUint64 =
    static_cast<double>(std::numeric_limits<uint64_t>::max());

// A limit as people write it: 604800, 100000000000, 0.1.
std::string Limit(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e18) {
    return absl::StrFormat("%.0f", v);
  }
  return absl::StrCat(v);
}

// One value of a field: exact for integers, as read for reals.
struct Value {
  bool real = false;
  bool is_unsigned = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  double AsDouble() const {
    return real ? d : is_unsigned ? static_cast<double>(u)
                                  : static_cast<double>(i);
  }
  std::string Text() const {
    return real ? absl::StrCat(d) : is_unsigned ? absl::StrCat(u)
                                                : absl::StrCat(i);
  }
};

// Reads element `index` (-1: not repeated) of numeric field `f`; false when
// `f` is not numeric.
bool Read(const Message& m, const FieldDescriptor* f, int index, Value* v) {
  const Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      v->i = rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
      return true;
    case FieldDescriptor::CPPTYPE_INT64:
      v->i = rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
      return true;
    case FieldDescriptor::CPPTYPE_UINT32:
      v->is_unsigned = true;
      v->u = rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
      return true;
    case FieldDescriptor::CPPTYPE_UINT64:
      v->is_unsigned = true;
      v->u = rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f);
      return true;
    case FieldDescriptor::CPPTYPE_FLOAT:
      v->real = true;
      v->d = rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f);
      return true;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      v->real = true;
      v->d = rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f);
      return true;
    default:
      return false;
  }
}

void CheckValue(const NumericFieldBound& b, const std::string& name,
                const Value& v, Problems* problems) {
  const double x = v.AsDouble();
  std::string reason;
  if (v.real && !std::isfinite(x)) {
    reason = absl::StrCat("is not a finite number (the limit is ",
                          Limit(b.max), ")");
  } else if (x == 0 && b.zero_means != nullptr) {
    return;
  } else if (x < b.min) {
    reason = b.min == 0 ? "is negative (the minimum is 0)"
                        : absl::StrCat("is less than the minimum of ",
                                       Limit(b.min));
    if (b.zero_means != nullptr) {
      absl::StrAppend(&reason, "; 0 means ", b.zero_means);
    }
  } else if (x > b.max) {
    reason = absl::StrCat("is more than the limit of ", Limit(b.max));
  } else {
    return;
  }
  problems->push_back(
      absl::StrCat(name, ": ", v.Text(), " ", reason, " (", b.what, ")"));
}

// Checks every value at `path` (field names from `m`) against `b`; `shown`
// is the path so far, with [i] for elements of repeated fields.
void Visit(const Message& m, const std::vector<std::string>& path, size_t at,
           const std::string& shown, const NumericFieldBound& b,
           Problems* problems) {
  const FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(path[at]);
  const bool last = at + 1 == path.size();
  if (f == nullptr ||
      last == (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)) {
    problems->push_back(absl::StrCat(
        b.field, ": the bounds table names no numeric field of RunSpec so"));
    return;
  }
  const std::string name =
      shown.empty() ? f->name() : absl::StrCat(shown, ".", f->name());
  const Reflection* r = m.GetReflection();
  const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
  for (int i = 0; i < n; ++i) {
    const int index = f->is_repeated() ? i : -1;
    const std::string element =
        f->is_repeated() ? absl::StrCat(name, "[", i, "]") : name;
    if (!last) {
      const Message& sub = f->is_repeated() ? r->GetRepeatedMessage(m, f, i)
                                            : r->GetMessage(m, f);
      Visit(sub, path, at + 1, element, b, problems);
      continue;
    }
    Value v;
    if (!Read(m, f, index, &v)) {
      problems->push_back(absl::StrCat(
          b.field, ": the bounds table names no numeric field of RunSpec so"));
      return;
    }
    CheckValue(b, element, v, problems);
  }
}

}  // namespace

const std::vector<NumericFieldBound>& RunSpecNumericBounds() {
  static const std::vector<NumericFieldBound>* const kTable =
      new std::vector<NumericFieldBound>{
          {"run_id", 0, kAnyId, nullptr, "an id the controller assigns"},
          {"sweep_id", 0, kAnyId, nullptr, "an id the controller assigns"},
          {"repetition", 0, kAgentMaxRepetition, nullptr, "0-based"},
          {"telemetry_hz", 0, kAgentMaxTelemetryHz, nullptr,
           "samples per second"},
          {"timeout_s", 0, kAgentMaxSeconds, nullptr, "7 days"},
          {"attempt", 1, kAgentMaxAttempt, "not set", "1-based"},
          {"tenants", 0, kAgentMaxTenants, nullptr,
           "co-located copies of the workload"},
          {"workload.batch_size", 0, kAgentMaxBatchSize, nullptr, "samples"},
          {"workload.loader_workers", 0, kAgentMaxLoaderWorkers, nullptr,
           "processes"},
          {"workload.epochs", 0, kAgentMaxEpochs, nullptr, "passes"},
          {"workload.minibatches", 0,
           static_cast<double>(kAgentMaxMinibatches), nullptr, "steps"},
          {"workload.duration_s", 0, kAgentMaxSeconds, nullptr, "7 days"},
          {"workload.seed", 0, kAnyUint64, nullptr, "any seed"},
          {"workload.threads", 0, kAgentMaxThreads, nullptr,
           "intra-op threads"},
          {"workload.prefetch_depth", 0, kAgentMaxPrefetchDepth, nullptr,
           "minibatches"},
          {"workload.input_size", 0, kAgentMaxInputSize, nullptr, "pixels"},
          {"workload.seq_len", 0, kAgentMaxSeqLen, nullptr,
           "tokens per sample"},
          {"workload.vocab", 0, kAgentMaxVocab, nullptr,
           "tokens, 2^24 (ids exact in a float)"},
          {"power_mode.cpu_cores", 0, kAgentMaxCpuCores, nullptr, "cores"},
          {"power_mode.cpu_freq_khz", 0,
           static_cast<double>(kAgentMaxCpuFreqKhz), nullptr, "100 GHz"},
          {"power_mode.gpu_freq_hz", 0,
           static_cast<double>(kAgentMaxDeviceFreqHz), nullptr, "100 GHz"},
          {"power_mode.mem_freq_hz", 0,
           static_cast<double>(kAgentMaxDeviceFreqHz), nullptr, "100 GHz"},
          {"power_mode.gpu_power_limit_w", 0, kAgentMaxGpuPowerLimitW,
           nullptr, "watts"},
          {"workload.warmup_minibatches", -1, kAgentMaxWarmupMinibatches,
           nullptr, "-1 = none, 0 = the default"},
          {"settle.temp_band_c", kAgentMinTempBandC, kAgentMaxTempBandC,
           "no band", "degrees C above the idle reference"},
          {"settle.max_wait_s", 0, kAgentMaxSettleWaitS, nullptr,
           "the longest settle, 1 day"},
          {"settle.seconds", 0, kAgentMaxSettleSeconds, nullptr,
           "a fixed wait, 1 hour"},
          {"vm.vcpus", 0, kAgentMaxVmVcpus, nullptr, "virtual CPUs"},
          {"vm.memory_mib", 0, kAgentMaxVmMemoryMib, nullptr,
           "MiB of guest memory, 1 TiB"},
      };
  return *kTable;
}

absl::Status CheckRunSpecBounds(const v1::RunSpec& spec) {
  Problems p;
  for (const NumericFieldBound& b : RunSpecNumericBounds()) {
    const std::vector<std::string> path = absl::StrSplit(b.field, '.');
    Visit(spec, path, 0, "", b, &p);
  }
  if (p.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(p, "; "));
}

}  // namespace powersweep
