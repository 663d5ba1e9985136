#!/usr/bin/python3
"""The log-mel spectrogram of workloads/data/log_mel.h, computed in PyTorch.

Usage: /usr/bin/python3 log_mel_reference.py WAV OUT [MEL_BANDS]

Reads WAV (16-bit PCM, channels averaged, int16 / 32768) with the standard
library's wave module and writes OUT: frames x bands float64 values,
little-endian, row-major; prints "frames F bands B rate R". The recipe is
log_mel.h's, written independently with torch (no torchaudio) in
workloads/bench/speech_reference_models.py:
periodic Hann window of floor(sr * 0.025 + 0.5) samples, hop floor(sr *
0.010 + 0.5), no centring, each frame zero-padded at the end to the next
power of two and transformed with torch.fft.rfft, power |X|^2, HTK mel
triangles (2595 log10(1 + f / 700)) between 0 Hz and min(8000, sr / 2) on
the bin frequencies k sr / n_fft without normalisation, natural log with a
floor of 1e-10. Exit status: 0 written, 3 torch cannot be imported, 2 bad
usage or input.
"""
import os
import sys
import wave

try:
    import numpy as np  # noqa: F401
    import torch  # noqa: F401
except ImportError as e:
    print(f"cannot import torch/numpy with {sys.executable}: {e}")
    sys.exit(3)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "workloads", "bench"))
from speech_reference_models import log_mel, read_wav  # noqa: E402


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__)
        return 2
    bands = int(argv[3]) if len(argv) == 4 else 80
    try:
        rate, x = read_wav(argv[1])
    except (OSError, ValueError, wave.Error) as e:
        print(f"cannot read {argv[1]}: {e}")
        return 2
    out = log_mel(rate, x, bands)
    with open(argv[2], "wb") as f:
        f.write(out.numpy().astype("<f8").tobytes())
    print(f"frames {out.shape[0]} bands {out.shape[1]} rate {rate}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
