#!/usr/bin/env bash
# data-transport-bench.sh GUEST_DIR DATA_DIR [ROUNDS] [ACCEL]
#
# How fast a vm run's guest reads a data set over each transport the agent
# offers (--vm_data, docs/vm.md): the host's / over virtio-9p, and a
# read-only ext4 image of the data set on a virtio-blk disk (made here with
# mkfs.ext4 -d, as the agent makes it). Boots the guest of
# infra/vm/build-guest-image.sh (GUEST_DIR, e.g. build/vm-guest) once with
# both; in each of ROUNDS rounds (default 3) it drops the guest's page
# cache and reads every file of the data set with tar, over 9p and then
# from the disk. The host's own read of the same files (page cache warm,
# as it is for both guest transports) is the native baseline. Prints one
# line per read and the medians. ACCEL: tcg (default) or kvm.
# Asserts nothing.
set -euo pipefail
GUEST=${1:?usage: data-transport-bench.sh GUEST_DIR DATA_DIR [ROUNDS] [ACCEL]}
DATA=$(cd "${2:?usage: data-transport-bench.sh GUEST_DIR DATA_DIR}" && pwd)
ROUNDS=${3:-3}
ACCEL=${4:-tcg}
WORK=$(mktemp -d /tmp/powersweep-transport.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/mnt"
bytes=$(du -sk "$DATA" | cut -f1)
files=$(find "$DATA" | wc -l)
/usr/sbin/mkfs.ext4 -q -F -t ext4 -d "$DATA" "$WORK/data.ext4" \
  "$((bytes * 11 / 10 + files * 4 + 16384))k"
cat "$WORK/data.ext4" >/dev/null
for r in $(seq "$ROUNDS"); do
  t0=$(date +%s.%N); tar cf - -C "$DATA" . | wc -c >/dev/null; t1=$(date +%s.%N)
  echo "round $r native read_s $(echo "$t1 $t0" | awk '{printf "%.3f", $1-$2}')"
done >"$WORK/native.txt"
cat >"$WORK/run.sh" <<SCRIPT
up() { cut -d' ' -f1 /proc/uptime; }
mount -t ext4 -o ro /dev/vda '$WORK/mnt' || { echo "mounting the disk failed"; exit 1; }
for r in \$(seq $ROUNDS); do
  for side in 9p virtio-blk; do
    dir='$DATA'; [ \$side = virtio-blk ] && dir='$WORK/mnt'
    sync; echo 3 >/proc/sys/vm/drop_caches
    t0=\$(up); tar cf - -C "\$dir" . | wc -c >/dev/null; t1=\$(up)
    echo "round \$r \$side read_s \$(echo "\$t1 \$t0" | awk '{printf "%.3f", \$1-\$2}')"
  done
done
SCRIPT
if [ "$ACCEL" = kvm ]; then accel=(-accel kvm -cpu host); else accel=(-accel tcg,thread=multi -cpu max); fi
timeout 3600 /usr/bin/qemu-system-x86_64 -nodefaults -no-user-config -machine q35 \
  "${accel[@]}" -smp 2 -m 2048 -display none -vga none -no-reboot \
  -kernel "$GUEST/vmlinuz" -initrd "$GUEST/initrd.img" \
  -append "console=ttyS0 quiet loglevel=3 panic=-1 powersweep.run=$WORK/run.sh" \
  -chardev "file,id=console,path=$WORK/console.log" -serial chardev:console \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -drive "file=$WORK/data.ext4,if=virtio,format=raw,readonly=on" \
  -device virtio-serial-pci \
  -chardev "file,id=records,path=$WORK/records" -device virtserialport,chardev=records,name=powersweep.records \
  -chardev "file,id=stderr,path=$WORK/guest.txt" -device virtserialport,chardev=stderr,name=powersweep.stderr \
  -chardev "file,id=exit,path=$WORK/exit" -device virtserialport,chardev=exit,name=powersweep.exit
echo "data set $DATA: $files entries, $bytes KiB; guest: 2 vCPUs, 2 GiB, $ACCEL"
cat "$WORK/native.txt" "$WORK/guest.txt"
[ "$(cat "$WORK/exit" 2>/dev/null)" = 0 ] || { echo "the guest failed: $(tail -1 "$WORK/console.log")" >&2; exit 1; }
for side in native 9p virtio-blk; do
  grep " $side read_s " "$WORK/native.txt" "$WORK/guest.txt" -h | awk '{print $4}' | sort -n |
    awk -v s="$side" '{v[NR]=$1} END {printf "median %-10s %.3f s\n", s, v[int((NR+1)/2)]}'
done
