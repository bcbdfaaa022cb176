#!/usr/bin/env bash
# Byte-identity of poly-opt's output on the 30 PolyBench kernels: the proof a
# refactor (or a fix that should not touch them) changes nothing.
#
#   scripts/polybench-identical.sh BASE_BIN_DIR [NEW_BIN_DIR] [SIZE]
#
# Runs both polyrs-opt binaries (NEW defaults to target/release) on every
# kernel at SIZE (default LARGE) under each option set below, and compares
# the IR (stdout) and the remarks (stderr, with the input's path removed).
# Prints one line per differing run and a summary; exits 1 when any differ.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: $0 BASE_BIN_DIR [NEW_BIN_DIR] [SIZE]}
new=${2:-target/release}
size=${3:-LARGE}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/polybench/gen.py --size "$size" --out "$work/in" >/dev/null
# The option sets: CPU presets with AVX2 and AVX-512 sizes, fused
# multiply-adds, and the GPU target with and without shared memory.
sets=(
  "cpu=znver3 threads=2"
  "cpu=haswell threads=2"
  "cpu=skylake-avx512 threads=2"
  "cpu=znver4 threads=2"
  "cpu=znver3 threads=2 contract=true"
  "cpu=znver4 threads=2 contract=true"
  "target=gpu"
  "target=gpu gpu-shared=false"
)
runs=0
diffs=0
for f in "$work"/in/*.mlir; do
  k=$(basename "$f" .mlir)
  for s in "${sets[@]}"; do
    runs=$((runs + 1))
    for side in base new; do
      bin=$base; [ "$side" = new ] && bin=$new
      "$bin/polyrs-opt" "$f" --poly-opt="$s" >"$work/$side.ir" 2>"$work/$side.err" || true
      sed -i "s|$work/in/||g" "$work/$side.err"
    done
    if ! cmp -s "$work/base.ir" "$work/new.ir"; then
      echo "differs (IR): $k [$s]"; diffs=$((diffs + 1))
    elif ! cmp -s "$work/base.err" "$work/new.err"; then
      echo "differs (remarks): $k [$s]"; diffs=$((diffs + 1))
    fi
  done
done
echo "polybench-identical: $runs runs ($size), $diffs differ"
[ "$diffs" = 0 ]
