// RunSink: where a run's messages go (the Session in the agent, a recorder
// in tests): RunStarted, the numbered DataBatches, RunFinished. See
// RunExecutor (agent/run/run_executor.h) for the order and the threads.
#ifndef POWERSWEEP_AGENT_RUNTIME_RUN_SINK_H_
#define POWERSWEEP_AGENT_RUNTIME_RUN_SINK_H_

#include "powersweep/v1/agent_gateway.pb.h"

namespace powersweep {

class RunSink {
 public:
  virtual ~RunSink() = default;
  virtual void OnRunStarted(const v1::RunStarted& started) = 0;
  virtual void OnBatch(const v1::DataBatch& batch) = 0;
  virtual void OnRunFinished(const v1::RunFinished& finished) = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_RUN_SINK_H_
