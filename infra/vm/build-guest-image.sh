#!/usr/bin/env bash
# build-guest-image.sh OUT_DIR: the guest of powersweep's `vm` runtime,
# built offline from Debian packages only:
#   OUT_DIR/vmlinuz     Debian's generic kernel (linux-image-amd64's current
#                       version, fetched with `apt-get download`, never
#                       installed on this machine)
#   OUT_DIR/initrd.img  busybox (busybox-static), the virtio, 9p,
#                       virtio-serial, overlay (for Docker in the guest:
#                       container_in_vm runs), virtio-blk and ext4 (the
#                       runs' data disks) modules of that kernel, and
#                       infra/vm/guest-init as /init
#   OUT_DIR/GUEST       what went in (kernel package, busybox, modules)
# The guest has no root file system of its own: /init mounts the host's /
# read-only over virtio-9p and runs the workload there, so a `vm` run uses
# the very powersweep-workload and LibTorch files a native run uses
# (docs/vm.md). Idempotent: an OUT_DIR built from the same kernel package,
# busybox and init is left as it is.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: build-guest-image.sh OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ "$(dpkg --print-architecture)" != amd64 ]; then
  echo "build-guest-image: only amd64 hosts are supported (this is $(dpkg --print-architecture))" >&2
  exit 2
fi
BUSYBOX=/bin/busybox
# grep reads the whole list: with -q it would stop at the match and, under
# pipefail, busybox's SIGPIPE would fail the check now and then.
[ -x "$BUSYBOX" ] && "$BUSYBOX" --list | grep -x insmod >/dev/null || {
  echo "build-guest-image: $BUSYBOX with insmod not found (apt-get install busybox-static)" >&2; exit 2; }
PKG=$(apt-cache depends linux-image-amd64 2>/dev/null |
      awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$PKG" ] || { echo "build-guest-image: apt knows no linux-image-amd64 (run apt-get update)" >&2; exit 2; }
VERSION=$(apt-cache policy "$PKG" | awk '/Candidate:/ {print $2}')
MODULES="9p 9pnet_virtio virtio_pci virtio_console overlay virtio_blk crc32c_generic ext4"
STAMP="kernel $PKG $VERSION; busybox $(sha256sum "$BUSYBOX" | cut -c1-16); init $(sha256sum "$ROOT/infra/vm/guest-init" | cut -c1-16); modules $MODULES"
if [ -f "$OUT/GUEST" ] && [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/initrd.img" ] &&
   [ "$(head -1 "$OUT/GUEST")" = "$STAMP" ]; then
  echo "build-guest-image: $OUT is up to date ($PKG $VERSION)"
  exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "build-guest-image: fetching $PKG $VERSION"
(cd "$WORK" && chmod 777 . && apt-get download -q "$PKG=$VERSION" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
DEB=$(ls "$WORK"/*.deb 2>/dev/null | head -1)
[ -n "$DEB" ] || { echo "build-guest-image: apt-get download $PKG failed" >&2; exit 1; }
dpkg-deb -x "$DEB" "$WORK/kernel"
KVER=$(ls "$WORK/kernel/lib/modules" | head -1)
mkdir -p "$WORK/initrd"
/usr/bin/python3 "$ROOT/infra/vm/make_initrd.py" \
  --modules "$WORK/kernel/lib/modules/$KVER" --busybox "$BUSYBOX" \
  --init "$ROOT/infra/vm/guest-init" --out "$WORK/initrd.img" \
  $MODULES >"$WORK/modules.txt"
cp "$WORK/kernel/boot/vmlinuz-$KVER" "$OUT/vmlinuz.new"
mv "$OUT/vmlinuz.new" "$OUT/vmlinuz"
mv "$WORK/initrd.img" "$OUT/initrd.img"
{ echo "$STAMP"; echo "kernel release $KVER"; echo "modules: $(tr '\n' ' ' <"$WORK/modules.txt")"; } >"$OUT/GUEST"
echo "build-guest-image: $OUT: kernel $KVER, initrd $(du -k "$OUT/initrd.img" | cut -f1) KiB"
