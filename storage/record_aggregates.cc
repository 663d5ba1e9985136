#include "storage/record_aggregates.h"

#include <algorithm>

namespace powersweep {

void RecordAggregator::AddMinibatch(double e2e_s, double stall_s,
                                    double compute_s, double samples,
                                    bool has_loss, double loss) {
  e2e_ += e2e_s;
  stall_ += stall_s;
  compute_ += compute_s;
  samples_ += samples;
  ++minibatches_;
  if (!has_loss) return;
  if (losses_ < static_cast<int64_t>(kLossWindow)) {
    first_losses_[losses_] = loss;
  }
  last_losses_[losses_ % kLossWindow] = loss;
  ++losses_;
}

void RecordAggregator::AddTokens(int64_t tokens, double ttft_s,
                                 double per_token_s) {
  tokens_ += static_cast<double>(tokens);
  if (ttft_s >= 0) {
    ttft_ += ttft_s;
    ++ttft_n_;
  }
  if (per_token_s >= 0) {
    per_token_ += per_token_s;
    ++per_token_n_;
  }
}

void RecordAggregator::AddSample(double t_s, double cpu_util,
                                 int64_t proc_rss_bytes) {
  ++telemetry_;
  util_ += cpu_util;
  peak_rss_ = std::max(peak_rss_, proc_rss_bytes);
  last_t_ = std::max(last_t_, t_s);
}

void RecordAggregator::AddPowerReading(double t_s, double power_mw,
                                       v1::Provenance provenance) {
  provenance_ = std::max<int>(provenance_, provenance);
  if (readings_ == 0) {
    first_power_t_ = t_s;
  } else {
    joules_ += 0.5 * (power_mw + prev_mw_) / 1000.0 * (t_s - prev_t_);
  }
  prev_t_ = t_s;
  prev_mw_ = power_mw;
  ++readings_;
}

RecordAggregates RecordAggregator::Finish() const {
  RecordAggregates out;
  v1::RunSummary& s = out.summary;
  s.set_minibatches(minibatches_);
  if (minibatches_ > 0) {
    const double n = static_cast<double>(minibatches_);
    s.set_mean_minibatch_s(e2e_ / n);
    s.set_mean_stall_s(stall_ / n);
    s.set_mean_compute_s(compute_ / n);
    s.set_samples_per_s(e2e_ > 0 ? samples_ / e2e_ : 0);
    s.set_tokens_per_s(e2e_ > 0 ? tokens_ / e2e_ : 0);
    if (ttft_n_ > 0) s.set_mean_ttft_s(ttft_ / static_cast<double>(ttft_n_));
    if (per_token_n_ > 0) {
      s.set_mean_per_token_s(per_token_ /
                             static_cast<double>(per_token_n_));
    }
  }
  if (losses_ > 0) {
    const int64_t window =
        std::min<int64_t>(static_cast<int64_t>(kLossWindow), losses_);
    double first = 0, last = 0;
    for (int64_t i = 0; i < window; ++i) first += first_losses_[i];
    // The last `window` losses, oldest first (the order they were added).
    for (int64_t i = losses_ - window; i < losses_; ++i) {
      last += last_losses_[i % kLossWindow];
    }
    s.set_first_loss(first / static_cast<double>(window));
    s.set_last_loss(last / static_cast<double>(window));
  }
  s.set_telemetry_samples(telemetry_);
  if (telemetry_ > 0) {
    s.set_mean_cpu_util(util_ / static_cast<double>(telemetry_));
    s.set_peak_rss_bytes(peak_rss_);
    s.set_duration_s(last_t_);
    if (readings_ >= 2) {
      s.set_energy_j(joules_);
      s.set_energy_provenance(static_cast<v1::Provenance>(provenance_));
    }
  }
  if (readings_ >= 2) out.power_span_s = prev_t_ - first_power_t_;
  return out;
}

}  // namespace powersweep
