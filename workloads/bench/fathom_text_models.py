"""seq2seq, seq2seq_lstm and memnet as torch.nn references of powersweep's
C++ models (workloads/models/seq2seq.h, memnet.h), with the same parameter
names:
  Seq2Seq  GRU (seq2seq) or LSTM (seq2seq_lstm, cell="lstm") encoder-decoder
           (embedding 256, 2 layers of 512), Luong et
           al. 2015's "general" attention; the target is the source window
           reversed, the decoder starts from <eos> (id 2); forward() is the
           teacher-forced pass, loss() its cross-entropy against the target.
  MemNet   Sukhbaatar et al. 2015's MemN2N: d 20, memory 50, 3 hops,
           adjacent tying (A^{k+1} = C^k, B = A^1, W^T = C^K), position and
           temporal encoding; forward() gives the answer logits.
Used by tests/workloads/models/fathom_reference.py (parity: names, counts,
MACs, outputs) and by pytorch_reference.py (the throughput benchmark).
EXTRA_MACS[0] is added to by the forward passes: the products no nn.Linear
makes (GRU and LSTM gates from their weights' sizes, attention's and memnet's
matrix products from their operands' shapes).
"""
import torch
from torch import nn

EXTRA_MACS = [0]  # added to by forward passes (products without a module)


def rnn_macs(rnn, tokens):
    """Per-token products of every layer's gates (a GRU's 3, an LSTM's 4):
    W_ih x and W_hh h."""
    return tokens * sum(getattr(rnn, f"weight_ih_l{i}").numel() +
                        getattr(rnn, f"weight_hh_l{i}").numel()
                        for i in range(rnn.num_layers))


class Seq2Seq(nn.Module):
    """GRU (cell="gru") or LSTM (cell="lstm") encoder-decoder, Luong
    "general" attention, teacher forcing: the target is the source window
    reversed, the decoder starts from <eos> (id 2) and the encoder's final
    state (the LSTM's h and c)."""

    def __init__(self, vocab, seq_len, cell="gru"):
        super().__init__()
        rnn = {"gru": nn.GRU, "lstm": nn.LSTM}[cell]
        self.seq_len = seq_len
        self.encoder_embedding = nn.Embedding(vocab, 256)
        self.encoder = rnn(256, 512, 2, batch_first=True)
        self.decoder_embedding = nn.Embedding(vocab, 256)
        self.decoder = rnn(256, 512, 2, batch_first=True)
        self.attention = nn.Linear(512, 512, bias=False)
        self.attention_combine = nn.Linear(1024, 512, bias=False)
        self.generator = nn.Linear(512, vocab)

    def forward(self, x):
        n = x.shape[0]
        src = x.reshape(n, -1)[:, :self.seq_len].long()
        memory, state = self.encoder(self.encoder_embedding(src))
        keys = self.attention(memory)
        tgt = src.flip(1)
        inputs = torch.cat([torch.full((n, 1), 2, dtype=torch.long),
                            tgt[:, :-1]], 1)
        h, _ = self.decoder(self.decoder_embedding(inputs), state)
        weights = torch.softmax(h @ keys.transpose(1, 2), -1)
        context = weights @ memory
        EXTRA_MACS[0] += (rnn_macs(self.encoder, src.numel()) +
                          rnn_macs(self.decoder, inputs.numel()) +
                          h.numel() * keys.shape[1] +
                          weights.numel() * memory.shape[2])
        return self.generator(torch.tanh(
            self.attention_combine(torch.cat([context, h], -1))))


class MemNet(nn.Module):
    """MemN2N: d 20, memory 50, 3 hops, adjacent tying (A^{k+1} = C^k,
    B = A^1, W^T = C^K), position encoding, temporal encoding."""

    def __init__(self, vocab, words, d=20, memory=50, hops=3):
        super().__init__()
        self.words, self.memory, self.hops = words, memory, hops
        self.embeddings = nn.ModuleList(
            [nn.Embedding(vocab, d) for _ in range(hops + 1)])
        self.temporal = nn.ModuleList(
            [nn.Embedding(memory, d) for _ in range(hops + 1)])
        j = torch.arange(1, words + 1, dtype=torch.float64).unsqueeze(1)
        k = torch.arange(1, d + 1, dtype=torch.float64).unsqueeze(0)
        self.register_buffer(
            "position_encoding",
            ((1 - j / words) - (k / d) * (1 - 2 * j / words)).float())

    def encode(self, w, embedding):
        mask = (w != 0).unsqueeze(-1).float()
        return (embedding(w) * self.position_encoding * mask).sum(-2)

    def forward(self, x):
        n = x.shape[0]
        tokens = x.reshape(n, self.memory + 1, self.words).long()
        story, question = tokens[:, :self.memory], tokens[:, self.memory]
        slots = torch.arange(self.memory)
        u = self.encode(question, self.embeddings[0])
        mem = self.encode(story, self.embeddings[0]) + self.temporal[0](slots)
        for k in range(self.hops):
            out = (self.encode(story, self.embeddings[k + 1]) +
                   self.temporal[k + 1](slots))
            p = torch.softmax((mem @ u.unsqueeze(2)).squeeze(2), -1)
            u = u + (p.unsqueeze(1) @ out).squeeze(1)
            EXTRA_MACS[0] += mem.numel() + out.numel()
            mem = out
        answer = self.embeddings[self.hops].weight
        EXTRA_MACS[0] += u.shape[0] * answer.numel()
        return u @ answer.t()


def seq2seq_loss(model, x):
    """Teacher-forced cross-entropy against the reversed source window."""
    logits = model(x)
    target = x.reshape(x.shape[0], -1)[:, :model.seq_len].long().flip(1)
    return nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), target.reshape(-1))
