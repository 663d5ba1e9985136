// What the kernel tracer (kernel_tracer.h) reads from the machine before
// it attaches: where tracefs is, the workload's threads, and small files
// (tracepoint formats, /proc/sys/vm settings). Thread-safe (no state).
#ifndef POWERSWEEP_AGENT_TRACE_TRACE_TARGETS_H_
#define POWERSWEEP_AGENT_TRACE_TRACE_TARGETS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace powersweep {

// The directory tracefs is mounted at (one with an `events` folder among
// `dirs`), mounting it at dirs[0] when `mount` and the process may.
// FailedPrecondition naming the directories tried and why otherwise.
absl::StatusOr<std::string> FindTracefs(const std::vector<std::string>& dirs,
                                        bool mount);

// Every thread of `pids` and of their descendant processes, from
// PROC/<pid>/task and PROC/<pid>/task/<tid>/children; pids that are gone
// are skipped.
std::vector<int> WorkloadThreads(const std::string& proc_root,
                                 const std::vector<int>& pids);

// The whole content of a small file; nullopt when it cannot be read.
std::optional<std::string> ReadWholeFile(const std::string& path);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TRACE_TRACE_TARGETS_H_
