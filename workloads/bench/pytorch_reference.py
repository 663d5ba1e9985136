#!/usr/bin/python3
"""The PyTorch side of the loader benchmark (bench_vs_pytorch.py).

Trains (or, --task infer, runs inference with) the same network on the
same files as `powersweep-workload run`, with torch.utils.data.DataLoader
doing what powersweep's loader does, and prints one JSON object:
samples/s, tokens/s, mean stall and compute per minibatch (and, for
gpt2_small inference, the mean time to first token and per-token latency).

Data: an image folder (train/<class>/*.jpg, read with torchvision's
ImageFolder and PIL: resize the shorter side to size*256/224, random crop,
horizontal flip, normalise), an IDX set (Fashion-MNIST files, gzip or
plain, held in memory as torchvision's MNIST datasets do), a text set
(vocab.txt and train.tokens, held in memory; samples are the same windows
of token ids as powersweep's: seq_len (+ 1 for lstm_lm) tokens every
seq_len) for lstm_lm, mobilebert (text_reference_models.py, trained with
the same losses) and seq2seq / seq2seq_lstm (fathom_text_models.py, Adam
as powersweep trains it), a bAbI set (qa*_train.txt, parsed as babi_dataset.h says: each
question with its story's latest 50 statements, seq_len words each) for
memnet (fathom_text_models.py, SGD), a speech set (train-transcripts.tsv
and WAV files, each utterance read and turned into its log-mel sample in
the DataLoader's workers) for deepspeech2 (speech_reference_models.py, CTC
loss, Adam lr 5e-4 as powersweep's), a frames set (train.frames /
test.frames, the DQN's
replay memory, read into memory; a sample is the record's 5 frames / 255,
its label the transition code) or `synthetic` (one batch of the model's
random inputs made before timing starts and reused, as powersweep's
SyntheticSource does; for gpt2_small token ids uniform in 0..50256).
Training shuffles the train split and drops the last partial batch;
inference reads the test split in order (powersweep's loader, loader.h):
an image folder's val/ (else test/) with the center crop, test.tokens,
the qa*_test.txt stories, test-transcripts.tsv, test.frames.

Models vae, dqn and gpt2_small are fathom_reference_models.py, with the C++
steps' losses (negative ELBO; the Q-learning loss with its target network;
next-token cross-entropy) and optimizers (Adam; RMSprop; AdamW); the others
train with SGD (lr 0.01, momentum 0.9) and cross-entropy. Inference is
model.eval() and the loss under torch.no_grad(), as powersweep's InferStep;
for gpt2_small it is the prompt's forward pass with a KV cache and greedy
generation of --gen-tokens tokens (GenerateStep): time to first token =
minibatch in hand to the first token, per-token latency = the mean time of
each later token.

Timing per minibatch: stall = waiting for the DataLoader's next batch;
compute = zero_grad + loss + backward + optimizer step (training) or the
no-grad loss / generation (inference), ended by reading the loss (.item()),
as powersweep's runner does. Run with Debian's /usr/bin/python3
(python3-torch, python3-torchvision).
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

import fathom_reference_models as fathom
import fathom_text_models
import speech_reference_models
import text_reference_models

FATHOM = ("vae", "dqn", "gpt2_small")


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


class IdxSet(torch.utils.data.Dataset):
    def __init__(self, root, train=True):
        def find(stem):
            for name in (stem + ".gz", stem):
                if os.path.exists(os.path.join(root, name)):
                    return os.path.join(root, name)
            sys.exit(f"{root}: no {stem}[.gz]")
        prefix = "train" if train else "t10k"
        self.images = read_idx(find(prefix + "-images-idx3-ubyte"))
        self.labels = read_idx(find(prefix + "-labels-idx1-ubyte")).long()

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = self.images[i].float().div(255).sub(0.2860).div(0.3530)
        return x.unsqueeze(0), self.labels[i]


class TextSet(torch.utils.data.Dataset):
    """train.tokens (test.tokens) as windows of `window` tokens every
    `stride`."""

    def __init__(self, root, stride, window, train=True):
        with open(os.path.join(root, "vocab.txt")) as f:
            self.classes = f.read().split("\n")[:-1]
        name = "train.tokens" if train else "test.tokens"
        with open(os.path.join(root, name), "rb") as f:
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


class FramesSet(torch.utils.data.Dataset):
    """A frames file (workloads/data/frames_format.h) held in memory."""

    def __init__(self, root, train=True):
        path = os.path.join(root, "train.frames" if train else "test.frames")
        with open(path, "rb") as f:
            data = f.read()
        if data[:8] != b"PSFRAME1":
            sys.exit(f"{path}: not a frames file (magic)")
        h, w, stack, actions, count = struct.unpack("<IIIIQ", data[8:32])
        record = 4 + (stack + 1) * h * w
        if len(data) != 40 + count * record:
            sys.exit(f"{path}: {len(data)} bytes, want {40 + count * record}")
        self.records = torch.frombuffer(bytearray(data[40:]),
                                        dtype=torch.uint8).reshape(count,
                                                                   record)
        self.shape = (stack + 1, h, w)
        self.actions = actions
        action = self.records[:, 0].long()
        reward = self.records[:, 1].view(torch.int8).long()
        done = self.records[:, 2].long()
        self.codes = action + actions * (2 * (reward + 1) + done)

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        x = self.records[i, 4:].float().div(255).reshape(self.shape)
        return x, self.codes[i]


def synthetic_batch(model, n, seq_len, actions):
    """One batch of the model's synthetic inputs (Model::SyntheticBatch)."""
    if model == "gpt2_small":
        return (torch.randint(fathom.GPT2_VOCAB, (n, 1, 1, seq_len + 1))
                .float(), torch.zeros(n, dtype=torch.long))
    if model == "dqn":
        return (torch.rand(n, 5, 84, 84),
                torch.randint(6 * actions, (n,), dtype=torch.long))
    if model == "vae":
        return torch.randn(n, 1, 28, 28), torch.randint(10, (n,))
    if model == "lenet5":
        return torch.randn(n, 1, 28, 28), torch.randint(10, (n,))
    if model in IMAGE_MODELS:
        return (torch.randn(n, 3, IMAGE_SIZE, IMAGE_SIZE),
                torch.randint(10, (n,)))
    sys.exit(f"--dataset-path synthetic: not done here for {model}")


