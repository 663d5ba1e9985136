// Page cache control for a data set's files: how much of them the OS page
// cache holds (mincore over a read-only mapping, as vmtouch does), and
// dropping them (posix_fadvise POSIX_FADV_DONTNEED on each file, which
// evicts the clean pages of that file only; no root needed).
//
// Errors name the file: kNotFound / kPermissionDenied when it cannot be
// opened, kInternal when mmap/mincore/fadvise fail. Empty files count as
// zero pages. Stateless and thread-safe (each call opens its own
// descriptors).
#ifndef POWERSWEEP_WORKLOADS_DATA_PAGE_CACHE_H_
#define POWERSWEEP_WORKLOADS_DATA_PAGE_CACHE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace powersweep {

struct Residency {
  int64_t resident_pages = 0;
  int64_t total_pages = 0;
  // resident / total; 1 for a set of empty files (nothing to read).
  double fraction() const {
    return total_pages == 0 ? 1.0
                            : static_cast<double>(resident_pages) / total_pages;
  }
};

// Residency of the union of `files` (each counted once per listing).
absl::StatusOr<Residency> MeasureResidency(
    const std::vector<std::string>& files);

// Asks the kernel to evict every file's cached pages. Dirty pages are not
// written back first (data sets are read-only); pages mapped by a process
// stay. Afterwards MeasureResidency is normally near 0 on a disk file
// system; on tmpfs the pages ARE the file and stay.
absl::Status DropFromPageCache(const std::vector<std::string>& files);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_PAGE_CACHE_H_
