#include "agent/telemetry/host_load.h"

#include <algorithm>

namespace powersweep {

double BusySeconds(const std::map<int, CpuTimes>& cores, long ticks_per_s) {
  if (ticks_per_s <= 0) return 0;
  double jiffies = 0;
  for (const auto& [cpu, t] : cores) jiffies += static_cast<double>(t.Busy());
  return jiffies / static_cast<double>(ticks_per_s);
}

std::optional<double> OtherCpuCores(double busy_start_s, double busy_end_s,
                                    double workload_cpu_s, double agent_cpu_s,
                                    double wall_s) {
  if (!(wall_s > 0) || busy_end_s < busy_start_s) return std::nullopt;
  const double others =
      busy_end_s - busy_start_s - workload_cpu_s - agent_cpu_s;
  return std::max(0.0, others) / wall_s;
}

}  // namespace powersweep
