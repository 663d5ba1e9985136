#!/usr/bin/python3
"""Checks a sequence model built by powersweep-workload against a PyTorch
reference built here from torch.nn modules.

Usage: /usr/bin/python3 text_parity.py CASE_DIR [CASE_DIR ...]

Each CASE_DIR is what WriteParityCase (workloads/models/parity_case.h)
writes for lstm_lm or mobilebert. The references (workloads/bench/
text_reference_models.py):
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
import os
import sys

try:
    import numpy as np
    import torch
    from torch import nn
except ImportError as e:
    print(f"cannot import torch/numpy with {sys.executable}: {e}"
          " (install python3-torch)")
    sys.exit(3)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "workloads", "bench"))
from text_reference_models import (  # noqa: E402
    MACS, MobileBertForMaskedLM, reference)

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
