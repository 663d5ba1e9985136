#include "agent/run/run_spec_bounds.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {
namespace {

using Problems = std::vector<std::string>;

void CheckInt(const char* field, int64_t value, int64_t max,
              Problems* problems) {
  if (value < 0) {
    problems->push_back(
        absl::StrCat(field, ": ", value, " is negative (the minimum is 0)"));
  } else if (value > max) {
    problems->push_back(
        absl::StrCat(field, ": ", value, " is more than the limit of ", max));
  }
}

void CheckReal(const char* field, double value, double max,
               Problems* problems) {
  if (!std::isfinite(value)) {
    problems->push_back(absl::StrCat(field, ": ", value,
                                     " is not a finite number (the limit is ",
                                     max, ")"));
  } else if (value < 0) {
    problems->push_back(
        absl::StrCat(field, ": ", value, " is negative (the minimum is 0)"));
  } else if (value > max) {
    problems->push_back(
        absl::StrCat(field, ": ", value, " is more than the limit of ", max));
  }
}

}  // namespace

absl::Status CheckRunSpecBounds(const v1::RunSpec& spec) {
  Problems p;
  CheckInt("tenants", spec.tenants(), kAgentMaxTenants, &p);
  CheckReal("telemetry_hz", spec.telemetry_hz(), kAgentMaxTelemetryHz, &p);
  CheckReal("timeout_s", spec.timeout_s(), kAgentMaxSeconds, &p);

  const v1::WorkloadSpec& w = spec.workload();
  CheckInt("workload.batch_size", w.batch_size(), kAgentMaxBatchSize, &p);
  CheckInt("workload.loader_workers", w.loader_workers(),
           kAgentMaxLoaderWorkers, &p);
  CheckInt("workload.threads", w.threads(), kAgentMaxThreads, &p);
  CheckInt("workload.prefetch_depth", w.prefetch_depth(),
           kAgentMaxPrefetchDepth, &p);
  CheckInt("workload.input_size", w.input_size(), kAgentMaxInputSize, &p);
  CheckInt("workload.seq_len", w.seq_len(), kAgentMaxSeqLen, &p);
  CheckInt("workload.vocab", w.vocab(), kAgentMaxVocab, &p);
  CheckInt("workload.epochs", w.epochs(), kAgentMaxEpochs, &p);
  CheckInt("workload.minibatches", w.minibatches(), kAgentMaxMinibatches, &p);
  CheckReal("workload.duration_s", w.duration_s(), kAgentMaxSeconds, &p);

  const v1::PowerMode& m = spec.power_mode();
  CheckInt("power_mode.cpu_cores", m.cpu_cores(), kAgentMaxCpuCores, &p);
  CheckInt("power_mode.cpu_freq_khz", m.cpu_freq_khz(), kAgentMaxCpuFreqKhz,
           &p);
  CheckInt("power_mode.gpu_freq_hz", m.gpu_freq_hz(), kAgentMaxDeviceFreqHz,
           &p);
  CheckInt("power_mode.mem_freq_hz", m.mem_freq_hz(), kAgentMaxDeviceFreqHz,
           &p);

  if (p.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(p, "; "));
}

}  // namespace powersweep
