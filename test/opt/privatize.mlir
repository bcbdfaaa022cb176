// Privatization: a temporary that every (i, j) iteration re-initializes is
// expanded per iteration (a buffer of 40x30x1), which frees the i and j
// loops to run in parallel; the last iteration's value is copied back and
// the buffer freed. A running sum (no re-initialization) is not expanded.
// The results are compared bit for bit in semantics.mlir.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false privatize=false' 2>&1 | FileCheck %s --check-prefix=OFF

// CHECK: remark: poly-opt: {{.*}}temporary arg3 expanded per iteration (privatized)
// CHECK-NOT: privatized
// CHECK-LABEL: func.func @privatized
// CHECK:       %[[BUF:.*]] = memref.alloc() : memref<40x30x1xf64>
// CHECK:       affine.parallel
// CHECK:       affine.store %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}}, 0] : memref<40x30x1xf64>
// CHECK:       affine.for %[[C:.*]] = 0 to 1 {
// CHECK-NEXT:    %[[V:.*]] = affine.load %[[BUF]][39, 29, %[[C]]] : memref<40x30x1xf64>
// CHECK-NEXT:    affine.store %[[V]], %arg3[%[[C]]] : memref<1xf64>
// CHECK-NEXT:  }
// CHECK-NEXT:  memref.dealloc %[[BUF]] : memref<40x30x1xf64>
// CHECK-NEXT:  return
// CHECK-LABEL: func.func @carried
// CHECK-NOT:   memref.alloc
// CHECK:       return

// OFF-NOT: expanded per iteration
// OFF-NOT: memref.alloc

func.func @privatized(%A: memref<40x30xf64>, %B: memref<30x30xf64>, %C: memref<40x30xf64>, %T: memref<1xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 30 {
      affine.store %z, %T[0] : memref<1xf64>
      affine.for %k = 0 to affine_map<(d0) -> (d0)>(%j) {
        %a = affine.load %A[%i, %k] : memref<40x30xf64>
        %b = affine.load %B[%k, %j] : memref<30x30xf64>
        %t = affine.load %T[0] : memref<1xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %t, %p : f64
        affine.store %s, %T[0] : memref<1xf64>
      }
      %t2 = affine.load %T[0] : memref<1xf64>
      %c = affine.load %C[%i, %j] : memref<40x30xf64>
      %r = arith.addf %t2, %c : f64
      affine.store %r, %C[%i, %j] : memref<40x30xf64>
    }
  }
  return
}

func.func @carried(%A: memref<40x30xf64>, %B: memref<40x30xf64>, %T: memref<1xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 30 {
      %t = affine.load %T[0] : memref<1xf64>
      %a = affine.load %A[%i, %j] : memref<40x30xf64>
      %s = arith.addf %t, %a : f64
      affine.store %s, %T[0] : memref<1xf64>
      %t2 = affine.load %T[0] : memref<1xf64>
      affine.store %t2, %B[%i, %j] : memref<40x30xf64>
    }
  }
  return
}
