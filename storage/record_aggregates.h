// RecordAggregator: the part of a run's summary that comes from its stored
// records (minibatch means and loss windows, telemetry means and peaks, the
// energy integral), computed in one pass. The one implementation of that
// arithmetic: SqliteStore stores its result per run attempt when the run
// finishes (table run_aggregates), and controller/analysis/run_summary.cc
// summarizes records in memory with it, so both give the same values.
//
// Feed minibatches in the order the store reads them (tenant, index), every
// telemetry sample (any order) to AddSample, and the samples with a power
// reading (power_mw > 0) to AddPowerReading in time order.
// Not thread-safe: one owner.
#ifndef POWERSWEEP_STORAGE_RECORD_AGGREGATES_H_
#define POWERSWEEP_STORAGE_RECORD_AGGREGATES_H_

#include <cstddef>
#include <cstdint>

#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

// Aggregates of one run attempt's records.
struct RecordAggregates {
  // minibatches, mean_*_s, samples_per_s, tokens_per_s, mean_ttft_s,
  // mean_per_token_s, first/last_loss (absent when no minibatch has a
  // loss), telemetry_samples,
  // mean_cpu_util, peak_rss_bytes, duration_s (last sample time), energy_j
  // and energy_provenance (with >= 2 power readings); nothing else.
  v1::RunSummary summary;
  // Seconds from the first to the last power reading (0 without two).
  double power_span_s = 0;
};

class RecordAggregator {
 public:
  static constexpr size_t kLossWindow = 5;  // minibatches in first/last loss

  // `has_loss` false: the minibatch carries no loss (a twin's inference);
  // the loss windows are over the minibatches that do.
  void AddMinibatch(double e2e_s, double stall_s, double compute_s,
                    double samples, bool has_loss, double loss);
  // The sequence-model fields of the same minibatch (MinibatchRecord
  // tokens, ttft_s, per_token_s; a latency < 0 or NaN means absent).
  void AddTokens(int64_t tokens, double ttft_s, double per_token_s);
  void AddSample(double t_s, double cpu_util, int64_t proc_rss_bytes);
  void AddPowerReading(double t_s, double power_mw, v1::Provenance provenance);

  RecordAggregates Finish() const;

 private:
  int64_t minibatches_ = 0;
  int64_t losses_ = 0;  // minibatches with a loss
  double e2e_ = 0, stall_ = 0, compute_ = 0, samples_ = 0;
  double tokens_ = 0;
  int64_t ttft_n_ = 0, per_token_n_ = 0;
  double ttft_ = 0, per_token_ = 0;
  double first_losses_[kLossWindow] = {};
  double last_losses_[kLossWindow] = {};  // ring, oldest at losses_ % k

  int64_t telemetry_ = 0;
  double util_ = 0, last_t_ = 0;
  int64_t peak_rss_ = 0;

  int64_t readings_ = 0;
  double joules_ = 0, first_power_t_ = 0, prev_t_ = 0, prev_mw_ = 0;
  int provenance_ = v1::PROVENANCE_UNSPECIFIED;
};

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_RECORD_AGGREGATES_H_
