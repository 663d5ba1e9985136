#!/usr/bin/python3
"""Checks a sequence model built by powersweep-workload against a PyTorch
reference built here from torch.nn modules.

Usage: /usr/bin/python3 text_parity.py CASE_DIR [CASE_DIR ...]

Each CASE_DIR is what WriteParityCase (workloads/models/parity_case.h)
writes for lstm_lm or mobilebert. The references:
  lstm_lm     PyTorch's examples/word_language_model RNNModel (LSTM, emsize
              = nhid = 200, 2 layers, dropout 0.2, untied);
  mobilebert  HuggingFace's MobileBertForMaskedLM at google/mobilebert-
              uncased's config, rebuilt from torch.nn modules under the same
              parameter names (no transformers package needed).
Checks, as torchvision_parity.py does: state_dict keys and shapes; parameter
counts; forward MACs at batch size 1 (Linear layers by forward hooks, plus
LSTM gates, attention products and the masked-LM decoder counted in the
reference's forward); the eval-mode output on the same token ids with the
C++ weights loaded (max |diff| <= 1e-4 x max(|output|, 1e-3): the networks
are deep and the two sides may order float sums differently).
Exit status: 0 all pass, 1 a check failed, 3 torch cannot be imported,
2 bad usage or unreadable case.
"""
import math
import os
import sys

try:
    import numpy as np
    import torch
    from torch import nn
    import torch.nn.functional as F
except ImportError as e:
    print(f"cannot import torch/numpy with {sys.executable}: {e}"
          " (install python3-torch)")
    sys.exit(3)

MACS = [0]  # counted by the references' forward passes


