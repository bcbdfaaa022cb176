#!/usr/bin/env bash
# Generate, parse (mlir-opt), lower and run every kernel at each size in $SIZES
# (default: MINI SMALL) and check that a finite checksum is printed.
# Usage: check_all.sh [kernel...]     Exit status: 0 iff all kernels passed.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
SIZES=${SIZES:-"MINI SMALL"}
if [ $# -gt 0 ]; then
  KERNELS="$*"
else
  KERNELS=$(python3 -c "import sys; sys.path.insert(0, '$HERE'); import kernels; print(' '.join(kernels.ORDER))")
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
for s in $SIZES; do
  for k in $KERNELS; do
    if ! python3 "$HERE/gen.py" --size "$s" --out "$TMP/$s" "$k" 2>"$TMP/err"; then
      printf '%-16s %-6s GEN ERROR\n' "$k" "$s"; cat "$TMP/err"; fail=1; continue
    fi
    if ! "$LLVM_BIN/mlir-opt" "$TMP/$s/$k.mlir" > /dev/null 2>"$TMP/err"; then
      printf '%-16s %-6s PARSE ERROR\n' "$k" "$s"; head -20 "$TMP/err"; fail=1; continue
    fi
    out=$(WORK="$TMP/$s.run" "$HERE/run.sh" "$k" "$s" 2>"$TMP/err")
    if [ $? -ne 0 ]; then
      printf '%-16s %-6s RUN ERROR\n' "$k" "$s"; head -20 "$TMP/err"; fail=1; continue
    fi
    if python3 -c "import math,sys; v=float(sys.argv[1]); sys.exit(0 if math.isfinite(v) else 1)" "$out"; then
      printf '%-16s %-6s OK  %s\n' "$k" "$s" "$out"
    else
      printf '%-16s %-6s NOT FINITE  %s\n' "$k" "$s" "$out"; fail=1
    fi
  done
done
exit $fail
