// Histogram: a Prometheus-style histogram with fixed upper bounds, for
// durations and sizes observed on busy paths. Observe() is a few relaxed
// atomic operations (no lock, no allocation); Snapshot() reads the
// buckets for a scrape. The snapshot's count is the sum of its buckets, so
// buckets and count always agree; its sum may be off by observations in
// flight (buckets and sum are read one after another).
//
// Thread-safe.
#ifndef POWERSWEEP_COMMON_METRICS_HISTOGRAM_H_
#define POWERSWEEP_COMMON_METRICS_HISTOGRAM_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace powersweep {

struct HistogramSnapshot {
  std::vector<double> bounds;        // upper bounds, ascending (no +Inf)
  std::vector<uint64_t> cumulative;  // observations <= bounds[i]
  uint64_t count = 0;                // every observation (the +Inf bucket)
  double sum = 0;
};

class Histogram {
 public:
  // `bounds`: ascending, finite upper bounds; duplicates and non-finite
  // values are dropped.
  explicit Histogram(std::vector<double> bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  void Observe(double value);
  HistogramSnapshot Snapshot() const;

  // Bounds for durations in seconds: 100 us to 10 s, about 2.5x apart.
  static std::vector<double> LatencyBounds();

 private:
  const std::vector<double> bounds_;
  // buckets_[i]: observations in (bounds_[i-1], bounds_[i]]; the last one
  // above every bound.
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<double> sum_{0};
};

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_METRICS_HISTOGRAM_H_
