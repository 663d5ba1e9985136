#!/usr/bin/env bash
# thread-safety-check.sh [BUILD_DIR]: Clang's -Wthread-safety analysis of
# every C++ source of common/, storage/, agent/, controller/ and tests/
# (syntax only: no objects are written), using the include paths of the
# build's compile_commands.json. The annotations (ABSL_GUARDED_BY,
# ABSL_EXCLUSIVE_LOCKS_REQUIRED, ...) are checked by Clang only; GCC, which
# builds the project, ignores them. Prints each warning; exits 1 if any.
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
import json, shlex, sys
entries = json.load(open(sys.argv[1]))
root = sys.argv[2]
dirs = ("common/", "storage/", "agent/", "controller/", "tests/")
seen = set()
for e in entries:
    f = e["file"]
    rel = f[len(root) + 1:] if f.startswith(root + "/") else None
    if rel is None or not rel.startswith(dirs) or f in seen:
        continue
    seen.add(f)
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
