// mlir-opt-style features: --split-input-file, IR dumps after each pass, and
// upstream passes in the same pipeline as ours.
// RUN: %polyrs-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(canonicalize,poly-detect-scops))' --mlir-print-ir-after-all 2>&1 | FileCheck %s

// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK: remark: static control part: 1 loop nest, depth 1
// CHECK: IR Dump After DetectScops (poly-detect-scops)
// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK: remark: static control part: 1 loop nest, depth 2
// CHECK: IR Dump After DetectScops (poly-detect-scops)
// CHECK: // -----
func.func @one(%A: memref<10xf64>) {
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i] : memref<10xf64>
    affine.store %a, %A[%i] : memref<10xf64>
  }
  return
}

// -----

func.func @two(%A: memref<10x10xf64>) {
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      %a = affine.load %A[%i, %j] : memref<10x10xf64>
      affine.store %a, %A[%j, %i] : memref<10x10xf64>
    }
  }
  return
}
