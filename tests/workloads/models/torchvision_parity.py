#!/usr/bin/python3
"""Checks a model built by powersweep-workload against torchvision 0.14.

Usage: /usr/bin/python3 torchvision_parity.py CASE_DIR [CASE_DIR ...]

Each CASE_DIR is what WriteParityCase (workloads/models/parity_case.h)
writes: meta.txt, state/ (state.txt and one .npy per tensor), input.npy,
output.npy. For each case this builds the reference network (torchvision's,
or the studies' LeNet-5 defined below) with the same class count and checks:
  1. the state_dict keys and shapes equal the C++ parameters and buffers;
  2. the parameter counts are equal;
  3. the forward MACs at batch size 1 are equal (Conv2d and Linear
     multiply-accumulates, counted with forward hooks);
  4. with the C++ weights loaded, the eval-mode output on the same input
     agrees: max |diff| <= 1e-5 x max(|reference output|, 1e-3)
     (the same LibTorch runs both sides, so they normally agree exactly);
  5. for inception_v3 (aux_output.npy present), the auxiliary classifier's
     training-mode output on that input agrees within the same tolerance
     (the head runs on batch statistics and has no dropout, so it is
     deterministic).
inception_v3 is torchvision's with aux_logits=True, transform_input=False.
Prints both sides' figures. Exit status: 0 all pass, 1 a check failed,
3 torch/torchvision cannot be imported, 2 bad usage or unreadable case.
"""
import os
import sys

try:
    import numpy as np
    import torch
    import torchvision
    from torch import nn
except ImportError as e:
    print(f"cannot import torch/torchvision/numpy with {sys.executable}: {e}"
          " (install python3-torch and python3-torchvision)")
    sys.exit(3)


class LeNet5(nn.Module):
    """The studies' PyTorch LeNet-5 for 1x28x28 images."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


def reference(name, classes):
    if name == "lenet5":
        return LeNet5(num_classes=classes)
    if name == "inception_v3":
        return torchvision.models.inception_v3(
            num_classes=classes, aux_logits=True, transform_input=False,
            init_weights=True)
    tv = {"alexnet": "alexnet", "mobilenetv3": "mobilenet_v3_large",
          "resnet18": "resnet18", "resnet50": "resnet50",
          "squeezenet1_1": "squeezenet1_1", "vgg11": "vgg11",
          "vgg19": "vgg19"}[name]
    return getattr(torchvision.models, tv)(num_classes=classes)


def agree(label, y_cpp, y_ref):
    scale = float(np.abs(y_ref).max())
    diff = float(np.abs(y_ref - y_cpp).max()) if y_ref.shape == y_cpp.shape \
        else float("inf")
    tol = 1e-5 * max(scale, 1e-3)
    print(f"  {label} {tuple(y_cpp.shape)}  max |diff| {diff:.3g}  "
          f"(output scale {scale:.3g}, tolerance {tol:.3g})")
    return diff <= tol


def count_macs(model, shape):
    total = [0]

    def hook(module, _inputs, output):
        if isinstance(module, nn.Conv2d):
            kh, kw = module.kernel_size
            total[0] += (output.numel() * (module.in_channels // module.groups)
                         * kh * kw)
        else:
            total[0] += output.numel() * module.in_features

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, (nn.Conv2d, nn.Linear))]
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
    aux_path = os.path.join(case_dir, "aux_output.npy")
    aux = np.load(aux_path) if os.path.exists(aux_path) else None
    return meta, state, x, y, aux


def check(case_dir):
    meta, state, x, y_cpp, aux_cpp = read_case(case_dir)
    name, classes = meta["model"], meta["classes"]
    shape = (meta["channels"], meta["input_size"], meta["input_size"])
    torch.manual_seed(0)
    model = reference(name, classes)
    ok = True
    print(f"== {name} {shape[0]}x{shape[1]}x{shape[2]}, {classes} classes")

    ref = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    cpp = {k: tuple(v.shape) for k, v in state.items()}
    missing = sorted(set(ref) - set(cpp))
    extra = sorted(set(cpp) - set(ref))
    wrong = sorted(k for k in set(ref) & set(cpp) if ref[k] != cpp[k])
    same_keys = not (missing or extra or wrong)
    print(f"  state keys        C++ {len(cpp):>13,}  torchvision {len(ref):>13,}"
          f"  {'same names and shapes' if same_keys else 'DIFFER'}")
    for label, keys in (("only in torchvision", missing),
                        ("only in C++", extra), ("shape differs", wrong)):
        for k in keys[:10]:
            print(f"    {label}: {k} {ref.get(k)} vs {cpp.get(k)}")
    ok &= same_keys

    params = sum(p.numel() for p in model.parameters())
    print(f"  parameters        C++ {meta['params']:>13,}  torchvision "
          f"{params:>13,}")
    ok &= params == meta["params"]

    macs = count_macs(model, shape)
    print(f"  forward MACs (b1) C++ {meta['forward_macs']:>13,}  torchvision "
          f"{macs:>13,}")
    ok &= macs == meta["forward_macs"]

    if same_keys:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
        model.eval()
        with torch.no_grad():
            y_ref = model(torch.from_numpy(x)).numpy()
        ok &= agree("output", y_cpp, y_ref)
        if name == "inception_v3":
            if aux_cpp is None:
                print("  aux_output.npy missing")
                ok = False
            else:
                model.train()
                with torch.no_grad():
                    aux_ref = model(torch.from_numpy(x)).aux_logits.numpy()
                ok &= agree("aux output (training mode)", aux_cpp, aux_ref)
    print(f"  {'PASS' if ok else 'FAIL'}")
    return ok


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}")
    try:
        results = [check(d) for d in argv[1:]]
    except (OSError, ValueError, KeyError) as e:
        print(f"cannot read a parity case: {e}")
        return 2
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
