#!/usr/bin/python3
"""PyTorch references of powersweep's sequence models, built from torch.nn
modules under the parameter names of their sources (used by
tests/workloads/models/text_parity.py and pytorch_reference.py):

  RNNModel               examples/word_language_model's RNNModel, rnn_type
                         LSTM, emsize = nhid = 200, 2 layers, dropout 0.2,
                         untied (workloads/models/lstm_lm.h)
  MobileBertForMaskedLM  HuggingFace's MobileBertForMaskedLM at
                         google/mobilebert-uncased's config (24 layers,
                         hidden 512, bottleneck 128, 4 heads, 4 FFNs, NoNorm,
                         trigram input; workloads/models/mobilebert.h)

Both take (N, 1, 1, tokens) token ids as floats, as the C++ models do.
lm_loss(model, x) is each model's training loss: next-token cross-entropy,
or BERT's masking (15% of positions, one per sample always; 80% <mask> = 3,
10% random, 10% kept) and the cross-entropy of the masked positions.
MACS[0] is added to by the forward passes (LSTM gates, attention products,
masked-LM decoder); Linear layers are counted by the caller's hooks.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

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
        # HuggingFace's _init_weights: normal(0, 0.02), zero biases, the
        # padding row zero; norms keep weight 1, bias 0.
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    m.weight.normal_(0, 0.02)
                if isinstance(m, nn.Linear) and m.bias is not None:
                    m.bias.zero_()
                if isinstance(m, nn.Embedding) and m.padding_idx is not None:
                    m.weight[m.padding_idx].zero_()

    def forward(self, x):
        tokens = x.reshape(x.shape[0], -1).long()
        h = self.mobilebert(tokens)
        return self.cls.predictions(
            h, self.mobilebert.embeddings.word_embeddings.weight)


def reference(name, vocab):
    return RNNModel(vocab) if name == "lstm_lm" else MobileBertForMaskedLM(vocab)


def lm_loss(model, x):
    n = x.shape[0]
    tokens = x.reshape(n, -1).long()
    if isinstance(model, RNNModel):
        logits = model(x)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               tokens[:, 1:].reshape(-1))
    length = tokens.shape[1]
    vocab = model.cls.predictions.bias.shape[0]
    chosen = torch.rand(n, length) < 0.15
    chosen.scatter_(1, torch.randint(length, (n, 1)), True)
    how = torch.rand(n, length)
    masked = tokens.masked_fill(chosen & (how < 0.8), 3)
    masked = torch.where(chosen & (how >= 0.8) & (how < 0.9),
                         torch.randint(vocab, (n, length)), masked)
    targets = tokens.masked_fill(~chosen, -100)
    logits = model(masked.float())
    return F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1),
                           ignore_index=-100)
