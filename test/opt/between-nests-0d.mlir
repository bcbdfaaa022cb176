// A 0-d memref: a loop sums into %sum[] with memref.load/memref.store, and
// a load of %sum[] after it feeds a second loop (issue 67). poly-opt used
// to hoist that load above the first loop (with profitability=false). The
// program must compute what it computed before under every option set of
// the fuzzer's rotation (too small to pay with the plain defaults).
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
// CHECK-NEXT: profitable: unchanged
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @f(
// IR-NOT: memref.load
// IR: affine.for
// IR: memref.load %arg2[]
// IR: memref.store
// IR: affine.for
// IR: memref.load %arg2[]
// IR: return

func.func private @printI64(i64)
func.func private @printNewline()

func.func @f(%A: memref<32xf64>, %B: memref<64xf64>, %sum: memref<f64>) {
  affine.for %d = 0 to 32 {
    %a = affine.load %A[%d] : memref<32xf64>
    %s0 = memref.load %sum[] : memref<f64>
    %t = arith.addf %s0, %a : f64
    memref.store %t, %sum[] : memref<f64>
  }
  %s = memref.load %sum[] : memref<f64>
  affine.for %i = 0 to 64 {
    %b = affine.load %B[%i] : memref<64xf64>
    %r = arith.mulf %b, %s : f64
    affine.store %r, %B[%i] : memref<64xf64>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %p = arith.constant 997 : i64
  %f = arith.constant 997.0 : f64
  %A = memref.alloc() : memref<32xf64>
  %B = memref.alloc() : memref<64xf64>
  %S = memref.alloc() : memref<f64>
  scf.for %i = %c0 to %c64 step %c1 {
    %ii = arith.index_cast %i : index to i64
    %a = arith.muli %ii, %p : i64
    %r = arith.remui %a, %p : i64
    %x = arith.sitofp %ii : i64 to f64
    %y = arith.divf %x, %f : f64
    memref.store %y, %B[%i] : memref<64xf64>
    %lt = arith.cmpi ult, %i, %c32 : index
    scf.if %lt {
      %z = arith.addf %y, %y : f64
      memref.store %z, %A[%i] : memref<32xf64>
    }
  }
  %half = arith.constant 0.5 : f64
  memref.store %half, %S[] : memref<f64>
  func.call @f(%A, %B, %S) : (memref<32xf64>, memref<64xf64>, memref<f64>) -> ()
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %z) -> (i64) {
    %v = memref.load %B[%i] : memref<64xf64>
    %bits = arith.bitcast %v : f64 to i64
    %ii = arith.index_cast %i : index to i64
    %w = arith.addi %ii, %one : i64
    %q = arith.muli %bits, %w : i64
    %nx = arith.addi %acc, %q : i64
    scf.yield %nx : i64
  }
  func.call @printI64(%s) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sv = memref.load %S[] : memref<f64>
  %sb = arith.bitcast %sv : f64 to i64
  func.call @printI64(%sb) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
