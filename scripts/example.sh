#!/usr/bin/env bash
# The main job, end to end, on examples/gemm.mlir: install the toolchain,
# build polyrs, find the SCoPs, print the Pluto-style schedule, run the full
# transformation (poly-opt: schedule, tile, parallelize, re-check, generate)
# with polyrs-opt and with the stock mlir-opt through the plugin, then JIT-run
# the original and the transformed program on 2 OpenMP threads: the checksums
# must be identical, and the kernel times are printed side by side; finally
# PolyBench's gemm (LARGE) beside the system's OpenBLAS in one run. The
# transformed kernel is written to example-out/gemm.opt.mlir.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release
BIN=target/release
LLVM=/usr/lib/llvm-22
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
KEEP=example-out
mkdir -p "$KEEP"

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "== Machine: ${CPU:-unknown CPU}, $(nproc) cores"

echo "== SCoPs (polyrs-opt --poly-detect-scops)"
$BIN/polyrs-opt examples/gemm.mlir --poly-detect-scops='report-rejected=false' -o /dev/null

echo "== Schedule of the kernel (poly-print-schedule)"
$BIN/polyrs-opt examples/gemm.mlir --mlir-disable-threading -o /dev/null \
  --pass-pipeline='builtin.module(func.func(poly-print-schedule{stats=true}))' 2>&1 \
  | sed -n '/schedule @kernel_gemm/,/verified/p'

echo "== poly-opt: the transformed kernel (sizes from the target the remark names)"
$BIN/polyrs-opt examples/gemm.mlir --poly-opt -o "$KEEP/gemm.opt.mlir" 2>&1 | grep 'remark: poly-opt' || true
cp "$KEEP/gemm.opt.mlir" "$OUT/gemm.opt.mlir"
echo "written to $KEEP/gemm.opt.mlir ($(wc -l < "$KEEP/gemm.opt.mlir") lines); its loops:"
sed -n '/func.func @kernel_gemm/,/^  }/p' "$KEEP/gemm.opt.mlir" \
  | grep -E '^ *(affine\.for|affine\.parallel|affine\.if)' | sed 's/ {$//' | head -12

echo "== The same pass in the stock mlir-opt-22, loaded as a plugin"
$LLVM/bin/mlir-opt --load-pass-plugin=$BIN/libpolyrs.so \
  --pass-pipeline='builtin.module(func.func(poly-opt))' \
  examples/gemm.mlir -o "$OUT/gemm.plugin.mlir" 2>&1 | grep -c 'remark: poly-opt' \
  | sed 's/^/remarks from the plugin: /'

echo "== Run the original and the transformed program (2 threads)"
$BIN/polyrs-runner examples/gemm.mlir --threads=2 --time=kernel_gemm --repeat=3 \
  > "$OUT/before.txt" 2> "$OUT/before.time"
$BIN/polyrs-runner "$OUT/gemm.opt.mlir" --threads=2 --time=kernel_gemm --repeat=3 \
  > "$OUT/after.txt" 2> "$OUT/after.time"
$BIN/polyrs-runner "$OUT/gemm.plugin.mlir" --threads=2 > "$OUT/plugin.txt"
echo "checksum before:        $(head -1 "$OUT/before.txt")"
echo "checksum after poly-opt: $(head -1 "$OUT/after.txt")"
echo "original kernel:  $(tail -1 "$OUT/before.time")"
echo "poly-opt kernel:  $(tail -1 "$OUT/after.time")"
# Each timed run prints main's checksum once per repetition; compare them all.
if [ "$(sort -u "$OUT/before.txt")" != "$(sort -u "$OUT/after.txt")" ] \
   || [ "$(sort -u "$OUT/before.txt")" != "$(sort -u "$OUT/plugin.txt")" ]; then
  echo "example: the transformed program printed a different checksum" >&2
  exit 1
fi
echo "example: identical results"

echo "== PolyBench gemm (LARGE, 2 threads) beside OpenBLAS, one run (bench/bench.py)"
python3 bench/bench.py --size LARGE --runs 3 --procs 1 --pipelines baseline,polyrs,polyrs-fma \
  --out "$OUT/bench" gemm | grep -v '^wrote'
grep -E '^(gemm beside BLAS|polyrs[a-z-]*: )' "$OUT/bench.md" | sed 's/^/  /'

