#!/usr/bin/python3
"""PyTorch references of powersweep's Fathom models and GPT-2 small, built
from torch.nn modules under the C++ models' parameter names (used by
tests/workloads/models/fathom_reference.py, the parity check, and by
pytorch_reference.py, the benchmark's PyTorch side):

  Vae         Fathom's autoenc at its sizes: encoder_mean 784->200,
              encoder_log_var 784->200, decoder 200->784
              (workloads/models/vae.h)
  Dqn         the Nature DQN: conv1..3, fc1, fc2 (workloads/models/dqn.h)
  Gpt2LMHead  GPT-2 small in HuggingFace GPT2LMHeadModel's layout, Conv1D
              weights stored (in, out), lm_head tied to transformer.wte
              (workloads/models/gpt2.h)

Each takes the C++ model's sample layout: (N, 1, 28, 28) normalised pixels,
(N, 5, 84, 84) frames in 0..1 (Q-values of frames 0..3), (N, 1, 1,
seq_len + 1) token ids as floats (logits of the first seq_len).

What the C++ training and inference steps (workloads/runner/step.cc) do
with them, op for op:
  vae_loss(model, x)        Vae::Loss: negative ELBO (Bernoulli
                            cross-entropy of the pixels recovered from the
                            Fashion-MNIST normalisation + KL), z sampled in
                            training mode, the mean in eval mode
  DqnLoss()(model, x, codes) Dqn::Loss: Huber between Q(s, a) and
                            r + 0.99 (1 - done) max Q_target(s', .); the
                            target weights are copied at the first training
                            call and every 100 training calls; in eval mode
                            the online network is the target
  gpt2_loss(model, x)       Gpt2Small::Loss: next-token cross-entropy
  gpt2_generate(model, x, gen_tokens, on_token)
                            Gpt2Small::GenerateTimed: the prompt's forward
                            pass with a KV cache (and its cross-entropy,
                            returned), then greedy generation of gen_tokens
                            tokens, one position per step, on_token(i)
                            called when token i is on the host
  make_optimizer(name, model) own_optimizer.h: vae Adam lr 1e-3; dqn
                            RMSprop lr 2.5e-4, alpha 0.95, eps 1e-5; gpt2
                            AdamW lr 6e-4, betas (0.9, 0.95), decay 0.1
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

FASHION_MEAN, FASHION_STD = 0.2860, 0.3530  # normalization.h
GAMMA = 0.99             # Dqn::kGamma
TARGET_REFRESH = 100     # Dqn::kTargetRefresh
GPT2_VOCAB, GPT2_CONTEXT, GPT2_MODEL = 50257, 1024, 768
GPT2_LAYERS, GPT2_HEADS = 12, 12
GPT2_INIT_STD = 0.02


class Vae(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder_mean = nn.Linear(784, 200)
        self.encoder_log_var = nn.Linear(784, 200)
        self.decoder = nn.Linear(200, 784)

    def forward(self, x):
        x = torch.flatten(x, 1)
        self.encoder_log_var(x)
        return self.decoder(self.encoder_mean(x))


def vae_loss(model, x):
    x = torch.flatten(x, 1)
    mean = model.encoder_mean(x)
    log_var = model.encoder_log_var(x)
    z = mean
    if model.training:
        z = mean + torch.exp(0.5 * log_var) * torch.randn_like(mean)
    logits = model.decoder(z)
    pixels = (x * FASHION_STD + FASHION_MEAN).clamp(0.0, 1.0)
    reconstruction = F.binary_cross_entropy_with_logits(
        logits, pixels, reduction="none").sum(1)
    kl = -0.5 * (1 + log_var - mean.pow(2) - log_var.exp()).sum(1)
    return (reconstruction + kl).mean()


class Dqn(nn.Module):
    def __init__(self, actions):
        super().__init__()
        self.conv1 = nn.Conv2d(4, 32, 8, stride=4)
        self.conv2 = nn.Conv2d(32, 64, 4, stride=2)
        self.conv3 = nn.Conv2d(64, 64, 3)
        self.fc1 = nn.Linear(3136, 512)
        self.fc2 = nn.Linear(512, actions)

    def forward(self, x):
        x = x[:, :4]
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return self.fc2(x)


def _target_q(w, state):
    """Dqn's layers with the target weights w (parameters() order)."""
    x = F.relu(F.conv2d(state, w[0], w[1], stride=4))
    x = F.relu(F.conv2d(x, w[2], w[3], stride=2))
    x = F.relu(F.conv2d(x, w[4], w[5], stride=1))
    x = F.relu(F.linear(torch.flatten(x, 1), w[6], w[7]))
    return F.linear(x, w[8], w[9])


class DqnLoss:
    """Dqn::Loss with its target network and training-step count."""

    def __init__(self):
        self.target = []
        self.steps = 0

    def __call__(self, model, x, codes):
        actions = model.fc2.out_features
        training = model.training
        if training:
            if self.steps % TARGET_REFRESH == 0 or not self.target:
                with torch.no_grad():
                    self.target = [p.detach().clone()
                                   for p in model.parameters()]
            self.steps += 1
        action = codes.remainder(actions)
        outcome = torch.div(codes, actions, rounding_mode="floor")
        done = outcome.remainder(2).float()
        reward = torch.div(outcome, 2, rounding_mode="floor").float() - 1.0
        q = model(x).gather(1, action.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            next_state = x[:, 1:5]
            next_q = (_target_q(self.target, next_state) if training
                      else model(next_state)).max(1)[0]
        target = reward + GAMMA * (1.0 - done) * next_q
        return F.smooth_l1_loss(q, target)


class Conv1D(nn.Module):
    """HuggingFace's Conv1D: y = x W + b, W stored (in, out)."""

    def __init__(self, n_in, n_out, std=GPT2_INIT_STD):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) * std)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]),
                           self.weight).view(*x.shape[:-1], -1)


