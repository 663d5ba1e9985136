// EpochPageCache: what a run does with its data set's pages in the OS page
// cache at the start of every epoch, and what it then finds there.
//
// OnEpochStart(epoch) is called once per epoch before any sample of that
// epoch is read (the loader's epoch hook, on whichever thread claims the
// epoch's first minibatch). With PAGE_CACHE_DROP it first evicts the set's
// files (posix_fadvise DONTNEED, page_cache.h); in both policies it then
// measures the fraction of the set's pages resident (mincore). Sets of more
// than kResidencySampleFiles files are measured on an evenly spaced sample
// of that many files, so the measurement stays well under a second for a
// GLD23k-sized folder. A failure is logged and leaves the epoch without a
// figure; it never fails the run.
//
// TakeResidency(epoch) returns the figure once (for the epoch's first
// minibatch record), nullopt when there is none. Thread-safe.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_EPOCH_PAGE_CACHE_H_
#define POWERSWEEP_WORKLOADS_RUNNER_EPOCH_PAGE_CACHE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "powersweep/v1/workload.pb.h"

namespace powersweep {

inline constexpr size_t kResidencySampleFiles = 2000;

class EpochPageCache {
 public:
  EpochPageCache(std::vector<std::string> files,
                 ::powersweep::v1::PageCache policy);

  void OnEpochStart(int64_t epoch);
  std::optional<double> TakeResidency(int64_t epoch);

 private:
  const std::vector<std::string> files_;
  const std::vector<std::string> sample_;  // what residency is measured on
  const bool drop_;
  absl::Mutex mu_;
  std::map<int64_t, double> residency_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_EPOCH_PAGE_CACHE_H_
