#!/usr/bin/env bash
# The main job, end to end: install the toolchain, build polyrs, detect the
# SCoPs of examples/gemm.mlir with polyrs-opt, run the same file through the
# stock mlir-opt with the polyrs plugin, lower it to the LLVM dialect with the
# upstream passes registered in polyrs-opt, and JIT-run it with mlir-runner.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release
BIN=target/release
LLVM=/usr/lib/llvm-22
echo "== SCoPs (polyrs-opt --poly-detect-scops)"
$BIN/polyrs-opt examples/gemm.mlir --poly-detect-scops -o /dev/null
echo "== The same pass as an mlir-opt-22 plugin"
$LLVM/bin/mlir-opt --load-pass-plugin=$BIN/libpolyrs.so \
  --pass-pipeline='builtin.module(func.func(poly-detect-scops{report-rejected=false}))' \
  examples/gemm.mlir -o /dev/null
echo "== Lower and run (checksum of C)"
$BIN/polyrs-opt examples/gemm.mlir \
  --pass-pipeline='builtin.module(func.func(poly-detect-scops{report-rejected=false}),lower-affine,convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)' \
  2>/dev/null \
  | $LLVM/bin/mlir-runner -e main -entry-point-result=void -O3 \
      -shared-libs=$LLVM/lib/libmlir_c_runner_utils.so,$LLVM/lib/libmlir_runner_utils.so
