// Agent-side bounds on every numeric field of a RunSpec (and of its
// WorkloadSpec and PowerMode). The controller validates sweeps, but the
// agent runs as root on the device and must not trust what arrives on the
// wire: a huge tenant count would allocate without limit, a timeout of
// 1e308 s would reach an undefined double -> integer conversion.
//
// CheckRunSpecBounds is the first thing RunExecutor::Execute does; a run
// outside the bounds is rejected before anything starts (a failed
// RunFinished with 0 batches and the message as the reason).
//
// Bounds (inclusive; 0 means "not set" / "the default" where the proto
// says so):
//   field                       min   max
//   tenants                     0     64
//   telemetry_hz                0     1000            (finite)
//   timeout_s                   0     604800 (7 days) (finite)
//   workload.batch_size         0     65536
//   workload.loader_workers     0     256
//   workload.threads            0     1024
//   workload.prefetch_depth     0     4096
//   workload.input_size         0     4096
//   workload.seq_len            0     4096
//   workload.vocab              0     16777216 (2^24)
//   workload.epochs             0     1000000
//   workload.minibatches        0     1000000000
//   workload.duration_s         0     604800 (7 days) (finite)
//   power_mode.cpu_cores        0     1024
//   power_mode.cpu_freq_khz     0     100000000 (100 GHz)
//   power_mode.gpu_freq_hz      0     100000000000 (100 GHz)
//   power_mode.mem_freq_hz      0     100000000000 (100 GHz)
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_RUN_RUN_SPEC_BOUNDS_H_
#define POWERSWEEP_AGENT_RUN_RUN_SPEC_BOUNDS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

inline constexpr int32_t kAgentMaxTenants = 64;
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

// OK, or InvalidArgument listing every field outside its bounds, each as
// "<field>: <value> <reason> <limit>", e.g.
//   "tenants: 2147483647 is more than the limit of 64".
absl::Status CheckRunSpecBounds(const v1::RunSpec& spec);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_RUN_SPEC_BOUNDS_H_
