#!/usr/bin/python3
"""The PyTorch side of the loader benchmark (bench_vs_pytorch.py).

Trains the same network on the same files as `powersweep-workload run`,
with torch.utils.data.DataLoader doing what powersweep's loader does, and
prints one JSON object: samples/s, mean stall and compute per minibatch.

Data: an image folder (train/<class>/*.jpg, read with torchvision's
ImageFolder and PIL: resize the shorter side to size*256/224, random crop,
horizontal flip, normalise), an IDX set (Fashion-MNIST files, gzip or
plain, held in memory as torchvision's MNIST datasets do) or a text set
(vocab.txt and train.tokens, held in memory; samples are the same windows
of token ids as powersweep's: seq_len (+ 1 for lstm_lm) tokens every
seq_len) for lstm_lm, mobilebert (text_reference_models.py) and seq2seq
(fathom_text_models.py, Adam as powersweep trains it), trained with the same
losses, or a bAbI set (qa*_train.txt, parsed as babi_dataset.h says: each
question with its story's latest 50 statements, seq_len words each) for
memnet (fathom_text_models.py). Timing per
minibatch: stall = waiting for the DataLoader's next batch; compute =
forward + backward + SGD step, ended by reading the loss (.item()), as
powersweep's runner does. Run with Debian's /usr/bin/python3 (python3-torch,
python3-torchvision).
"""
import argparse
import gzip
import json
import os
import struct
import sys
import time

import torch
import torchvision
from torchvision import transforms

import fathom_text_models
import text_reference_models


def lenet5(classes):
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, classes))


def build_model(name, classes):
    if name == "lenet5":
        return lenet5(classes)
    if name == "mobilenetv3":
        return torchvision.models.mobilenet_v3_large(num_classes=classes)
    if name == "inception_v3":
        return torchvision.models.inception_v3(
            num_classes=classes, aux_logits=True, transform_input=False,
            init_weights=True)
    return getattr(torchvision.models, name)(num_classes=classes)


def training_loss(loss_fn, out, y):
    """Cross-entropy; for Inception-v3's (logits, aux_logits) in training,
    CE(main) + 0.4 x CE(aux), as torchvision's reference training and
    powersweep's InceptionV3::Loss compute it."""
    if isinstance(out, torchvision.models.InceptionOutputs):
        return loss_fn(out.logits, y) + 0.4 * loss_fn(out.aux_logits, y)
    return loss_fn(out, y)


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]),
                            dtype=torch.uint8).reshape(shape)


class IdxTrain(torch.utils.data.Dataset):
    def __init__(self, root):
        def find(stem):
            for name in (stem + ".gz", stem):
                if os.path.exists(os.path.join(root, name)):
                    return os.path.join(root, name)
            sys.exit(f"{root}: no {stem}[.gz]")
        self.images = read_idx(find("train-images-idx3-ubyte"))
        self.labels = read_idx(find("train-labels-idx1-ubyte")).long()

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = self.images[i].float().div(255).sub(0.2860).div(0.3530)
        return x.unsqueeze(0), self.labels[i]


class TextTrain(torch.utils.data.Dataset):
    """train.tokens as windows of `window` tokens every `stride`."""

    def __init__(self, root, stride, window):
        with open(os.path.join(root, "vocab.txt")) as f:
            self.classes = f.read().split("\n")[:-1]
        with open(os.path.join(root, "train.tokens"), "rb") as f:
            data = f.read()
        count, = struct.unpack("<Q", data[8:16])
        self.ids = torch.frombuffer(bytearray(data[16:16 + 4 * count]),
                                    dtype=torch.int32)
        self.stride, self.window = stride, window

    def __len__(self):
        return (len(self.ids) - self.window) // self.stride + 1

    def __getitem__(self, i):
        x = self.ids[i * self.stride:i * self.stride + self.window]
        return x.float().reshape(1, 1, -1), 0


