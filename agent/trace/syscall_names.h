// SyscallName: the name of system call number `nr` on the machine this
// build targets ("read"), or "nr_<N>" when this build knows no name for
// it. The table is generated when the build is configured from the C
// library's <sys/syscall.h> through the compiler that builds the agent
// (agent/trace/CMakeLists.txt), so an aarch64 build names the board's
// numbers. Thread-safe.
#ifndef POWERSWEEP_AGENT_TRACE_SYSCALL_NAMES_H_
#define POWERSWEEP_AGENT_TRACE_SYSCALL_NAMES_H_

#include <cstdint>
#include <string>

namespace powersweep {

std::string SyscallName(int64_t nr);
// How many numbers the table names (more than 250 on Linux's targets).
int SyscallNameCount();

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TRACE_SYSCALL_NAMES_H_
