#include "agent/runtime/twin/twin_agent.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/platform/twin/dataset_cost.h"
#include "agent/platform/twin/model_cost.h"
#include "agent/runtime/twin/twin_runtime.h"
#include "common/kernel_names.h"
#include "common/status_macros.h"

namespace powersweep {

absl::StatusOr<TwinAgent> MakeTwinAgent(const TwinAgentOptions& options,
                                        Clock* clock) {
  if (!(options.time_scale >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--twin_time_scale: must be >= 0, got ", options.time_scale));
  }
  TwinPlatformOptions popts;
  popts.device_class = options.device_class;
  popts.instance = options.instance;
  popts.seed = options.seed;
  popts.device_id = options.device_id;
  popts.agent_version = options.agent_version;
  popts.slowdown = options.slowdown;
  popts.temperature_file = options.temperature_file;
  PS_ASSIGN_OR_RETURN(std::unique_ptr<TwinPlatform> platform,
                      TwinPlatform::Create(std::move(popts)));

  TwinAgent agent;
  agent.platform = std::move(platform);
  TwinPlatform* twin = agent.platform.get();
  TwinRuntimeOptions ropts;
  ropts.time_scale = options.time_scale;
  agent.runtimes = [twin, clock, ropts] {
    return std::make_unique<TwinRuntime>(twin, clock, ropts);
  };
  agent.catalog.models.clear();
  for (const std::string& model : TwinModelNames()) {
    agent.catalog.models.insert(model);
  }
  // Kernels need no data set (TwinKernelShape costs each shape).
  agent.catalog.models.insert(kKernelNames.begin(), kKernelNames.end());
  for (const std::string& dataset : TwinDatasetNames()) {
    agent.catalog.datasets[dataset] = absl::StrCat("twin:", dataset);
  }
  agent.workload_bin = "twin-model";
  return agent;
}

}  // namespace powersweep
