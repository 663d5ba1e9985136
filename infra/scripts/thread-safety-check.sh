#!/usr/bin/env bash
# thread-safety-check.sh [BUILD_DIR]: Clang's -Wthread-safety analysis of
# every C++ source of common/, storage/, agent/, controller/ and tests/
# (syntax only: no objects are written), using the include paths of the
# build's compile_commands.json. The annotations (ABSL_GUARDED_BY,
# ABSL_EXCLUSIVE_LOCKS_REQUIRED, ...) are checked by Clang only; GCC, which
# builds the project, ignores them. Prints each warning; exits 1 if any.
# Only a source that names a mutex or an annotation, itself or in a project
# header it includes, can draw a warning (touching a guarded member, calling
# a function that needs a lock, or locking): the others are skipped, which
# takes the check from 13 to about 4 minutes on 2 cores.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
CLANG=${CLANG:-clang++}
command -v "$CLANG" >/dev/null || { echo "thread-safety-check: $CLANG not found (apt-get install clang)" >&2; exit 2; }
[ -f "$BUILD/compile_commands.json" ] || { echo "thread-safety-check: no $BUILD/compile_commands.json (configure the build first)" >&2; exit 2; }
LIST=$(mktemp)
OUT=$(mktemp -d)
trap 'rm -rf "$LIST" "$OUT"' EXIT
# One line per source: the file, then its -I/-isystem/-D flags.
/usr/bin/python3 - "$BUILD/compile_commands.json" "$ROOT" >"$LIST" <<'PY'
import json, os, re, shlex, sys
entries = json.load(open(sys.argv[1]))
root = sys.argv[2]
dirs = ("common/", "storage/", "agent/", "controller/", "tests/")
LOCKING = re.compile(r"Mutex|GUARDED_BY|LOCKS_REQUIRED|LOCKS_EXCLUDED|"
                     r"ABSL_(REQUIRES|EXCLUSIVE|SHARED|ACQUIRE|RELEASE|"
                     r"NO_THREAD_SAFETY|ASSERT_)")
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)
names_locking = {}
def locking(path):
    if path not in names_locking:
        try:
            names_locking[path] = bool(LOCKING.search(open(path).read()))
        except OSError:
            names_locking[path] = False
    return names_locking[path]
def may_warn(f):
    if locking(f):
        return True
    return any(locking(os.path.join(root, h))
               for h in INCLUDE.findall(open(f).read()))
seen = set()
skipped = 0
for e in entries:
    f = e["file"]
    rel = f[len(root) + 1:] if f.startswith(root + "/") else None
    if rel is None or not rel.startswith(dirs) or f in seen:
        continue
    seen.add(f)
    if not may_warn(f):
        skipped += 1
        continue
    args = shlex.split(e["command"])
    keep, i = [], 1
    while i < len(args):
        a = args[i]
        if a in ("-I", "-isystem", "-D"):
            keep += [a, args[i + 1]]; i += 2; continue
        if a.startswith(("-I", "-D", "-std=")) or a == "-pthread":
            keep.append(a)
        i += 1
    print(shlex.join([f] + keep))
print(f"thread-safety-check: {skipped} sources name no lock and are skipped",
      file=sys.stderr)
PY
echo "thread-safety-check: $(wc -l <"$LIST") sources with $($CLANG --version | head -1)"
check() {
  local file=$1; shift
  "$CLANG" -fsyntax-only -Wno-everything -Wthread-safety "$@" "$file" 2>&1 | grep -E "warning:|error:" || true
}
export -f check; export CLANG
xargs -P "$(nproc)" -L 1 bash -c 'check "$@"' _ <"$LIST" | sort -u >"$OUT/found" || true
if [ -s "$OUT/found" ]; then
  cat "$OUT/found"
  echo "thread-safety-check: $(wc -l <"$OUT/found") problems" >&2
  exit 1
fi
echo "thread-safety-check: no problems"
