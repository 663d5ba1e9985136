"""deepspeech2 and its speech front end in PyTorch, for the benchmark
(pytorch_reference.py) and the parity tests (tests/workloads/models/
speech_reference.py, tests/workloads/data/log_mel_reference.py).

Written from the same descriptions as powersweep's C++ (workloads/data/
log_mel.h, speech_format.h; workloads/models/deepspeech2.h), not from its
code:
  read_wav      16-bit PCM with the standard library's wave module, channels
                averaged, int16 / 32768
  log_mel       periodic Hann window of floor(sr * 0.025 + 0.5) samples, hop
                floor(sr * 0.010 + 0.5), no centring, each frame zero-padded
                at the end to the next power of two and transformed with
                torch.fft.rfft, power |X|^2, HTK mel triangles
                (2595 log10(1 + f / 700)) between 0 Hz and min(8000, sr / 2)
                on the bin frequencies k sr / n_fft without normalisation,
                natural log with a floor of 1e-10 (no torchaudio)
  speech_sample each band normalised over the utterance (std floored at
                1e-3), zero-padded to `frames` rows, then the transcript row
                [valid frames, characters, ids...]
  DeepSpeech2   Conv2d/BatchNorm2d/Hardtanh x 2, bidirectional GRU x 3, Linear,
                with torch.nn's parameter names; ctc() is its CTC loss
  SpeechTrain   a speech set's training split as a torch Dataset
Run with Debian's /usr/bin/python3 (python3-torch).
"""
import os
import wave

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

ALPHABET = " 'abcdefghijklmnopqrstuvwxyz"  # ids 1..28; 0 is the CTC blank


def read_wav(path):
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2:
            raise ValueError(f"{path}: not 16-bit")
        rate = w.getframerate()
        channels = w.getnchannels()
        raw = w.readframes(w.getnframes())
    pcm = np.frombuffer(raw, dtype="<i2").astype(np.float64)
    pcm = pcm.reshape(-1, channels).sum(axis=1) / (32768.0 * channels)
    return rate, torch.from_numpy(pcm)


def hz_to_mel(f):
    return 2595.0 * torch.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def mel_filterbank(rate, n_fft, bands, fmin=0.0, fmax=8000.0):
    fmax = min(fmax, rate / 2.0)
    mels = torch.linspace(float(hz_to_mel(torch.tensor(fmin))),
                          float(hz_to_mel(torch.tensor(fmax))), bands + 2,
                          dtype=torch.float64)
    edges = mel_to_hz(mels)
    bins = torch.arange(n_fft // 2 + 1, dtype=torch.float64) * rate / n_fft
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    up = (bins[None, :] - lower) / (centre - lower)
    down = (upper - bins[None, :]) / (upper - centre)
    return torch.clamp(torch.minimum(up, down), min=0.0)  # (bands, bins)


def log_mel(rate, x, bands=80):
    win = int(rate * 0.025 + 0.5)
    hop = int(rate * 0.010 + 0.5)
    n_fft = 1
    while n_fft < win:
        n_fft *= 2
    if x.numel() < win:
        return torch.zeros(0, bands, dtype=torch.float64)
    frames = x.unfold(0, win, hop)  # (F, win)
    n = torch.arange(win, dtype=torch.float64)
    window = 0.5 - 0.5 * torch.cos(2.0 * torch.pi * n / win)
    spectrum = torch.fft.rfft(frames * window, n=n_fft, dim=1)
    power = spectrum.real ** 2 + spectrum.imag ** 2
    mel = power @ mel_filterbank(rate, n_fft, bands).T
    return torch.log(torch.clamp(mel, min=1e-10))


def speech_sample(mel, transcript, frames, bands=80):
    """(1, frames + 1, bands) float32: the normalised spectrogram, padding,
    and the transcript row."""
    out = torch.zeros(frames + 1, bands)
    valid = min(mel.shape[0], frames)
    m = mel[:valid]
    if valid > 0:
        sd = torch.clamp(m.std(dim=0, unbiased=False), min=1e-3)
        out[:valid] = ((m - m.mean(dim=0)) / sd).float()
    out[frames, 0] = valid
    out[frames, 1] = len(transcript)
    for i, c in enumerate(transcript):
        out[frames, 2 + i] = ALPHABET.index(c) + 1
    return out.unsqueeze(0)


class DeepSpeech2(nn.Module):
    def __init__(self, frames, bands=80, classes=29, channels=32, hidden=256,
                 layers=3):
        super().__init__()
        self.frames = frames
        self.conv1 = nn.Conv2d(1, channels, (11, 41), stride=(2, 2),
                               padding=(5, 20))
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, (11, 21), stride=(1, 2),
                               padding=(5, 10))
        self.bn2 = nn.BatchNorm2d(channels)
        f1 = (bands + 40 - 41) // 2 + 1
        f2 = (f1 + 20 - 21) // 2 + 1
        self.rnn = nn.GRU(channels * f2, hidden, num_layers=layers,
                          bidirectional=True, batch_first=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, x):
        h = x[:, :, :self.frames, :]
        h = F.hardtanh(self.bn1(self.conv1(h)), 0, 20)
        h = F.hardtanh(self.bn2(self.conv2(h)), 0, 20)
        n, c, t, f = h.shape
        h = h.permute(0, 2, 1, 3).reshape(n, t, c * f)
        h, _ = self.rnn(h)
        return self.fc(h)

    def ctc(self, x):
        logits = self(x)
        row = x[:, 0, self.frames, :]
        valid = row[:, 0].long()
        chars = row[:, 1].long()
        targets = row[:, 2:2 + max(1, int(chars.max()))].long()
        lengths = torch.clamp((valid + 1) // 2, 1, logits.shape[1])
        log_probs = F.log_softmax(logits, dim=2).transpose(0, 1)
        return F.ctc_loss(log_probs, targets, lengths, chars, blank=0,
                          zero_infinity=True)


class SpeechTrain(torch.utils.data.Dataset):
    """train-transcripts.tsv (test-transcripts.tsv with split="test") and
    its WAVs: each item read and turned into its log-mel sample when fetched
    (in the DataLoader's workers)."""

    def __init__(self, root, frames, split="train"):
        self.root, self.frames = root, frames
        with open(os.path.join(root, split + "-transcripts.tsv")) as f:
            self.items = [line.rstrip("\n").split("\t", 1)
                          for line in f if line.strip()]
        self.classes = list(range(29))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        wav, text = self.items[i]
        rate, x = read_wav(os.path.join(self.root, wav))
        return speech_sample(log_mel(rate, x), text, self.frames), 0
