#!/usr/bin/python3
"""Checks vae, dqn, gpt2_small, seq2seq, seq2seq_lstm and memnet built by
powersweep against torch.nn.

Usage: /usr/bin/python3 fathom_reference.py CASE_DIR [CASE_DIR ...]

Each CASE_DIR is what fathom_parity_test.cc writes: meta.txt ("key value"
lines: model, channels, height, width, classes, seq_len, params,
forward_macs), state/ (state.txt and one .npy per tensor, as
ExportModuleState writes them), input.npy and output.npy (the eval-mode
forward pass). The reference networks (workloads/bench/
fathom_reference_models.py, also the benchmark's PyTorch side) are built
from torch.nn modules after the papers (Fathom's autoenc/variational.py
sizes; Mnih et al. 2015; GPT-2 small with HuggingFace GPT2LMHeadModel's
parameter names and layout; seq2seq (GRU), seq2seq_lstm and memnet from
workloads/bench/fathom_text_models.py). For each case this checks:
  1. the state_dict keys and shapes equal the C++ parameters (gpt2_small:
     the tied lm_head.weight is the same tensor as transformer.wte.weight
     and is not a separate C++ parameter);
  2. the parameter counts are equal;
  3. the forward MACs at batch size 1 are equal (Conv2d, Linear and
     GPT-2's Conv1D multiply-accumulates, counted with forward hooks, plus
     what the references' forward passes add to EXTRA_MACS: the GRU and
     LSTM gates' products from their weights' sizes, attention's and memnet's
     matrix products from their operands' shapes);
  4. with the C++ weights loaded, the eval-mode output on the same input
     agrees: max |diff| <= 1e-4 x max(|reference output|, 1e-3).
Exit status: 0 all pass, 1 a check failed, 3 torch cannot be imported,
2 bad usage or unreadable case.
"""
import os
import sys

try:
    import numpy as np
    import torch
    from torch import nn
except ImportError as e:
    print(f"cannot import torch/numpy with {sys.executable}: {e}")
    sys.exit(3)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "workloads", "bench"))
from fathom_reference_models import Conv1D, reference as build  # noqa: E402
from fathom_text_models import EXTRA_MACS, MemNet, Seq2Seq  # noqa: E402


TIED = {"gpt2_small": {"lm_head.weight": "transformer.wte.weight"}}


def reference(meta):
    if meta["model"] in ("seq2seq", "seq2seq_lstm"):
        cell = "lstm" if meta["model"] == "seq2seq_lstm" else "gru"
        return Seq2Seq(meta["classes"], meta["seq_len"], cell)
    if meta["model"] == "memnet":
        return MemNet(meta["classes"], meta["seq_len"])
    return build(meta["model"], meta["classes"], meta["seq_len"])


def count_macs(model, shape):
    total = [0]
    EXTRA_MACS[0] = 0

    def hook(module, inputs, output):
        if isinstance(module, nn.Conv2d):
            kh, kw = module.kernel_size
            total[0] += (output.numel() * (module.in_channels // module.groups)
                         * kh * kw)
        elif isinstance(module, nn.Linear):
            total[0] += output.numel() * module.in_features
        else:  # Conv1D
            total[0] += output.numel() * module.weight.shape[0]

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, (nn.Conv2d, nn.Linear, Conv1D))]
    model.eval()
    with torch.no_grad():
        model(torch.zeros(1, *shape))
    for h in handles:
        h.remove()
    return total[0] + EXTRA_MACS[0]


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
    name = meta["model"]
    shape = (meta["channels"], meta["height"], meta["width"])
    torch.manual_seed(0)
    model = reference(meta)
    ok = True
    print(f"== {name} {shape[0]}x{shape[1]}x{shape[2]}, {meta['classes']} "
          "outputs")
    tied = TIED.get(name, {})
    ref = {k: tuple(v.shape) for k, v in model.state_dict().items()
           if k not in tied}
    cpp = {k: tuple(v.shape) for k, v in state.items()}
    missing = sorted(set(ref) - set(cpp))
    extra = sorted(set(cpp) - set(ref))
    wrong = sorted(k for k in set(ref) & set(cpp) if ref[k] != cpp[k])
    same_keys = not (missing or extra or wrong)
    print(f"  state keys        C++ {len(cpp):>13,}  reference {len(ref):>13,}"
          f"  {'same names and shapes' if same_keys else 'DIFFER'}"
          + (f" (tied, not separate: {', '.join(tied)})" if tied else ""))
    for label, keys in (("only in the reference", missing),
                        ("only in C++", extra), ("shape differs", wrong)):
        for k in keys[:10]:
            print(f"    {label}: {k} {ref.get(k)} vs {cpp.get(k)}")
    ok &= same_keys

    params = sum(p.numel() for p in model.parameters())
    print(f"  parameters        C++ {meta['params']:>13,}  reference "
          f"{params:>13,}")
    ok &= params == meta["params"]

    macs = count_macs(model, shape)
    print(f"  forward MACs (b1) C++ {meta['forward_macs']:>13,}  reference "
          f"{macs:>13,}")
    ok &= macs == meta["forward_macs"]

    if same_keys:
        loaded = {k: torch.from_numpy(v) for k, v in state.items()}
        for alias, source in tied.items():
            loaded[alias] = loaded[source]
        model.load_state_dict(loaded)
        model.eval()
        with torch.no_grad():
            y_ref = model(torch.from_numpy(x)).numpy()
        scale = float(np.abs(y_ref).max())
        diff = float(np.abs(y_ref - y_cpp).max()) \
            if y_ref.shape == y_cpp.shape else float("inf")
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
