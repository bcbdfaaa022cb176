// Statements that a sequence splits into groups, each in launches of its
// own, map each group's own parallel loops: the band the scheduler builds
// over the whole SCoP is parallel along j only (the sums of mean[j] run
// along i in it), but the products C[i][j] are a group of their own,
// parallel along i and j (as PolyBench's covariance). The sums' group maps
// j to x alone (block 32), the products' group i and j (block 32x8).
// Expected values worked out by hand, D[i][j] = j over 6 x 40: mean[j] =
// 6 j, C[i][j] = 36 i j; the sum of C is 36 * 780 * 780 = 21902400, that
// of mean 6 * 780 = 4680.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.mlir | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-block=7,3' -o %t.b73.mlir 2>/dev/null
// RUN: %polyrs-runner --gpu=emulate %t.b73.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
//
// REMARK: group-mapping.mlir:33:3: remark: poly-opt: 3 statements
// REMARK-SAME: 2 parallel mapped to blocks and threads (block 32x8)
// REMARK-SAME: parallel loops mapped per group of statements: 1, 1, 2
// REMARK-SAME: grid over 1 tile loop, block 32,
// REMARK-SAME: grid over 2 tile loops, block 32x8;
// REMARK-SAME: every block and thread loop verified
//
// CHECK: 21902400
// CHECK-NEXT: 4680

func.func private @printI64(i64)
func.func private @printNewline()

func.func @cov(%D: memref<6x40xf64>, %mean: memref<40xf64>, %C: memref<40x40xf64>) {
  %zero = arith.constant 0.0 : f64
  affine.for %j = 0 to 40 {
    affine.store %zero, %mean[%j] : memref<40xf64>
    affine.for %i = 0 to 6 {
      %m = affine.load %mean[%j] : memref<40xf64>
      %d = affine.load %D[%i, %j] : memref<6x40xf64>
      %s = arith.addf %m, %d : f64
      affine.store %s, %mean[%j] : memref<40xf64>
    }
  }
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 40 {
      %a = affine.load %mean[%i] : memref<40xf64>
      %b = affine.load %mean[%j] : memref<40xf64>
      %p = arith.mulf %a, %b : f64
      affine.store %p, %C[%i, %j] : memref<40x40xf64>
    }
  }
  return
}

func.func @print(%x: f64) {
  %i = arith.fptosi %x : f64 to i64
  func.call @printI64(%i) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %D = memref.alloc() : memref<6x40xf64>
  %mean = memref.alloc() : memref<40xf64>
  %C = memref.alloc() : memref<40x40xf64>
  %zero = arith.constant 0.0 : f64
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 40 {
      %ji = arith.index_cast %j : index to i64
      %jf = arith.sitofp %ji : i64 to f64
      affine.store %jf, %D[%i, %j] : memref<6x40xf64>
    }
  }
  func.call @cov(%D, %mean, %C) : (memref<6x40xf64>, memref<40xf64>, memref<40x40xf64>) -> ()
  %tc = affine.for %i = 0 to 40 iter_args(%acc = %zero) -> (f64) {
    %tj = affine.for %j = 0 to 40 iter_args(%acc2 = %acc) -> (f64) {
      %c = affine.load %C[%i, %j] : memref<40x40xf64>
      %n = arith.addf %acc2, %c : f64
      affine.yield %n : f64
    }
    affine.yield %tj : f64
  }
  func.call @print(%tc) : (f64) -> ()
  %tm = affine.for %j = 0 to 40 iter_args(%acc = %zero) -> (f64) {
    %m = affine.load %mean[%j] : memref<40xf64>
    %n = arith.addf %acc, %m : f64
    affine.yield %n : f64
  }
  func.call @print(%tm) : (f64) -> ()
  memref.dealloc %D : memref<6x40xf64>
  memref.dealloc %mean : memref<40xf64>
  memref.dealloc %C : memref<40x40xf64>
  return
}
