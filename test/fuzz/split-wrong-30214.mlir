// Found by the fuzzer after issue 18's campaign (fuzz/fuzz.py, program
// 30214, shrunk: 4 statements, S0 split into 3 by index-set splitting at
// i0 = 4). The schedule was legal; code generation dropped two instances.
// Loop separation ordered the bounds of t3 by rational comparisons, each
// sound for integers but not transitive (with t0 in [2.5, 3] rationally and
// 3 for integers: 8 <= L and L <= 11 - t0 and 11 - t0 <= 8 are decided,
// L <= 8 is not), so S2's range [7, 8) and S0_lt's start at L = 8 fell
// between the ranges the loop was split into. The comparisons are now
// closed transitively and the statements placed in ranges by position.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false split=false' | %polyrs-runner --threads=2 - > %t.nosplit
// RUN: diff %t.before %t.nosplit
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// fuzz program, seed 30214
func.func @kernel(%n0: index, %A0: memref<?x?xf64>, %A1: memref<?x?x?xf64>) {
  affine.for %i0 = 2 to 9 {
    affine.for %i1 = affine_map<(d0)[] -> (d0)>(%i0)[] to affine_map<(d0)[] -> ((d0 + 2))>(%i0)[] {
      affine.for %i2 = 0 to affine_map<(d0)[] -> ((d0 + 1))>(%i1)[] {
        affine.for %i3 = affine_map<(d0)[] -> ((d0 - 1))>(%i0)[] to affine_map<(d0)[] -> ((d0 + 2))>(%i1)[] {
          %t1 = affine.load %A0[(%i0 + 1), (%i2 + 1)] : memref<?x?xf64>
          %t2 = affine.load %A1[((%i2 - 2) + 2), (%i0 - 1), (%i1 + 1)] : memref<?x?x?xf64>
          %t3 = affine.load %A0[(%i1 + 2), symbol(%n0)] : memref<?x?xf64>
          %t4 = arith.mulf %t2, %t3 : f64
          %t5 = arith.addf %t1, %t4 : f64
          affine.store %t5, %A0[(%i0 + 1), (%i2 + 1)] : memref<?x?xf64>
          affine.if affine_set<(d0)[] : ((d0 - 1) == 0)>(%i2)[] {
            %t6 = affine.load %A1[0, (%i2 + 2), (%i2 + 1)] : memref<?x?x?xf64>
            affine.store %t6, %A0[(%i0 + 1), %i1] : memref<?x?xf64>
          } else {
            %t7 = arith.constant 1.5 : f64
            affine.store %t7, %A1[(%i3 + 2), (%i1 - 2), ((%i3 * 3) + 1)] : memref<?x?x?xf64>
          }
          %t8 = arith.constant 0.5 : f64
          affine.store %t8, %A1[((%i1 - 1) + symbol(%n0)), 3, ((%i0 * 2) - 2)] : memref<?x?x?xf64>
        }
      }
    }
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
  %m0 = memref.alloc() : memref<12x11xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [132], strides: [1] : memref<12x11xf64> to memref<132xf64>
  %sz0 = arith.constant 132 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<132xf64>
  }
  %m1 = memref.alloc() : memref<13x8x32xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [3328], strides: [1] : memref<13x8x32xf64> to memref<3328xf64>
  %sz1 = arith.constant 3328 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<3328xf64>
  }
  %pv_n0 = arith.constant 1 : index
  %dyn0 = memref.cast %m0 : memref<12x11xf64> to memref<?x?xf64>
  %dyn1 = memref.cast %m1 : memref<13x8x32xf64> to memref<?x?x?xf64>
  func.call @kernel(%pv_n0, %dyn0, %dyn1) : (index, memref<?x?xf64>, memref<?x?x?xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<132xf64>
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
    %v = memref.load %flat1[%k] : memref<3328xf64>
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
  memref.dealloc %m0 : memref<12x11xf64>
  memref.dealloc %m1 : memref<13x8x32xf64>
  return
}