class BabiTrain(torch.utils.data.Dataset):
    """The qa*_train.txt files of a bAbI directory as memnet's samples:
    50 memory slots (most recent statement first) and the question, each
    `words` ids padded with <pad>; the label is the answer's id. The
    vocabulary: the 4 special tokens, then every word of both splits
    sorted."""

    def __init__(self, root, words, memory=50):
        names = sorted(os.listdir(root))
        parsed = {}
        tokens = set()
        for n in names:
            if n.startswith("qa") and (n.endswith("_train.txt") or
                                       n.endswith("_test.txt")):
                lines = []
                with open(os.path.join(root, n)) as f:
                    for raw in f:
                        raw = raw.strip()
                        if not raw:
                            continue
                        ident, text = raw.split(" ", 1)
                        fields = text.split("\t")
                        ws = [w.strip(".?,").lower() for w in
                              fields[0].split(" ") if w.strip(".?,")]
                        answer = fields[1].strip().lower() \
                            if len(fields) > 1 else ""
                        tokens.update(ws)
                        if answer:
                            tokens.add(answer)
                        lines.append((int(ident), ws, answer))
                parsed[n] = lines
        self.classes = ["<pad>", "<unk>", "<eos>", "<mask>"] + sorted(tokens)
        ids = {w: i for i, w in enumerate(self.classes)}
        xs, ys = [], []
        for n, lines in parsed.items():
            if not n.endswith("_train.txt"):
                continue
            story = []
            for ident, ws, answer in lines:
                if ident == 1:
                    story = []
                if not answer:
                    story.append(ws)
                    continue
                x = torch.zeros(memory + 1, words)
                for slot, s in enumerate(reversed(story[-memory:])):
                    x[slot, :len(s)] = torch.tensor([ids[w] for w in s])
                x[memory, :len(ws)] = torch.tensor([ids[w] for w in ws])
                xs.append(x.reshape(1, 1, -1))
                ys.append(ids[answer])
        self.x, self.y = xs, ys
        self.stride = (memory + 1) * words  # tokens per sample

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def dataset(path, size, model="", seq_len=0):
    if model == "memnet":
        return BabiTrain(path, seq_len or 8)
    if os.path.exists(os.path.join(path, "vocab.txt")):
        seq_len = seq_len or {"lstm_lm": 35, "seq2seq": 30}.get(model, 128)
        return TextTrain(path, seq_len,
                         seq_len + 1 if model == "lstm_lm" else seq_len)
    if os.path.isdir(os.path.join(path, "train")):
        t = transforms.Compose([
            transforms.Resize(round(size * 256 / 224)),
            transforms.RandomCrop(size),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
        ])
        return torchvision.datasets.ImageFolder(os.path.join(path, "train"), t)
    return IdxTrain(path)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--dataset-path", required=True)
    p.add_argument("--batch-size", type=int, required=True)
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--prefetch-depth", type=int, default=0,
                   help="total minibatches ahead (0 = 2 per worker)")
    p.add_argument("--threads", type=int, required=True)
    p.add_argument("--minibatches", type=int, required=True)
    p.add_argument("--input-size", type=int, default=224)
    p.add_argument("--seq-len", type=int, default=0,
                   help="lstm_lm, mobilebert, seq2seq: tokens per sample (0 "
                        "= 35, 128, 30); memnet: words per sentence (0 = 8)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    data = dataset(a.dataset_path, a.input_size, a.model, a.seq_len)
    text = isinstance(data, (TextTrain, BabiTrain))
    classes = len(data.classes) if hasattr(data, "classes") else 10
    kwargs = {}
    if a.workers > 0:
        depth = a.prefetch_depth if a.prefetch_depth > 0 else 2 * a.workers
        kwargs["prefetch_factor"] = max(1, depth // a.workers)
        kwargs["persistent_workers"] = True
    loader = torch.utils.data.DataLoader(
        data, batch_size=a.batch_size, shuffle=True, drop_last=True,
        num_workers=a.workers, **kwargs)
    if a.model == "seq2seq":
        model = fathom_text_models.Seq2Seq(classes, data.stride)
        step_loss = lambda x, y: fathom_text_models.seq2seq_loss(model, x)
    elif a.model == "memnet":
        model = fathom_text_models.MemNet(classes, a.seq_len or 8)
        step_loss = lambda x, y: loss_fn(model(x), y)
    elif text:
        model = text_reference_models.reference(a.model, classes)
        step_loss = lambda x, y: text_reference_models.lm_loss(model, x)
    else:
        model = build_model(a.model, classes)
        step_loss = lambda x, y: training_loss(loss_fn, model(x), y)
    model.train()
    # powersweep's optimizers (workloads/models/own_optimizer.h): Adam for
    # seq2seq, SGD with momentum for the rest here.
    opt = (torch.optim.Adam(model.parameters(), lr=1e-3)
           if a.model == "seq2seq" else
           torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
    loss_fn = torch.nn.CrossEntropyLoss()
    stall = compute = 0.0
    done = 0
    start = time.monotonic()
    while done < a.minibatches:
        it = iter(loader)
        while done < a.minibatches:
            t0 = time.monotonic()
            try:
                x, y = next(it)
            except StopIteration:
                break
            t1 = time.monotonic()
            opt.zero_grad()
            loss = step_loss(x, y)
            loss.backward()
            opt.step()
            loss.item()
            t2 = time.monotonic()
            stall += t1 - t0
            compute += t2 - t1
            done += 1
    elapsed = time.monotonic() - start
    tokens = data.stride if text else 0
    print(json.dumps({
        "side": "pytorch", "minibatches": done, "elapsed_s": elapsed,
        "samples_per_s": done * a.batch_size / elapsed,
        "tokens_per_s": done * a.batch_size * tokens / elapsed,
        "stall_fraction": stall / elapsed, "mean_stall_s": stall / done,
        "mean_compute_s": compute / done, "torch": torch.__version__,
        "torchvision": torchvision.__version__}))


if __name__ == "__main__":
    main()