class RNNModel(nn.Module):
    """word_language_model's RNNModel with rnn_type LSTM."""

    def __init__(self, ntoken, ninp=200, nhid=200, nlayers=2, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.ninp, self.nlayers = nhid, ninp, nlayers
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

    def forward(self, x):
        # x: (N, 1, 1, L + 1) token ids as floats -> (L, N)
        n = x.shape[0]
        tokens = x.reshape(n, -1)[:, :-1].long().t()
        emb = self.drop(self.encoder(tokens))
        out, _ = self.rnn(emb)
        length = tokens.shape[0]
        MACS[0] += length * n * sum(
            4 * self.nhid * ((self.ninp if i == 0 else self.nhid) + self.nhid)
            for i in range(self.nlayers))
        out = self.drop(out)
        return self.decoder(out.transpose(0, 1))


class NoNorm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.bias = nn.Parameter(torch.zeros(width))

    def forward(self, x):
        return x * self.weight + self.bias


class DenseNorm(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.dense = nn.Linear(i, o)
        self.LayerNorm = NoNorm(o)

    def forward(self, x, residual=None):
        y = self.dense(x)
        return self.LayerNorm(y if residual is None else y + residual)


class Intermediate(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(128, 512)

    def forward(self, x):
        return torch.relu(self.dense(x))


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(128, 128)
        self.key = nn.Linear(128, 128)
        self.value = nn.Linear(512, 128)
        self.dropout = nn.Dropout(0.1)

    def forward(self, qk, v):
        n, length = qk.shape[0], qk.shape[1]

        def heads(t):
            return t.view(n, length, 4, 32).transpose(1, 2)
        q, k, vv = heads(self.query(qk)), heads(self.key(qk)), heads(self.value(v))
        probs = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(32), -1)
        ctx = self.dropout(probs) @ vv
        MACS[0] += 2 * n * length * length * 128
        return ctx.transpose(1, 2).reshape(n, length, 128)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.self = SelfAttention()
        self.output = DenseNorm(128, 128)


class Ffn(nn.Module):
    def __init__(self):
        super().__init__()
        self.intermediate = Intermediate()
        self.output = DenseNorm(512, 128)

    def forward(self, x):
        return self.output(self.intermediate(x), x)


class Output(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(512, 128)
        self.LayerNorm = NoNorm(128)
        self.bottleneck = DenseNorm(128, 512)

    def forward(self, x, residual, layer_input):
        return self.bottleneck(self.LayerNorm(self.dense(x) + residual),
                               layer_input)


class Bottleneck(nn.Module):
    def __init__(self):
        super().__init__()
        self.input = DenseNorm(512, 128)
        self.attention = DenseNorm(512, 128)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = Attention()
        self.intermediate = Intermediate()
        self.output = Output()
        self.bottleneck = Bottleneck()
        self.ffn = nn.ModuleList(Ffn() for _ in range(3))

    def forward(self, h):
        layer_input = self.bottleneck.input(h)
        shared = self.bottleneck.attention(h)
        out = self.attention.output(self.attention.self(shared, h), layer_input)
        for f in self.ffn:
            out = f(out)
        return self.output(self.intermediate(out), out, h)


class Embeddings(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, 128, padding_idx=0)
        self.position_embeddings = nn.Embedding(512, 512)
        self.token_type_embeddings = nn.Embedding(2, 512)
        self.embedding_transformation = nn.Linear(384, 512)
        self.LayerNorm = NoNorm(512)

    def forward(self, tokens):
        e = self.word_embeddings(tokens)
        nxt = F.pad(e[:, 1:], [0, 0, 0, 1])
        prv = F.pad(e[:, :-1], [0, 0, 1, 0])
        x = self.embedding_transformation(torch.cat([nxt, e, prv], 2))
        pos = torch.arange(tokens.shape[1]).unsqueeze(0)
        x = x + self.position_embeddings(pos) + \
            self.token_type_embeddings(torch.zeros_like(tokens))
        return self.LayerNorm(x)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.ModuleList(Layer() for _ in range(24))


class MobileBertModel(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embeddings = Embeddings(vocab)
        self.encoder = Encoder()

    def forward(self, tokens):
        h = self.embeddings(tokens)
        for layer in self.encoder.layer:
            h = layer(h)
        return h


class Transform(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(512, 512)
        self.LayerNorm = nn.LayerNorm(512, eps=1e-12)


class LMPredictionHead(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.transform = Transform()
        self.dense = nn.Linear(vocab, 512 - 128, bias=False)
        self.bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, h, word_embeddings):
        t = self.transform.LayerNorm(torch.relu(self.transform.dense(h)))
        decoder = torch.cat([word_embeddings.t(), self.dense.weight], 0)
        MACS[0] += t.numel() * decoder.shape[1]
        return t @ decoder + self.bias


class OnlyMLMHead(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.predictions = LMPredictionHead(vocab)


class MobileBertForMaskedLM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.mobilebert = MobileBertModel(vocab)
        self.cls = OnlyMLMHead(vocab)

    def forward(self, x):
        tokens = x.reshape(x.shape[0], -1).long()
        h = self.mobilebert(tokens)
        return self.cls.predictions(
            h, self.mobilebert.embeddings.word_embeddings.weight)


def reference(name, vocab):
    return RNNModel(vocab) if name == "lstm_lm" else MobileBertForMaskedLM(vocab)


def count_macs(model, shape):
    MACS[0] = 0

    def hook(module, _inputs, output):
        MACS[0] += output.numel() * module.in_features

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, nn.Linear) and
               not (isinstance(model, MobileBertForMaskedLM) and
                    m is model.cls.predictions.dense)]
    model.eval()
    with torch.no_grad():
        model(torch.zeros(1, *shape))
    for h in handles:
        h.remove()
    return MACS[0]


def read_case(case_dir):
    meta = {}
    with open(os.path.join(case_dir, "meta.txt")) as f:
        for line in f:
            key, value = line.split()
            meta[key] = value if key == "model" else int(value)
    state = {}
    with open(os.path.join(case_dir, "state", "state.txt")) as f:
        for line in f:
            _kind, key, _dtype, _shape = line.split()
            state[key] = np.load(os.path.join(case_dir, "state", key + ".npy"))
    x = np.load(os.path.join(case_dir, "input.npy"))
    y = np.load(os.path.join(case_dir, "output.npy"))
    return meta, state, x, y


def check(case_dir):
    meta, state, x, y_cpp = read_case(case_dir)
    name, vocab = meta["model"], meta["vocab"]
    shape = (1, 1, x.shape[3])
    torch.manual_seed(0)
    model = reference(name, vocab)
    ok = True
    print(f"== {name} seq_len {meta['seq_len']}, {x.shape[3]} tokens per "
          f"sample, vocabulary {vocab}")

    ref = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    cpp = {k: tuple(v.shape) for k, v in state.items()}
    missing = sorted(set(ref) - set(cpp))
    extra = sorted(set(cpp) - set(ref))
    wrong = sorted(k for k in set(ref) & set(cpp) if ref[k] != cpp[k])
    same_keys = not (missing or extra or wrong)
    print(f"  state keys        C++ {len(cpp):>13,}  PyTorch {len(ref):>13,}"
          f"  {'same names and shapes' if same_keys else 'DIFFER'}")
    for label, keys in (("only in PyTorch", missing),
                        ("only in C++", extra), ("shape differs", wrong)):
        for k in keys[:10]:
            print(f"    {label}: {k} {ref.get(k)} vs {cpp.get(k)}")
    ok &= same_keys

    params = sum(p.numel() for p in model.parameters())
    print(f"  parameters        C++ {meta['params']:>13,}  PyTorch "
          f"{params:>13,}")
    ok &= params == meta["params"]

    macs = count_macs(model, shape)
    print(f"  forward MACs (b1) C++ {meta['forward_macs']:>13,}  PyTorch "
          f"{macs:>13,}")
    ok &= macs == meta["forward_macs"]

    if same_keys:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
        model.eval()
        with torch.no_grad():
            y_ref = model(torch.from_numpy(x)).numpy()
        scale = float(np.abs(y_ref).max())
        diff = float(np.abs(y_ref - y_cpp).max()) if y_ref.shape == y_cpp.shape \
            else float("inf")
        tol = 1e-4 * max(scale, 1e-3)
        print(f"  output {tuple(y_cpp.shape)}  max |diff| {diff:.3g}  "
              f"(output scale {scale:.3g}, tolerance {tol:.3g})")
        ok &= diff <= tol
    print(f"  {'PASS' if ok else 'FAIL'}")
    return ok


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    print(f"torch {torch.__version__}")
    try:
        results = [check(d) for d in argv[1:]]
    except (OSError, ValueError, KeyError) as e:
        print(f"cannot read a parity case: {e}")
        return 2
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
