// CPU use of other processes during a run: what else ran on the device
// while the workload was timed (another job on a host agent's machine can
// make a 17 ms minibatch take 128 ms). From /proc/stat at the run's start
// and end, the busy CPU time of the whole machine, less the workload's
// (its processes' CPU time) and the agent's own:
//
//   other_cpu_cores = max(0, busy_s(end) - busy_s(start) - workload_cpu_s
//                            - agent_cpu_s) / wall_s
//
// the mean number of cores other processes kept busy (kernel threads and
// interrupts included). RunResult.other_cpu_cores; `runs` flags a run
// whose other_cpu_cores >= kBusyHostCores. Not measured for simulated or
// container runs (a container's CPU time is not the agent's child's).
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_TELEMETRY_HOST_LOAD_H_
#define POWERSWEEP_AGENT_TELEMETRY_HOST_LOAD_H_

#include <map>
#include <optional>

#include "agent/telemetry/proc_readers.h"

namespace powersweep {

// Busy seconds summed over the cores of a /proc/stat snapshot.
double BusySeconds(const std::map<int, CpuTimes>& cores, long ticks_per_s);

// See the header comment; nullopt when wall_s <= 0 or the machine's busy
// time went backwards (a snapshot of other CPUs, e.g. after hot-unplug).
std::optional<double> OtherCpuCores(double busy_start_s, double busy_end_s,
                                    double workload_cpu_s, double agent_cpu_s,
                                    double wall_s);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TELEMETRY_HOST_LOAD_H_
