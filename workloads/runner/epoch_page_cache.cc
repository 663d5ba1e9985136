#include "workloads/runner/epoch_page_cache.h"

#include <utility>

#include "common/log.h"
#include "workloads/data/page_cache.h"

namespace powersweep {
namespace {

std::vector<std::string> EvenSample(const std::vector<std::string>& files,
                                    size_t n) {
  if (files.size() <= n) return files;
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(files[i * files.size() / n]);
  return out;
}

}  // namespace

EpochPageCache::EpochPageCache(std::vector<std::string> files,
                               v1::PageCache policy)
    : files_(std::move(files)),
      sample_(EvenSample(files_, kResidencySampleFiles)),
      drop_(policy == v1::PAGE_CACHE_DROP) {}

void EpochPageCache::OnEpochStart(int64_t epoch) {
  if (drop_) {
    absl::Status st = DropFromPageCache(files_);
    if (!st.ok()) {
      PS_LOG(WARNING) << "epoch " << epoch
                      << ": dropping the data set from the page cache: "
                      << st.message();
    }
  }
  absl::StatusOr<Residency> r = MeasureResidency(sample_);
  if (!r.ok()) {
    PS_LOG(WARNING) << "epoch " << epoch
                    << ": page cache residency: " << r.status().message();
    return;
  }
  absl::MutexLock lock(&mu_);
  residency_[epoch] = r->fraction();
}

std::optional<double> EpochPageCache::TakeResidency(int64_t epoch) {
  absl::MutexLock lock(&mu_);
  auto it = residency_.find(epoch);
  if (it == residency_.end()) return std::nullopt;
  const double v = it->second;
  residency_.erase(it);
  return v;
}

}  // namespace powersweep