class Attention(nn.Module):
    def __init__(self, d, heads, proj_std):
        super().__init__()
        self.heads = heads
        self.c_attn = Conv1D(d, 3 * d)
        self.c_proj = Conv1D(d, d, proj_std)

    def forward(self, x, cache=None):
        """cache: None, or this layer's [keys, values] (None before the
        first call), extended in place with x's positions."""
        n, t, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=-1)
        split = lambda y: y.view(n, t, self.heads, d // self.heads) \
            .transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        if cache is not None:
            if cache[0] is not None:
                k = torch.cat([cache[0], k], 2)
                v = torch.cat([cache[1], v], 2)
            cache[0], cache[1] = k, v
        total = k.shape[2]
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)
        if t > 1:
            mask = torch.ones(t, total, dtype=torch.bool).triu(total - t + 1)
            scores = scores.masked_fill(mask, float("-inf"))
        y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(n, t, d)
        return self.c_proj(y)


class Mlp(nn.Module):
    def __init__(self, d, proj_std):
        super().__init__()
        self.c_fc = Conv1D(d, 4 * d)
        self.c_proj = Conv1D(4 * d, d, proj_std)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, d, heads, layers):
        super().__init__()
        proj_std = GPT2_INIT_STD / math.sqrt(2 * layers)
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.attn = Attention(d, heads, proj_std)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.mlp = Mlp(d, proj_std)

    def forward(self, x, cache=None):
        x = x + self.attn(self.ln_1(x), cache)
        return x + self.mlp(self.ln_2(x))


class Transformer(nn.Module):
    def __init__(self, vocab, context, d, layers, heads):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(context, d)
        with torch.no_grad():
            self.wte.weight.normal_(0, GPT2_INIT_STD)
            self.wpe.weight.normal_(0, GPT2_INIT_STD)
        self.h = nn.ModuleList(Block(d, heads, layers) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d, eps=1e-5)

    def forward(self, tokens, cache=None):
        """cache: None, or a list of [keys, values] per layer."""
        past = 0 if cache is None or cache[0][0] is None \
            else cache[0][0].shape[2]
        pos = torch.arange(past, past + tokens.shape[1])
        x = self.wte(tokens) + self.wpe(pos)
        for i, block in enumerate(self.h):
            x = block(x, None if cache is None else cache[i])
        return self.ln_f(x)


class Gpt2LMHead(nn.Module):
    """GPT-2 small in GPT2LMHeadModel's layout, the head tied to wte."""

    def __init__(self, seq_len):
        super().__init__()
        self.seq_len = seq_len
        self.transformer = Transformer(GPT2_VOCAB, GPT2_CONTEXT, GPT2_MODEL,
                                       GPT2_LAYERS, GPT2_HEADS)
        self.lm_head = nn.Linear(GPT2_MODEL, GPT2_VOCAB, bias=False)
        self.lm_head.weight = self.transformer.wte.weight

    def logits(self, tokens, cache=None):
        return self.lm_head(self.transformer(tokens, cache))

    def forward(self, x):
        tokens = x.reshape(x.shape[0], -1).long()[:, :self.seq_len]
        return self.logits(tokens)

    def new_cache(self):
        return [[None, None] for _ in self.transformer.h]


def gpt2_loss(model, x):
    tokens = x.reshape(x.shape[0], -1).long()
    logits = model.logits(tokens[:, :model.seq_len])
    return F.cross_entropy(logits.reshape(-1, GPT2_VOCAB),
                           tokens[:, 1:model.seq_len + 1].reshape(-1))


def gpt2_generate(model, x, gen_tokens, on_token=None):
    """Greedy generation with a KV cache; returns the prompt's loss and
    the generated tokens (N, gen_tokens)."""
    tokens = x.reshape(x.shape[0], -1).long()
    cache = model.new_cache()
    logits = model.logits(tokens[:, :model.seq_len], cache)
    loss = F.cross_entropy(logits.reshape(-1, GPT2_VOCAB),
                           tokens[:, 1:model.seq_len + 1].reshape(-1))
    generated = []
    nxt = None
    for i in range(gen_tokens):
        if i > 0:
            logits = model.logits(nxt.unsqueeze(1), cache)
        nxt = logits[:, -1].argmax(-1)
        generated.append(nxt.to("cpu"))
        if on_token is not None:
            on_token(i)
    return loss, torch.stack(generated, 1)


def make_optimizer(name, model):
    if name == "vae":
        return torch.optim.Adam(model.parameters(), lr=1e-3)
    if name == "dqn":
        return torch.optim.RMSprop(model.parameters(), lr=2.5e-4, alpha=0.95,
                                   eps=1e-5)
    if name == "gpt2_small":
        return torch.optim.AdamW(model.parameters(), lr=6e-4,
                                 betas=(0.9, 0.95), weight_decay=0.1)
    raise KeyError(f"no optimizer for {name}")


def reference(name, classes=3, seq_len=128):
    """The reference network of `name`; classes = dqn's actions."""
    if name == "vae":
        return Vae()
    if name == "dqn":
        return Dqn(classes)
    if name == "gpt2_small":
        return Gpt2LMHead(seq_len)
    raise KeyError(f"no reference for {name}")
