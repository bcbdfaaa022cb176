#!/usr/bin/env bash
# PolyBench with symbolic bounds, each kernel marked `noinline` (the JIT
# runner's `main` calls the kernel with constant sizes; inlined, LLVM
# specializes the input with them), timed as the input, as one build's
# poly-opt output and as another's, one after the other per kernel:
#
#   bench/polybench/symbolic-noinline.sh BASE_BIN_DIR [NEW_BIN_DIR] [SIZE] [kernels...]
#
# Prints per kernel: input, BASE and NEW times (µs, medians; 2 threads) and
# whether NEW's output equals the input's (one run each, no timing).
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: $0 BASE_BIN_DIR [NEW_BIN_DIR] [SIZE] [kernels...]}
new=${2:-target/release}
size=${3:-SMALL}
shift $(( $# < 3 ? $# : 3 ))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/polybench/gen.py --size "$size" --bounds symbolic --out "$work" "$@" >/dev/null
runner="$new/polyrs-runner"
for f in "$work"/*.mlir; do
  k=$(basename "$f" .mlir)
  fn=kernel_$(echo "$k" | tr - _)
  sed -E "s/(func.func @$fn\(.*) attributes \{llvm.emit_c_interface\}/\1 attributes {llvm.emit_c_interface, passthrough = [\"noinline\"]}/" "$f" > "$work/$k.in"
  "$base/polyrs-opt" "$work/$k.in" --poly-opt= -o "$work/$k.base" 2>/dev/null
  "$new/polyrs-opt" "$work/$k.in" --poly-opt= -o "$work/$k.new" 2>/dev/null
  line="$k"
  for v in in base new; do
    t=$("$runner" "$work/$k.$v" --time="$fn" --repeat=3 --min-time=0.1 --threads=2 --reuse-memory 2>&1 >/dev/null \
      | sed -n "s/.*time $fn .*median=\([0-9.]*\)s.*/\1/p")
    line="$line $(python3 -c "print('%.0f' % (float('$t') * 1e6))")"
  done
  same=$(cmp -s <("$runner" "$work/$k.in" --threads=2 2>/dev/null) <("$runner" "$work/$k.new" --threads=2 2>/dev/null) && echo same || echo DIFFERS)
  echo "$line $same"
done
