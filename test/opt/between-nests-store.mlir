// A store between two loop nests (issue 67, reduced from MLIR's own
// loop-fusion test @should_not_fuse_since_top_level_non_affine_users):
// the first nest reads A[5][7] before the store changes it, the second
// after. poly-opt used to emit the store twice, once above the first nest
// (the top-level operations all moved in front of the new code) and once
// where the schedule put it. It must run once, between the nests, and the
// program must compute what it computed before under every option set of
// the fuzzer's rotation (the default one included: the arrays are big
// enough for the transformation to pay).
//
// RUN: %fuzz file %s --bin-dir %bin_dir | FileCheck %s
// CHECK: defaults: ok
// CHECK-NEXT: t1: ok
// CHECK-NEXT: t3: ok
// CHECK-NEXT: t7-fusemax: ok
// CHECK-NEXT: fuseno: ok
// CHECK-NEXT: nested: ok
// CHECK-NEXT: uj2-t8: ok
// CHECK-NEXT: l2: ok
// CHECK-NEXT: l2-t2-nested: ok
// CHECK-NEXT: rt35-t15: ok
// CHECK-NEXT: threads3: ok
// CHECK-NEXT: nosplit-nopriv: ok
// CHECK-NEXT: nowave: ok
// CHECK-NEXT: notile: ok
// CHECK-NEXT: coef2: ok
// CHECK-NEXT: plain-emit: ok
// CHECK-NEXT: uj3-fusemax: ok
// CHECK-NEXT: profitable: ok
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @f(
// IR-NOT: [5, 7]
// IR: affine.parallel
// IR: affine.store %cst, %arg0[5, 7]
// IR-NOT: [5, 7]
// IR: affine.parallel
// IR-NOT: [5, 7]
// IR: return

func.func private @printI64(i64)
func.func private @printNewline()

func.func @f(%A: memref<1024x1024xf64>, %C: memref<1024x1024xf64>, %B: memref<1024x1024xf64>) {
  %two = arith.constant 2.0 : f64
  affine.for %i = 0 to 1024 {
    affine.for %j = 0 to 1024 {
      %a = affine.load %A[%i, %j] : memref<1024x1024xf64>
      %m = arith.mulf %a, %two : f64
      affine.store %m, %C[%i, %j] : memref<1024x1024xf64>
    }
  }
  affine.store %two, %A[5, 7] : memref<1024x1024xf64>
  affine.for %i = 0 to 1024 {
    affine.for %j = 0 to 1024 {
      %a = affine.load %A[%i, %j] : memref<1024x1024xf64>
      %c = affine.load %C[%j, %i] : memref<1024x1024xf64>
      %s = arith.addf %a, %c : f64
      affine.store %s, %B[%i, %j] : memref<1024x1024xf64>
    }
  }
  return
}

func.func @fill(%M: memref<1024x1024xf64>, %seed: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  %p = arith.constant 997 : i64
  %f = arith.constant 997.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i64
      %jj = arith.index_cast %j : index to i64
      %a = arith.muli %ii, %p : i64
      %b = arith.addi %a, %jj : i64
      %c = arith.addi %b, %seed : i64
      %r = arith.remui %c, %p : i64
      %x = arith.sitofp %r : i64 to f64
      %y = arith.divf %x, %f : f64
      memref.store %y, %M[%i, %j] : memref<1024x1024xf64>
    }
  }
  return
}

func.func @sum(%M: memref<1024x1024xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
    %t = scf.for %j = %c0 to %n step %c1 iter_args(%acc2 = %acc) -> (i64) {
      %v = memref.load %M[%i, %j] : memref<1024x1024xf64>
      %bits = arith.bitcast %v : f64 to i64
      %ii = arith.index_cast %i : index to i64
      %k = arith.muli %ii, %ii : i64
      %jj = arith.index_cast %j : index to i64
      %w0 = arith.addi %k, %jj : i64
      %w = arith.addi %w0, %one : i64
      %p = arith.muli %bits, %w : i64
      %nx = arith.addi %acc2, %p : i64
      scf.yield %nx : i64
    }
    scf.yield %t : i64
  }
  func.call @printI64(%s) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<1024x1024xf64>
  %B = memref.alloc() : memref<1024x1024xf64>
  %C = memref.alloc() : memref<1024x1024xf64>
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  func.call @fill(%A, %s1) : (memref<1024x1024xf64>, i64) -> ()
  func.call @fill(%B, %s2) : (memref<1024x1024xf64>, i64) -> ()
  func.call @fill(%C, %s3) : (memref<1024x1024xf64>, i64) -> ()
  func.call @f(%A, %C, %B) : (memref<1024x1024xf64>, memref<1024x1024xf64>, memref<1024x1024xf64>) -> ()
  func.call @sum(%A) : (memref<1024x1024xf64>) -> ()
  func.call @sum(%B) : (memref<1024x1024xf64>) -> ()
  func.call @sum(%C) : (memref<1024x1024xf64>) -> ()
  return
}
