// Sweep validation: default filling and a check of every field of a
// SweepSpec against the device-class and workload catalogs and the devices
// the controller knows.
//
// ValidateSweep reports ALL problems at once: one InvalidArgument whose
// message has one line per problem, each naming the field (with its index)
// and the reason, e.g.
//   models[0]: unknown model 'resnet9' (known: lenet5)
//   batch_sizes[1]: must be positive, got 0
// Things that do not make the sweep wrong but that a user should know (a
// class with no registered device yet) are appended to `warnings`.
//
// Pure functions over their arguments; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_H_
#define POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "controller/sweep/catalog.h"
#include "powersweep/v1/control.pb.h"
#include "powersweep/v1/sweep.pb.h"

namespace powersweep {

inline constexpr int64_t kMaxRunsPerSweep = 100000;
inline constexpr int kMaxLoaderWorkers = 64;
inline constexpr int kMaxBatchSize = 65536;
inline constexpr int kMaxThreads = 1024;
inline constexpr int kMaxRetries = 100;
inline constexpr int kMaxTenants = 16;
inline constexpr int kMaxPrefetchDepth = 1024;
// Model input side for image-folder data sets (the smallest every model
// accepts is 32: five 2x poolings).
inline constexpr int kMinInputSize = 32;
inline constexpr int kMaxInputSize = 1024;
// The image container runs ask for when the sweep names none: the one
// infra/docker/build-workload-image.sh builds from this build's workload.
inline constexpr char kDefaultContainerImage[] = "powersweep-workload:local";
// A vm run's guest memory when the sweep gives none (vm.memory_mib).
inline constexpr int32_t kDefaultVmMemoryMib = 4096;
inline constexpr double kMaxTelemetryHz = 1000.0;
// Stop conditions and the run timeout (the agent's own bounds,
// agent/run/run_spec_bounds.h, are the same or wider).
inline constexpr int kMaxEpochs = 1000000;
inline constexpr int64_t kMaxMinibatches = 1000000000;
inline constexpr double kMaxRunSeconds = 7 * 24 * 3600.0;  // 7 days
// How long a settle with a temperature band waits at most by default.
inline constexpr double kDefaultSettleMaxWaitS = 300;

struct ValidationContext {
  // Devices the controller knows (connected or from the store).
  std::vector<v1::DeviceStatus> known_devices;
  DeviceClassCatalog device_classes = DeviceClassCatalog::Default();
  WorkloadCatalog workloads = WorkloadCatalog::Default();
  int64_t max_runs = kMaxRunsPerSweep;
};

// Fills what a sweep file may leave out: repetitions 1, telemetry_hz 10,
// timeout_s 600, seed 1, tasks [train], runtimes [native], loader_workers
// [0], prefetch_depths [0], page_cache [keep], power_modes [{}] (an empty
// mode leaves the device as it is), settle.max_wait_s 300 when a
// temperature band is given.
v1::SweepSpec WithDefaults(const v1::SweepSpec& spec);

// Checks `spec` (normally after WithDefaults). OK, or InvalidArgument
// listing every problem. `warnings` may be null.
absl::Status ValidateSweep(const v1::SweepSpec& spec,
                           const ValidationContext& ctx,
                           std::vector<std::string>* warnings);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_H_
