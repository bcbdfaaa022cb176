// The pass never changes the IR: output with and without it is identical.
// RUN: %polyrs-opt %s --poly-detect-scops 2>/dev/null > %t.with
// RUN: %polyrs-opt %s > %t.without
// RUN: diff %t.with %t.without
// RUN: %polyrs-opt %s --poly-detect-scops 2>&1 >/dev/null | FileCheck %s

// CHECK: remark: loop nest is not a static control part: 'scf.if' is not affine control flow
// CHECK: remark: static control part: 1 loop nest, depth 2
func.func @mixed(%A: memref<10x10xf64>, %c: i1) {
  affine.for %i = 0 to 10 {
    scf.if %c {
      %a = affine.load %A[%i, 0] : memref<10x10xf64>
      affine.store %a, %A[%i, 1] : memref<10x10xf64>
    }
  }
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      %a = affine.load %A[%i, %j] : memref<10x10xf64>
      affine.store %a, %A[%j, %i] : memref<10x10xf64>
    }
  }
  return
}
