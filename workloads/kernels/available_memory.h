// AvailableMemoryBytes: the memory a new allocation of this process can
// get without the kernel's OOM killer: MemAvailable of /proc/meminfo, and
// when the process is in a cgroup with a memory limit (a container, a
// systemd slice) at most that limit less the cgroup's current usage
// (cgroup v2 memory.max / memory.current, or v1 memory.limit_in_bytes /
// memory.usage_in_bytes). On a Jetson the GPU shares this memory. `root`
// prefixes the /proc and /sys paths (tests pass a directory tree).
// kUnavailable naming the file when /proc/meminfo cannot be read.
// Thread-safe.
#ifndef POWERSWEEP_WORKLOADS_KERNELS_AVAILABLE_MEMORY_H_
#define POWERSWEEP_WORKLOADS_KERNELS_AVAILABLE_MEMORY_H_

#include <string>

#include "absl/status/statusor.h"

namespace powersweep {

absl::StatusOr<double> AvailableMemoryBytes(const std::string& root = "");

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_KERNELS_AVAILABLE_MEMORY_H_
