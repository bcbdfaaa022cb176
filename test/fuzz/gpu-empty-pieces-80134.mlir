// A fuzz regression (fuzz/fuzz.py, program 80134, GPU target in the CPU emulation): a launch over a single tile whose body is an empty sequence (both statements' pieces guarded away): the thread mapping of a sequence's pieces indexed the first of no pieces (an internal error)
// The results must be identical before and after poly-opt, and no
// internal error or crash.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false target=gpu gpu-block=7,3,2' 2> %t.remarks | %polyrs-runner --gpu=emulate - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks
// CHECK-NOT: internal error
// CHECK: remark: poly-opt: {{[0-9]+}} statement
// CHECK-NOT: internal error
func.func @kernel(%A0: memref<1x1xf64>, %A1: memref<8x8xf64>, %A2: memref<1x1xf64>, %A3: memref<7x8x5xf64>) {
  affine.for %i0 = 2 to 6 {
    affine.if affine_set<(d0)[] : ((d0 - 2) >= 0, (d0 - 2) >= 0)>(%i0)[] {
      %t1 = affine.load %A1[(%i0 + 2), (%i0 + 2)] : memref<8x8xf64>
      %t2 = arith.constant 1.25 : f64
      %t3 = arith.mulf %t1, %t2 : f64
      %t4 = affine.load %A3[(%i0 + 1), %i0, (%i0 - 2)] : memref<7x8x5xf64>
      %t5 = arith.addf %t3, %t4 : f64
      affine.store %t5, %A3[((%i0 + 1) floordiv 2), (%i0 + 2), ((-%i0) + 6)] : memref<7x8x5xf64>
    } else {
      %t6 = affine.load %A1[(%i0 - 1), %i0] : memref<8x8xf64>
      %t7 = arith.constant -0.75 : f64
      %t8 = arith.mulf %t6, %t7 : f64
      %t9 = affine.load %A2[(%i0 mod 4), (%i0 - 2)] : memref<1x1xf64>
      %t10 = arith.addf %t8, %t9 : f64
      affine.store %t10, %A3[%i0, (%i0 + 2), ((%i0 * 2) - 2)] : memref<7x8x5xf64>
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
  %c37_2 = arith.constant 37 : i64
  %off2 = arith.constant 213 : i64
  %base2 = arith.constant 2.0 : f64
  %c37_3 = arith.constant 37 : i64
  %off3 = arith.constant 314 : i64
  %base3 = arith.constant 3.0 : f64
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
  %m1 = memref.alloc() : memref<8x8xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [64], strides: [1] : memref<8x8xf64> to memref<64xf64>
  %sz1 = arith.constant 64 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<64xf64>
  }
  %m2 = memref.alloc() : memref<1x1xf64>
  %flat2 = memref.reinterpret_cast %m2 to offset: [0], sizes: [1], strides: [1] : memref<1x1xf64> to memref<1xf64>
  %sz2 = arith.constant 1 : index
  scf.for %k = %c0 to %sz2 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_2 : i64
    %ka = arith.addi %km, %off2 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base2 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat2[%k] : memref<1xf64>
  }
  %m3 = memref.alloc() : memref<7x8x5xf64>
  %flat3 = memref.reinterpret_cast %m3 to offset: [0], sizes: [280], strides: [1] : memref<7x8x5xf64> to memref<280xf64>
  %sz3 = arith.constant 280 : index
  scf.for %k = %c0 to %sz3 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_3 : i64
    %ka = arith.addi %km, %off3 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base3 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat3[%k] : memref<280xf64>
  }
  func.call @kernel(%m0, %m1, %m2, %m3) : (memref<1x1xf64>, memref<8x8xf64>, memref<1x1xf64>, memref<7x8x5xf64>) -> ()
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
    %v = memref.load %flat1[%k] : memref<64xf64>
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
  %sum2 = scf.for %k = %c0 to %sz2 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat2[%k] : memref<1xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum2) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sum3 = scf.for %k = %c0 to %sz3 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat3[%k] : memref<280xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum3) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %m0 : memref<1x1xf64>
  memref.dealloc %m1 : memref<8x8xf64>
  memref.dealloc %m2 : memref<1x1xf64>
  memref.dealloc %m3 : memref<7x8x5xf64>
  return
}
