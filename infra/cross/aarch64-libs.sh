# Sourced by build-agent-image.sh and bundle-agent.sh.
#
# aarch64_root BUILD_DIR: where the build's arm64 libraries are: its sysroot
#   (POWERSWEEP_SYSROOT in its CMakeCache), else / (multiarch).
# aarch64_libs BIN ROOT: prints the absolute path (as seen under ROOT) of every
#   shared library the aarch64 executable BIN loads, the dynamic loader
#   included, one per line. It runs the aarch64 loader's `--list` under
#   qemu-aarch64-static ($QEMU), so no aarch64 machine and no binfmt
#   registration is needed. Returns 1 with a message on stderr when the
#   loader fails or a library is not found (the callers use pipefail).
AARCH64_LOADER=/lib/ld-linux-aarch64.so.1

aarch64_root() {
  local r
  r=$(sed -n 's/^POWERSWEEP_SYSROOT:[A-Z]*=//p' "$1/CMakeCache.txt" 2>/dev/null || true)
  echo "${r:-/}"
}

aarch64_libs() {
  local bin=$1 root=$2 list
  if [ ! -e "$root$AARCH64_LOADER" ]; then
    echo "no aarch64 loader $root$AARCH64_LOADER (install libc6:arm64)" >&2
    return 1
  fi
  if ! list=$("${QEMU:-qemu-aarch64-static}" -L "$root" "$root$AARCH64_LOADER" --list "$bin" 2>&1); then
    echo "the aarch64 loader could not list $bin's libraries: $list" >&2
    return 1
  fi
  if grep -q "not found" <<<"$list"; then
    echo "$bin needs libraries $root does not have: $(grep 'not found' <<<"$list" | tr -s ' \t' ' ')" >&2
    return 1
  fi
  # "libx.so.N => /path (0x...)" and "/lib/ld-linux-aarch64.so.1 (0x...)".
  # qemu -L falls back to this machine's files for a path the root lacks:
  # the loader may report /lib/aarch64-linux-gnu/x (found on this merged-/usr
  # machine) for a sysroot that has it only under /usr/lib. Print the path
  # the file has under ROOT.
  local lib
  awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$list" |
    sed 's|^//*|/|' | sort -u | while read -r lib; do
      # The loader names itself by the path it was started with, $root$AARCH64_LOADER.
      if [ "$root" != / ] && [[ "$lib" == "$root"/* ]]; then lib=${lib#"$root"}; fi
      if [ -e "$root$lib" ]; then
        echo "$lib"
      elif [ -e "$root/usr$lib" ]; then
        echo "/usr$lib"
      else
        echo "$lib is not under $root" >&2
        return 1
      fi
    done | sort -u
}

# aarch64_glibc_needed FILE...: the newest GLIBC_x.y symbol version the files
# import (what the C library they run with must provide).
aarch64_glibc_needed() {
  local f
  for f in "$@"; do
    aarch64-linux-gnu-objdump -T "$f" 2>/dev/null | awk '/\*UND\*/' | grep -o 'GLIBC_2\.[0-9]*' || true
  done | sort -uV | tail -1
}
