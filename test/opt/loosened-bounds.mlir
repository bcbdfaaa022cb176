// Four statements share a loop over ranges none of whose bounds holds
// for all (`t .. t+3`, `1 .. 10`, a point; program 119224 of the fuzzer's
// mixed family, shrunk, with sizes that run): code generation split the
// context on comparisons of the bounds until its splits were spent, then
// refused the loop ("no upper bound for the loop over dimension 2 that is
// valid for all its statements": the SCoP was left unchanged). After the
// splits of separation, a statement's bound with its constant loosened
// until every statement's range satisfies it now bounds the loop, and each
// statement keeps to its own range by its guard. The results must be
// identical, bit for bit, before and after.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false threads=3' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: loosened-bounds.mlir:[[@LINE+5]]:3: remark: poly-opt: 4 statements, {{.*}}legality verified
// REMARK-NOT: left unchanged
// REMARK-NOT: error

func.func @kernel(%n0: index, %n1: index, %A0: memref<1x1xf64>, %A1: memref<1x12xf64>) {
  affine.for %i0 = max affine_map<()[s0] -> ((s0 - 6), 0)>()[%n0] to affine_map<()[s0] -> (s0)>()[%n1] {
    affine.for %i1 = 0 to affine_map<()[s0] -> ((s0 - 1))>()[%n0] {
      affine.for %i2 = affine_map<(d0)[] -> (d0)>(%i0)[] to affine_map<(d0)[] -> ((d0 + 3))>(%i0)[] {
        %t1 = arith.constant 1.5 : f64
        affine.store %t1, %A0[0, 0] : memref<1x1xf64>
      }
      affine.for %i3 = 1 to 10 {
        %t2 = affine.load %A1[0, (%i3 + 1)] : memref<1x12xf64>
        affine.store %t2, %A1[0, (%i1 + 1)] : memref<1x12xf64>
      }
      %t3 = arith.constant 1.5 : f64
      affine.store %t3, %A1[0, ((%i1 + 2) floordiv 3)] : memref<1x12xf64>
    }
    %t4 = arith.constant 1.5 : f64
    affine.store %t4, %A0[0, 0] : memref<1x1xf64>
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()
func.func @main() {
  %c37_0 = arith.constant 37 : i64
  %off0 = arith.constant 11 : i64
  %base0 = arith.constant 0.0 : f64
  %c37_1 = arith.constant 37 : i64
  %off1 = arith.constant 112 : i64
  %base1 = arith.constant 1.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z64 = arith.constant 0 : i64
  %one64 = arith.constant 1 : i64
  %p997 = arith.constant 997 : i64
  %f997 = arith.constant 997.0 : f64
  %half = arith.constant 0.5 : f64
  %nan64 = arith.constant 9221120237041090560 : i64
  %m0 = memref.alloc() : memref<1x1xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [1], strides: [1] : memref<1x1xf64> to memref<1xf64>
  %sz0 = arith.constant 1 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<1xf64>
  }
  %m1 = memref.alloc() : memref<1x12xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [12], strides: [1] : memref<1x12xf64> to memref<12xf64>
  %sz1 = arith.constant 12 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<12xf64>
  }
  %pv_n0 = arith.constant 8 : index
  %pv_n1 = arith.constant 10 : index
  func.call @kernel(%pv_n0, %pv_n1, %m0, %m1) : (index, index, memref<1x1xf64>, memref<1x12xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<1xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum0) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sum1 = scf.for %k = %c0 to %sz1 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat1[%k] : memref<12xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum1) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %m0 : memref<1x1xf64>
  memref.dealloc %m1 : memref<1x12xf64>
  return
}
