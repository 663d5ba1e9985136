// Agent-side bounds on every numeric field of a RunSpec (and of its
// WorkloadSpec, PowerMode and Settle), from one table. The controller
// validates sweeps, but the agent runs as root on the device and must not
// trust what arrives on the wire: a huge tenant count would allocate
// without limit, a timeout of 1e308 s would reach an undefined double ->
// integer conversion, a settle band of 1e-9 C could never be met.
//
// CheckRunSpecBounds is the first thing RunExecutor::Execute does; a run
// outside the bounds is rejected before anything starts (a failed
// RunFinished with 0 batches and the message as the reason).
//
// The table (RunSpecNumericBounds, run_spec_bounds.cc) names each numeric
// field by its path from RunSpec ("settle.max_wait_s"); the checker reads
// the values through protobuf reflection, so a row is all a field needs.
// tests/agent/run/run_spec_bounds_coverage_test.cc walks the RunSpec
// descriptor and fails, naming the field, when a numeric field (int32,
// int64, uint32, uint64, float, double, repeated or not, in any
// sub-message) has no row: a new field cannot slip past. Doubles and
// floats must be finite; NaN and infinities are rejected with the field
// named. docs/ARCHITECTURE.md ("What the agent does not trust") lists the
// table.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_RUN_RUN_SPEC_BOUNDS_H_
#define POWERSWEEP_AGENT_RUN_RUN_SPEC_BOUNDS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

inline constexpr int32_t kAgentMaxTenants = 64;
inline constexpr int32_t kAgentMaxVmVcpus = 256;
inline constexpr int32_t kAgentMaxVmMemoryMib = 1 << 20;
inline constexpr double kAgentMaxTelemetryHz = 1000.0;
inline constexpr double kAgentMaxSeconds = 7 * 24 * 3600.0;  // 7 days
inline constexpr int32_t kAgentMaxBatchSize = 65536;
inline constexpr int32_t kAgentMaxLoaderWorkers = 256;
inline constexpr int32_t kAgentMaxThreads = 1024;
inline constexpr int32_t kAgentMaxPrefetchDepth = 4096;
inline constexpr int32_t kAgentMaxInputSize = 4096;
inline constexpr int32_t kAgentMaxSeqLen = 4096;
inline constexpr int32_t kAgentMaxVocab = 1 << 24;
inline constexpr int32_t kAgentMaxEpochs = 1000000;
inline constexpr int64_t kAgentMaxMinibatches = 1000000000;
inline constexpr int32_t kAgentMaxCpuCores = 1024;
inline constexpr int64_t kAgentMaxCpuFreqKhz = 100000000;       // 100 GHz
inline constexpr int64_t kAgentMaxDeviceFreqHz = 100000000000;  // 100 GHz
inline constexpr double kAgentMaxGpuPowerLimitW = 100000;
inline constexpr double kAgentMaxWarmupMinibatches = 1000000;
inline constexpr int32_t kAgentMaxRepetition = 1000000;
inline constexpr int32_t kAgentMaxAttempt = 1000000;
// Settle (the controller's sweep limits are the same).
inline constexpr double kAgentMinTempBandC = 0.1;  // below a sensor's step
inline constexpr double kAgentMaxTempBandC = 50;
inline constexpr double kAgentMaxSettleWaitS = 86400;  // 1 day
inline constexpr double kAgentMaxSettleSeconds = 3600;

// One row of the table: a numeric field, its inclusive limits, and what
// the field is (shown after the limit in the message).
struct NumericFieldBound {
  const char* field;  // path from RunSpec: "tenants", "settle.seconds"
  double min;
  double max;
  // Non-null: 0 is accepted although below `min`, and means this
  // ("no band"); the message of a value below `min` says so.
  const char* zero_means;
  const char* what;
};

// Every numeric field of RunSpec and of its sub-messages, one row each.
const std::vector<NumericFieldBound>& RunSpecNumericBounds();

// OK, or InvalidArgument listing every field outside its bounds, each as
// "<field>: <value> <reason> (<what>)", e.g.
//   "tenants: 2147483647 is more than the limit of 64 (co-located copies
//   of the workload)", "settle.seconds: nan is not a finite number".
absl::Status CheckRunSpecBounds(const v1::RunSpec& spec);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_RUN_SPEC_BOUNDS_H_
