#!/usr/bin/env bash
# Usage: run.sh KERNEL SIZE
#   Generates bench/polybench KERNEL at SIZE (MINI|SMALL|MEDIUM|LARGE|EXTRALARGE),
#   lowers it with the sequential pipeline and runs it with mlir-runner.
#   Prints the checksum line (printf "%.17g").
# Environment: LLVM_BIN (default /usr/lib/llvm-22/bin), LLVM_LIB (default /usr/lib/llvm-22/lib),
#              WORK (directory for generated files; default: a temporary directory, removed afterwards).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 KERNEL SIZE" >&2
  exit 2
fi
KERNEL=$1
SIZE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
LLVM_LIB=${LLVM_LIB:-/usr/lib/llvm-22/lib}
if [ -n "${WORK:-}" ]; then
  mkdir -p "$WORK"
  OUT=$WORK
else
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
fi
python3 "$HERE/gen.py" --size "$SIZE" --out "$OUT" "$KERNEL"
"$LLVM_BIN/mlir-opt" "$OUT/$KERNEL.mlir" \
  --lower-affine --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
  -o "$OUT/$KERNEL.llvm.mlir"
"$LLVM_BIN/mlir-runner" "$OUT/$KERNEL.llvm.mlir" -e main -entry-point-result=void \
  -shared-libs="$LLVM_LIB/libmlir_c_runner_utils.so.22.1,$LLVM_LIB/libmlir_runner_utils.so.22.1"
