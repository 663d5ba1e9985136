// LogMel: the log-mel spectrogram of mono audio, the front end of the
// speech models (deepspeech2), computed here in C++ with no LibTorch.
//
// For audio at sample rate sr (any rate; no resampling):
//   window  win = floor(sr * window_s + 0.5) samples (25 ms), a periodic
//           Hann window w[n] = 0.5 - 0.5 cos(2 pi n / win)
//   hop     hop = floor(sr * hop_s + 0.5) samples (10 ms)
//   frames  1 + (samples - win) / hop (integer division; no centring or
//           padding: the last partial window is dropped); 0 when the audio
//           is shorter than one window
//   FFT     n_fft = the smallest power of two >= win; frame t is
//           x[t*hop .. t*hop+win) * w, zero-padded at the end to n_fft;
//           power P[k] = |X[k]|^2 for k = 0..n_fft/2 (unnormalised DFT)
//   mel     HTK's mel scale m(f) = 2595 log10(1 + f / 700); mel_bands + 2
//           points equally spaced in mel from m(fmin) to m(fmax) (fmin 0,
//           fmax min(8000, sr / 2)), back in Hz as f_0..f_{B+1}; band b
//           (0-based) weighs bin k at frequency f = k sr / n_fft by the
//           triangle max(0, min((f - f_b) / (f_{b+1} - f_b),
//           (f_{b+2} - f) / (f_{b+2} - f_{b+1}))) (no area normalisation:
//           torchaudio's melscale_fbanks with norm=None, mel_scale="htk")
//   log     L[t][b] = ln(max(sum_k weight[b][k] P[k], floor)), floor 1e-10
// tests/workloads/data/log_mel_reference.py computes the same in PyTorch.
//
// A LogMel is built once per sample rate (the window, twiddles and
// filterbank are precomputed) and is immutable: Compute is const and
// thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_LOG_MEL_H_
#define POWERSWEEP_WORKLOADS_DATA_LOG_MEL_H_

#include <complex>
#include <cstdint>
#include <vector>

namespace powersweep {

struct LogMelOptions {
  double window_s = 0.025;
  double hop_s = 0.010;
  int mel_bands = 80;
  double fmin_hz = 0;
  double fmax_hz = 8000;  // capped at sr / 2
  double floor = 1e-10;
};

class LogMel {
 public:
  // sample_rate >= 1000 and options with window_s, hop_s > 0, mel_bands
  // >= 1 (callers check; wav_file.h accepts 8..192 kHz).
  LogMel(int sample_rate, const LogMelOptions& options = {});

  int sample_rate() const { return sample_rate_; }
  int window() const { return win_; }
  int hop() const { return hop_; }
  int n_fft() const { return n_fft_; }
  int mel_bands() const { return options_.mel_bands; }
  // Frames of `samples` samples (formula above).
  int64_t Frames(int64_t samples) const;
  // Writes the first min(Frames(n), max_frames) frames of the log-mel
  // spectrogram of samples[0..n) to out (row-major, frames x mel_bands) and
  // returns how many it wrote.
  int64_t Compute(const float* samples, int64_t n, int64_t max_frames,
                  float* out) const;
  // The whole spectrogram, Frames(n) x mel_bands.
  std::vector<float> Compute(const std::vector<float>& samples) const;

 private:
  void Fft(std::vector<std::complex<double>>& a) const;

  int sample_rate_;
  LogMelOptions options_;
  int win_;
  int hop_;
  int n_fft_;
  std::vector<double> window_;
  std::vector<std::complex<double>> twiddles_;  // e^{-2 pi i k / n_fft}
  std::vector<int> bit_reverse_;
  // Band b weighs bins first_bin_[b] .. first_bin_[b] + weights_[b].size().
  std::vector<int> first_bin_;
  std::vector<std::vector<double>> weights_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_LOG_MEL_H_