# Image models with synthetic data (3 x 224 x 224, 10 classes).
IMAGE_MODELS = ("resnet18", "resnet50", "alexnet", "vgg16", "mobilenet_v3_small")
IMAGE_SIZE = 224

class BabiTrain(torch.utils.data.Dataset):
    """The qa*_train.txt files (qa*_test.txt with train=False) of a bAbI
    directory as memnet's samples: 50 memory slots (most recent statement
    first) and the question, each `words` ids padded with <pad>; the label
    is the answer's id. The vocabulary: the 4 special tokens, then every
    word of both splits sorted."""

    def __init__(self, root, words, memory=50, train=True):
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
            if not n.endswith("_train.txt" if train else "_test.txt"):
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


def dataset(path, size, model="", seq_len=0, train=True):
    if os.path.exists(os.path.join(path, "train-transcripts.tsv")):
        return speech_reference_models.SpeechTrain(
            path, seq_len or 256, "train" if train else "test")
    if model == "memnet":
        return BabiTrain(path, seq_len or 8, train=train)
    if os.path.exists(os.path.join(path, "vocab.txt")):
        seq_len = seq_len or {"lstm_lm": 35, "seq2seq": 30,
                              "seq2seq_lstm": 30}.get(model, 128)
        return TextSet(path, seq_len,
                       seq_len + 1 if model == "lstm_lm" else seq_len, train)
    if any(os.path.exists(os.path.join(path, n))
           for n in ("train.frames", "test.frames")):
        return FramesSet(path, train)
    if os.path.isdir(os.path.join(path, "train")) and not train:
        # The test split as powersweep reads it (image_folder_dataset.h):
        # val/ (else test/), the center crop, the training classes' ids.
        split = os.path.join(path, "val")
        if not os.path.isdir(split):
            split = os.path.join(path, "test")
        t = transforms.Compose([
            transforms.Resize(round(size * 256 / 224)),
            transforms.CenterCrop(size),
            transforms.ToTensor(),
            transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
        ])
        classes = sorted(e.name for e in os.scandir(os.path.join(path, "train"))
                         if e.is_dir())
        data = torchvision.datasets.ImageFolder(split, t)
        remap = {i: classes.index(c) for i, c in enumerate(data.classes)}
        data.target_transform = remap.__getitem__
        data.classes = classes
        return data
    if os.path.isdir(os.path.join(path, "train")):
        t = transforms.Compose([
            transforms.Resize(round(size * 256 / 224)),
            transforms.RandomCrop(size),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
        ])
        return torchvision.datasets.ImageFolder(os.path.join(path, "train"), t)
    return IdxSet(path, train)


