#!/usr/bin/python3
"""Checks deepspeech2 built by powersweep against a torch.nn reference.

Usage: /usr/bin/python3 speech_reference.py CASE_DIR [CASE_DIR ...]

Each CASE_DIR is what speech_parity_test.cc writes, in the layout of
fathom_reference.py's cases: meta.txt ("key value" lines: model, channels,
height, width, classes, seq_len, params, forward_macs), state/ (as
ExportModuleState writes it), input.npy (samples of the speech layout:
frames rows of log-mel bands and the transcript row) and output.npy (the
eval-mode logits), plus loss.txt (the C++ eval-mode CTC loss on the input).
The reference (workloads/bench/speech_reference_models.py) is Deep Speech
2's shape at powersweep's edge size, built from torch.nn modules (Conv2d,
BatchNorm2d, Hardtanh, GRU, Linear) after the paper; its CTC loss is torch.nn.functional.ctc_loss on the
lengths of the transcript row. For each case this checks:
  1. the state_dict keys and shapes equal the C++ parameters and buffers;
  2. the parameter counts are equal;
  3. the forward MACs at batch size 1 are equal (Conv2d and Linear with
     forward hooks, and each GRU layer's 3 x hidden x (input + hidden) per
     output frame and direction);
  4. with the C++ weights loaded, the eval-mode logits agree:
     max |diff| <= 1e-4 x max(|reference output|, 1e-3), and so does the
     CTC loss (relative 1e-4).
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
from speech_reference_models import DeepSpeech2  # noqa: E402


def count_macs(model, shape):
    total = [0]

    def hook(module, inputs, output):
        if isinstance(module, nn.Conv2d):
            kh, kw = module.kernel_size
            total[0] += (output.numel() * (module.in_channels // module.groups)
                         * kh * kw)
        elif isinstance(module, nn.Linear):
            total[0] += output.numel() * module.in_features
        else:  # GRU: per output frame, direction and layer
            n, t = output[0].shape[0], output[0].shape[1]
            h = module.hidden_size
            for layer in range(module.num_layers):
                i = module.input_size if layer == 0 else 2 * h
                total[0] += n * t * 2 * 3 * h * (i + h)

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, (nn.Conv2d, nn.Linear, nn.GRU))]
    model.eval()
    with torch.no_grad():
        model(torch.zeros(1, *shape))
    for h in handles:
        h.remove()
    return total[0]


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
    with open(os.path.join(case_dir, "loss.txt")) as f:
        loss = float(f.read())
    return meta, state, x, y, loss


def check(case_dir):
    meta, state, x, y_cpp, loss_cpp = read_case(case_dir)
    shape = (meta["channels"], meta["height"], meta["width"])
    torch.manual_seed(0)
    model = DeepSpeech2(meta["seq_len"], bands=shape[2],
                        classes=meta["classes"])
    ok = True
    print(f"== {meta['model']} {shape[0]}x{shape[1]}x{shape[2]} "
          f"({meta['seq_len']} frames), {meta['classes']} classes")
    ref = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    cpp = {k: tuple(v.shape) for k, v in state.items()}
    missing = sorted(set(ref) - set(cpp))
    extra = sorted(set(cpp) - set(ref))
    wrong = sorted(k for k in set(ref) & set(cpp) if ref[k] != cpp[k])
    same_keys = not (missing or extra or wrong)
    print(f"  state keys        C++ {len(cpp):>13,}  reference {len(ref):>13,}"
          f"  {'same names and shapes' if same_keys else 'DIFFER'}")
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
        model.load_state_dict({k: torch.from_numpy(v)
                               for k, v in state.items()})
        model.eval()
        with torch.no_grad():
            xt = torch.from_numpy(x)
            y_ref = model(xt).numpy()
            loss_ref = float(model.ctc(xt))
        scale = float(np.abs(y_ref).max())
        diff = float(np.abs(y_ref - y_cpp).max()) \
            if y_ref.shape == y_cpp.shape else float("inf")
        tol = 1e-4 * max(scale, 1e-3)
        print(f"  output {tuple(y_cpp.shape)}  max |diff| {diff:.3g}  "
              f"(output scale {scale:.3g}, tolerance {tol:.3g})")
        ok &= diff <= tol
        rel = abs(loss_ref - loss_cpp) / max(abs(loss_ref), 1e-6)
        print(f"  CTC loss          C++ {loss_cpp:.6f}  reference "
              f"{loss_ref:.6f}  (relative diff {rel:.2g})")
        ok &= rel <= 1e-4
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
