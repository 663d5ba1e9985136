// MakeTwinExecutor: the real RunExecutor over a twin agent, wired as
// agent/main.cc wires one (the agent's catalog, platform and runtimes),
// batches cut by record count only (the twin runs on a FakeClock). The
// agent and the clock must outlive the executor. Test-only.
#ifndef POWERSWEEP_TESTS_AGENT_RUNTIME_TWIN_TWIN_EXECUTOR_H_
#define POWERSWEEP_TESTS_AGENT_RUNTIME_TWIN_TWIN_EXECUTOR_H_

#include <string>

#include "agent/run/run_executor.h"
#include "agent/runtime/twin/twin_agent.h"
#include "common/clock.h"
#include "tests/common/test_dir.h"

namespace powersweep {

inline RunExecutor MakeTwinExecutor(TwinAgent& agent, Clock* clock,
                                    const std::string& work_dir_name,
                                    int max_records_per_batch) {
  RunExecutorConfig cfg;
  cfg.workload_bin = agent.workload_bin;
  cfg.work_dir = MakeTestDir(work_dir_name);
  cfg.batch_interval_s = 1000;
  cfg.max_records_per_batch = max_records_per_batch;
  return RunExecutor(cfg, &agent.catalog, agent.platform.get(), clock,
                     agent.runtimes);
}

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_AGENT_RUNTIME_TWIN_TWIN_EXECUTOR_H_
