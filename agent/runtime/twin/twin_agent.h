// MakeTwinAgent: what powersweep-agent --platform=twin runs with: a
// TwinPlatform of the given class and instance, a RuntimeFactory making
// TwinRuntimes on it, and the catalog a twin serves: every model and data
// set the twin can cost (TwinModelNames, TwinDatasetNames), each data set
// NAME at the path "twin:NAME" (no directory is needed, nothing is read).
//
// The result owns the platform; the factory holds pointers to it and to
// `clock`, so both must outlive every runtime it makes.
#ifndef POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_AGENT_H_
#define POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_AGENT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "agent/platform/twin/twin_platform.h"
#include "agent/run/catalog.h"
#include "agent/runtime/runtime.h"
#include "common/clock.h"

namespace powersweep {

struct TwinAgentOptions {
  std::string device_class;  // --device_class
  int64_t instance = 0;      // --instance
  uint64_t seed = 1;         // --twin_seed
  std::string device_id;     // --device_id; empty = "<class>-twin-<N>"
  double time_scale = 0.01;  // --twin_time_scale, >= 0
  double slowdown = 1.0;     // --twin_slowdown, in (0, 10]
  std::string agent_version;
  std::string temperature_file;  // --twin_temperature_file (tests)
};

struct TwinAgent {
  std::unique_ptr<TwinPlatform> platform;
  RuntimeFactory runtimes;
  Catalog catalog;
  std::string workload_bin;  // placeholder argv[0] of simulated runs
};

// InvalidArgument naming the flag when an option is unusable.
absl::StatusOr<TwinAgent> MakeTwinAgent(const TwinAgentOptions& options,
                                        Clock* clock);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_TWIN_TWIN_AGENT_H_
