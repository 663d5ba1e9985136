#!/usr/bin/python3
"""Writes the initramfs of powersweep's VM guest (a gzip'd newc cpio).

make_initrd.py --modules LIB_MODULES_DIR --busybox BIN --init SCRIPT
               --out FILE MODULE...

Holds /init (SCRIPT), /bin/busybox, /dev/console and the named kernel
modules with every module they depend on (read from each .ko's .modinfo
"depends=" field, as depmod does), under /modules, in load order in
/modules/order. Prints the modules it took, one per line.
"""
import argparse
import gzip
import os
import re
import sys


def module_files(root):
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".ko"):
                files[n[:-3].replace("-", "_")] = os.path.join(d, n)
    return files


def depends(path):
    data = open(path, "rb").read()
    m = re.search(rb"(?:^|\0)depends=([^\0]*)\0", data)
    if not m or not m.group(1):
        return []
    return [d.decode().replace("-", "_") for d in m.group(1).split(b",") if d]


def load_order(wanted, files):
    order, seen = [], set()

    def visit(name, chain):
        if name in seen:
            return
        if name not in files:
            sys.exit(f"make_initrd: module {name} (needed by "
                     f"{' <- '.join(chain) or 'the guest'}) is not in the kernel package")
        seen.add(name)
        for d in depends(files[name]):
            visit(d, [name] + chain)
        order.append(name)

    for w in wanted:
        visit(w.replace("-", "_"), [])
    return order


class Cpio:
    def __init__(self):
        self.parts, self.ino = [], 1

    def entry(self, name, mode, data=b"", rdev=(0, 0)):
        head = "070701" + "".join(f"{v:08x}" for v in (
            self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
            len(name) + 1, 0))
        self.ino += 1
        rec = head.encode() + name.encode() + b"\0"
        rec += b"\0" * (-len(rec) % 4) + data
        rec += b"\0" * (-len(rec) % 4)
        self.parts.append(rec)

    def directory(self, name):
        self.entry(name, 0o040755)

    def file(self, name, data, mode=0o644):
        self.entry(name, 0o100000 | mode, data)

    def chardev(self, name, major, minor):
        self.entry(name, 0o020600, rdev=(major, minor))

    def bytes(self):
        self.entry("TRAILER!!!", 0)
        out = b"".join(self.parts)
        return out + b"\0" * (-len(out) % 512)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--modules", required=True)
    p.add_argument("--busybox", required=True)
    p.add_argument("--init", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("module", nargs="+")
    a = p.parse_args()
    files = module_files(a.modules)
    order = load_order(a.module, files)
    c = Cpio()
    for d in ("bin", "dev", "proc", "sys", "host", "modules"):
        c.directory(d)
    c.chardev("dev/console", 5, 1)
    c.file("init", open(a.init, "rb").read(), 0o755)
    c.file("bin/busybox", open(a.busybox, "rb").read(), 0o755)
    for m in order:
        c.file(f"modules/{m}.ko", open(files[m], "rb").read())
    c.file("modules/order", "".join(f"{m}.ko\n" for m in order).encode())
    with open(a.out, "wb") as f:
        f.write(gzip.compress(c.bytes(), compresslevel=6))
    print("\n".join(order))


if __name__ == "__main__":
    main()