class Synthetic:
    """The same batch handed out again, as powersweep's SyntheticSource."""

    def __init__(self, batch):
        self.batch = batch

    def __iter__(self):
        while True:
            yield self.batch


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--dataset-path", required=True,
                   help="a data set directory, or `synthetic`")
    p.add_argument("--task", choices=("train", "infer"), default="train")
    p.add_argument("--batch-size", type=int, required=True)
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--prefetch-depth", type=int, default=0,
                   help="total minibatches ahead (0 = 2 per worker)")
    p.add_argument("--threads", type=int, required=True)
    p.add_argument("--minibatches", type=int, required=True)
    p.add_argument("--input-size", type=int, default=224)
    p.add_argument("--seq-len", type=int, default=0,
                   help="lstm_lm, mobilebert, seq2seq(_lstm), gpt2_small: "
                        "tokens per sample (0 = 35, 128, 30, 128); memnet: words per "
                        "sentence (0 = 8); deepspeech2: spectrogram frames (0 = "
                        "256)")
    p.add_argument("--gen-tokens", type=int, default=16,
                   help="gpt2_small inference: tokens generated per sample")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="cpu",
                   help="cpu or cuda: on cuda each minibatch is copied from "
                        "pinned memory with non_blocking and the copy is "
                        "timed apart from compute (mean_h2d_s)")
    p.add_argument("--warmup", type=int, default=0,
                   help="minibatches run first and left out of the means")
    a = p.parse_args()
    device = torch.device(a.device)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    train = a.task == "train"
    seq_len = a.seq_len or (35 if a.model == "lstm_lm" else 128)
    if a.dataset_path == "synthetic":
        data = None
        actions = 3
        loader = Synthetic(synthetic_batch(a.model, a.batch_size, seq_len,
                                           actions))
        tokens = seq_len if a.model == "gpt2_small" else 0
        classes = 10 if a.model in IMAGE_MODELS + ("lenet5",) else actions
    else:
        data = dataset(a.dataset_path, a.input_size, a.model, a.seq_len,
                       train)
        tokens = (data.stride if isinstance(data, (TextSet, BabiTrain))
                  else data.frames
                  if isinstance(data, speech_reference_models.SpeechTrain)
                  else 0)
        classes = (data.actions if isinstance(data, FramesSet)
                   else len(data.classes) if hasattr(data, "classes")
                   else 10)
        kwargs = {}
        if a.workers > 0:
            depth = a.prefetch_depth if a.prefetch_depth > 0 \
                else 2 * a.workers
            kwargs["prefetch_factor"] = max(1, depth // a.workers)
            kwargs["persistent_workers"] = True
        loader = torch.utils.data.DataLoader(
            data, batch_size=a.batch_size, shuffle=train, drop_last=True,
            num_workers=a.workers, **kwargs)
    loss_fn = torch.nn.CrossEntropyLoss()
    if a.model in FATHOM:
        model = fathom.reference(a.model, classes, seq_len)
        if a.model == "vae":
            step_loss = lambda x, y: fathom.vae_loss(model, x)
        elif a.model == "dqn":
            dqn_loss = fathom.DqnLoss()
            step_loss = lambda x, y: dqn_loss(model, x, y)
        else:
            step_loss = lambda x, y: fathom.gpt2_loss(model, x)
        opt = fathom.make_optimizer(a.model, model) if train else None
    elif isinstance(data, speech_reference_models.SpeechTrain):
        model = speech_reference_models.DeepSpeech2(data.frames)
        step_loss = lambda x, y: model.ctc(x)
        # powersweep's optimizer (own_optimizer.h): Adam, lr 5e-4.
        opt = torch.optim.Adam(model.parameters(), lr=5e-4) if train else None
    elif a.model in ("seq2seq", "seq2seq_lstm"):
        model = fathom_text_models.Seq2Seq(
            classes, data.stride,
            "lstm" if a.model == "seq2seq_lstm" else "gru")
        step_loss = lambda x, y: fathom_text_models.seq2seq_loss(model, x)
        # powersweep's optimizer (workloads/models/own_optimizer.h): Adam.
        opt = torch.optim.Adam(model.parameters(), lr=1e-3) if train else None
    elif a.model == "memnet":
        model = fathom_text_models.MemNet(classes, a.seq_len or 8)
        step_loss = lambda x, y: loss_fn(model(x), y)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) \
            if train else None
    else:
        if isinstance(data, TextSet):
            model = text_reference_models.reference(a.model, classes)
            step_loss = lambda x, y: text_reference_models.lm_loss(model, x)
        else:
            model = build_model(a.model, classes)
            step_loss = lambda x, y: training_loss(loss_fn, model(x), y)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) \
            if train else None
    generate = not train and a.model == "gpt2_small"
    model.train(train)
    cuda = device.type == "cuda"
    if cuda:
        model.to(device)
        if opt is not None:  # built on the CPU parameters: rebuilt on the GPU
            opt = (torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
                   if isinstance(opt, torch.optim.SGD) else
                   type(opt)(model.parameters(), **opt.defaults))
        if isinstance(loader, Synthetic):
            loader.batch = tuple(t.pin_memory() for t in loader.batch)
    stall = compute = h2d = ttft = per_token = 0.0
    done = generated = 0
    start = time.monotonic()
    total = a.minibatches + a.warmup
    step = 0
    while step < total:
        it = iter(loader)
        while step < total:
            if step == a.warmup:  # warm-up over: the means start here
                stall = compute = h2d = ttft = per_token = 0.0
                done = generated = 0
                start = time.monotonic()
            t0 = time.monotonic()
            try:
                x, y = next(it)
            except StopIteration:
                break
            step += 1
            copy = 0.0
            if cuda:
                tc = time.monotonic()
                x = x.to(device, non_blocking=True)
                y = y.to(device, non_blocking=True)
                torch.cuda.synchronize()
                copy = time.monotonic() - tc
                h2d += copy
            t1 = time.monotonic()
            if train:
                opt.zero_grad()
                loss = step_loss(x, y)
                loss.backward()
                opt.step()
                loss.item()
            elif generate:
                stamps = []
                with torch.no_grad():
                    loss, _ = fathom.gpt2_generate(
                        model, x, a.gen_tokens,
                        lambda i: stamps.append(time.monotonic()))
                    loss.item()
                ttft += stamps[0] - t1
                if len(stamps) > 1:
                    per_token += (stamps[-1] - stamps[0]) / (len(stamps) - 1)
                generated += a.batch_size * len(stamps)
            else:
                with torch.no_grad():
                    step_loss(x, y).item()
            t2 = time.monotonic()
            stall += t1 - t0 - copy
            compute += t2 - t1
            done += 1
    elapsed = time.monotonic() - start
    all_tokens = generated if generate else done * a.batch_size * tokens
    result = {
        "side": "pytorch", "task": a.task, "minibatches": done,
        "elapsed_s": elapsed,
        "samples_per_s": done * a.batch_size / elapsed,
        "tokens_per_s": all_tokens / elapsed,
        "stall_fraction": stall / elapsed, "mean_stall_s": stall / done,
        "mean_compute_s": compute / done, "mean_h2d_s": h2d / done,
        "device": a.device, "warmup": a.warmup, "torch": torch.__version__,
        "torchvision": torchvision.__version__}
    if generate:
        result["mean_ttft_s"] = ttft / done
        result["mean_per_token_s"] = per_token / done
    print(json.dumps(result))


if __name__ == "__main__":
    main()
