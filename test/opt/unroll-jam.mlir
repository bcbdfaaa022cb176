#map_tri = affine_map<(d0) -> (d0)>
// Unroll-and-jam: the point loops outside the vector loop run over blocks
// of the factor and their points are unrolled inside it, so that one
// iteration of the innermost loop holds factor^2 statement copies in the
// original order of each accumulation chain (k ascending per C element).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} unroll-jam=2 scalar-replace=false profitability=false' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} unroll-jam=2 noalias=true profitability=false' 2>/dev/null | FileCheck %s --check-prefix=NOALIAS
// RUN: %polyrs-opt %s --poly-opt='%{avx512} unroll-jam=2 profitability=false' 2>&1 | FileCheck %s --check-prefix=TRI
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s --check-prefix=OFF

// CHECK: remark: poly-opt: {{.*}}2 point loops unrolled and jammed by 2; band of 3 loops tiled 32x256x32
// CHECK-LABEL: func.func @gemm
// The vector loop (j) is innermost, its body the four jammed copies
// (i, k), (i, k + 1), (i + 1, k), (i + 1, k + 1), each loading and storing
// C[i][j] in turn.
// CHECK:      affine.for %[[J:arg[0-9]+]] = 0 to 64 {
// CHECK-NEXT:   affine.load %arg0[%[[I:arg[0-9]+]] * 2, %[[K:arg[0-9]+]] * 2]
// CHECK-NEXT:   affine.load %arg1[%[[K]] * 2, %[[J]]]
// CHECK-NEXT:   affine.load %arg2[%[[I]] * 2, %[[J]]]
// CHECK:        affine.store %{{.*}}, %arg2[%[[I]] * 2, %[[J]]]
// CHECK-NEXT:   affine.load %arg0[%[[I]] * 2, %[[K]] * 2 + 1]
// CHECK:        affine.store %{{.*}}, %arg2[%[[I]] * 2, %[[J]]]
// CHECK-NEXT:   affine.load %arg0[%[[I]] * 2 + 1, %[[K]] * 2]
// CHECK:        affine.store %{{.*}}, %arg2[%[[I]] * 2 + 1, %[[J]]]
// CHECK-NEXT:   affine.load %arg0[%[[I]] * 2 + 1, %[[K]] * 2 + 1]
// CHECK:        affine.store %{{.*}}, %arg2[%[[I]] * 2 + 1, %[[J]]]
// CHECK-NEXT: }
func.func @gemm(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<64x64xf64>
        %b = affine.load %B[%k, %j] : memref<64x64xf64>
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}

// noalias: only where the rewritten SCoP is the only user of the memrefs.
// NOALIAS: func.func @gemm(%arg0: memref<64x64xf64> {llvm.noalias}, %arg1: memref<64x64xf64> {llvm.noalias}, %arg2: memref<64x64xf64> {llvm.noalias})
// NOALIAS: func.func @escapes(%arg0: memref<64x64xf64>, %arg1: memref<64x64xf64>)

// A triangular domain: the jammed loops' trip counts depend on the outer
// ones, so the jam is dropped (the vector loop stays innermost).
// TRI: remark: poly-opt: {{.*}}unroll-jam=2 not applied: the jammed loops' trip counts are not constant
func.func private @use(memref<64x64xf64>)
func.func @escapes(%A: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to #map_tri(%j) {
        %a = affine.load %A[%i, %k] : memref<64x64xf64>
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %s = arith.addf %c, %a : f64
        affine.store %s, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  func.call @use(%A) : (memref<64x64xf64>) -> ()
  return
}

// Off by default.
// OFF-NOT: unroll
// OFF-NOT: llvm.noalias
