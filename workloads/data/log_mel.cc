#include "workloads/data/log_mel.h"

#include <algorithm>
#include <cmath>

namespace powersweep {
namespace {

double HzToMel(double f) { return 2595.0 * std::log10(1.0 + f / 700.0); }
double MelToHz(double m) { return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0); }

}  // namespace

LogMel::LogMel(int sample_rate, const LogMelOptions& options)
    : sample_rate_(sample_rate), options_(options) {
  win_ = static_cast<int>(std::floor(sample_rate * options.window_s + 0.5));
  hop_ = static_cast<int>(std::floor(sample_rate * options.hop_s + 0.5));
  win_ = std::max(win_, 1);
  hop_ = std::max(hop_, 1);
  n_fft_ = 1;
  int log2n = 0;
  while (n_fft_ < win_) {
    n_fft_ *= 2;
    ++log2n;
  }
  window_.resize(win_);
  for (int n = 0; n < win_; ++n) {
    window_[n] = 0.5 - 0.5 * std::cos(2.0 * M_PI * n / win_);
  }
  twiddles_.resize(n_fft_ / 2 + 1);
  for (int k = 0; k <= n_fft_ / 2; ++k) {
    twiddles_[k] = std::polar(1.0, -2.0 * M_PI * k / n_fft_);
  }
  bit_reverse_.resize(n_fft_);
  for (int i = 0; i < n_fft_; ++i) {
    int r = 0;
    for (int b = 0; b < log2n; ++b) r |= ((i >> b) & 1) << (log2n - 1 - b);
    bit_reverse_[i] = r;
  }
  // The HTK triangles on the bin frequencies.
  const int bands = options.mel_bands;
  const double fmax = std::min(options.fmax_hz, sample_rate / 2.0);
  const double mlo = HzToMel(options.fmin_hz);
  const double mhi = HzToMel(fmax);
  std::vector<double> f(bands + 2);
  for (int i = 0; i < bands + 2; ++i) {
    f[i] = MelToHz(mlo + (mhi - mlo) * i / (bands + 1));
  }
  first_bin_.assign(bands, 0);
  weights_.assign(bands, {});
  const int bins = n_fft_ / 2 + 1;
  for (int b = 0; b < bands; ++b) {
    int first = -1;
    std::vector<double> w;
    for (int k = 0; k < bins; ++k) {
      const double fk = static_cast<double>(k) * sample_rate / n_fft_;
      const double up = (fk - f[b]) / (f[b + 1] - f[b]);
      const double down = (f[b + 2] - fk) / (f[b + 2] - f[b + 1]);
      const double v = std::max(0.0, std::min(up, down));
      if (v > 0) {
        if (first < 0) first = k;
        w.resize(k - first + 1, 0.0);
        w[k - first] = v;
      }
    }
    first_bin_[b] = std::max(first, 0);
    weights_[b] = std::move(w);
  }
}

int64_t LogMel::Frames(int64_t samples) const {
  return samples < win_ ? 0 : 1 + (samples - win_) / hop_;
}

void LogMel::Fft(std::vector<std::complex<double>>& a) const {
  const int n = n_fft_;
  for (int i = 0; i < n; ++i) {
    if (i < bit_reverse_[i]) std::swap(a[i], a[bit_reverse_[i]]);
  }
  for (int len = 2; len <= n; len *= 2) {
    const int step = n / len;
    const int half = len / 2;
    for (int i = 0; i < n; i += len) {
      for (int j = 0; j < half; ++j) {
        // e^{-2 pi i j / len} = twiddles_[j * step], j * step < n / 2.
        const std::complex<double> t = twiddles_[j * step] * a[i + j + half];
        a[i + j + half] = a[i + j] - t;
        a[i + j] += t;
      }
    }
  }
}

int64_t LogMel::Compute(const float* samples, int64_t n, int64_t max_frames,
                        float* out) const {
  const int64_t frames = std::min(Frames(n), max_frames);
  const int bins = n_fft_ / 2 + 1;
  std::vector<std::complex<double>> a(n_fft_);
  std::vector<double> power(bins);
  const int bands = options_.mel_bands;
  for (int64_t t = 0; t < frames; ++t) {
    const float* x = samples + t * hop_;
    for (int i = 0; i < win_; ++i) a[i] = x[i] * window_[i];
    std::fill(a.begin() + win_, a.end(), 0.0);
    Fft(a);
    for (int k = 0; k < bins; ++k) power[k] = std::norm(a[k]);
    for (int b = 0; b < bands; ++b) {
      double e = 0;
      const std::vector<double>& w = weights_[b];
      const double* p = power.data() + first_bin_[b];
      for (size_t k = 0; k < w.size(); ++k) e += w[k] * p[k];
      out[t * bands + b] =
          static_cast<float>(std::log(std::max(e, options_.floor)));
    }
  }
  return frames;
}

std::vector<float> LogMel::Compute(const std::vector<float>& samples) const {
  const int64_t n = static_cast<int64_t>(samples.size());
  std::vector<float> out(Frames(n) * options_.mel_bands);
  Compute(samples.data(), n, Frames(n), out.data());
  return out;
}

}  // namespace powersweep
