// RUN: %polyrs-opt %s --poly-detect-scops=min-depth=2 --verify-diagnostics
// RUN: %polyrs-opt %s --pass-pipeline='builtin.module(func.func(poly-detect-scops{min-depth=1}))' 2>&1 | FileCheck %s --check-prefix=ALL

// The 1-deep nest is not reported with min-depth=2; with 1 both are.
// ALL: remark: static control part: 1 loop nest, depth 1
// ALL: remark: static control part: 1 loop nest, depth 2
func.func @depths(%A: memref<10x10xf64>) {
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i, 0] : memref<10x10xf64>
    affine.store %a, %A[%i, 1] : memref<10x10xf64>
  }
  func.call @opaque() : () -> ()
  // expected-remark@+1 {{static control part: 1 loop nest, depth 2, 1 statement, 0 parameters}}
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      %a = affine.load %A[%i, %j] : memref<10x10xf64>
      affine.store %a, %A[%j, %i] : memref<10x10xf64>
    }
  }
  return
}
func.func private @opaque()
