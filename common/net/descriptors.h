// The process's open-files limit and how many descriptors it holds.
#ifndef POWERSWEEP_COMMON_NET_DESCRIPTORS_H_
#define POWERSWEEP_COMMON_NET_DESCRIPTORS_H_

#include <cstdint>

namespace powersweep {

struct OpenFilesLimit {
  int64_t soft_before = 0;  // RLIMIT_NOFILE's soft limit as found
  int64_t soft = 0;         // as left (raised to `hard` when it could be)
  int64_t hard = 0;         // RLIMIT_NOFILE's hard limit (RLIM_INFINITY:
                            // the kernel's nr_open)
};

// Raises the soft open-files limit to the hard limit (capped at
// /proc/sys/fs/nr_open when the hard limit is unlimited). A failure leaves
// the limit as it was (soft == soft_before).
OpenFilesLimit RaiseOpenFilesLimit();

// Descriptors this process holds now (entries of /proc/self/fd, less the
// one used to list them); -1 when /proc cannot be read.
int64_t CountOpenDescriptors();

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_NET_DESCRIPTORS_H_
