// Found while testing the emitted-code check's undo (session 58): fuzz
// family reductions, program 19, with the testing-only mutation
// emit-test-mutation=duplicate (a statement instance emitted twice, after
// the loop tree's own check). Code generation stops half way with an
// internal error (the carried-cell stage never saw the extra instance);
// the loops it had built stayed in the function, and polyrs-opt then hung
// at exit (heap corruption found by malloc in a worker thread, which
// deadlocked in its own handler). Now the code built so far is erased:
// the error is reported and the process exits with a failure.
//
// RUN: not %polyrs-opt %s --poly-opt='profitability=false emit-test-mutation=duplicate' -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: poly-opt: internal error while rewriting: internal error: an instance the carried-cell analysis did not see
// CHECK-NOT: PLEASE submit a bug report

func.func @kernel(%n0: index, %A0: memref<2446xf64>, %A1: memref<2446xf64>, %A2: memref<1x1xf64>, %A3: memref<f64>, %A4: memref<f64>, %A5: memref<1xf64>, %A6: memref<18xf64>) {
  %t1 = arith.constant 1.0 : f64
  affine.store %t1, %A4[] : memref<f64>
  %t2 = affine.load %A4[] : memref<f64>
  %t4 = affine.for %i1 = 0 to 1146 iter_args(%t3 = %t2) -> (f64) {
    %t5 = arith.constant 1.0 : f64
    %t6 = arith.constant 0.0078125 : f64
    %t7 = affine.load %A0[%i1] : memref<2446xf64>
    %t8 = affine.load %A1[%i1] : memref<2446xf64>
    %t9 = arith.mulf %t7, %t8 : f64
    %t10 = arith.mulf %t6, %t9 : f64
    %t11 = arith.addf %t5, %t10 : f64
    %t12 = arith.mulf %t3, %t11 : f64
    affine.yield %t12 : f64
  }
  affine.store %t4, %A4[] : memref<f64>
  %t13 = arith.constant -4.0 : f64
  affine.store %t13, %A4[] : memref<f64>
  affine.for %i2 = 3 to 2446 {
    %t14 = affine.load %A4[] : memref<f64>
    %t15 = affine.load %A0[%i2] : memref<2446xf64>
    %t16 = arith.maximumf %t14, %t15 : f64
    affine.store %t16, %A4[] : memref<f64>
    %t17 = affine.load %A3[] : memref<f64>
    %t18 = affine.load %A1[%i2] : memref<2446xf64>
    %t19 = arith.addf %t17, %t18 : f64
    affine.store %t19, %A3[] : memref<f64>
  }
  affine.for %i3 = 0 to 18 {
    %t20 = affine.load %A6[%i3] : memref<18xf64>
    %t21 = affine.load %A4[] : memref<f64>
    %t22 = arith.mulf %t20, %t21 : f64
    affine.store %t22, %A6[%i3] : memref<18xf64>
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
  %c37_4 = arith.constant 37 : i64
  %off4 = arith.constant 415 : i64
  %base4 = arith.constant 4.0 : f64
  %c37_5 = arith.constant 37 : i64
  %off5 = arith.constant 516 : i64
  %base5 = arith.constant 5.0 : f64
  %c37_6 = arith.constant 37 : i64
  %off6 = arith.constant 617 : i64
  %base6 = arith.constant 6.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z64 = arith.constant 0 : i64
  %one64 = arith.constant 1 : i64
  %p997 = arith.constant 997 : i64
  %f997 = arith.constant 997.0 : f64
  %half = arith.constant 0.5 : f64
  %nan64 = arith.constant 9221120237041090560 : i64
  %m0 = memref.alloc() : memref<2446xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [2446], strides: [1] : memref<2446xf64> to memref<2446xf64>
  %sz0 = arith.constant 2446 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<2446xf64>
  }
  %m1 = memref.alloc() : memref<2446xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [2446], strides: [1] : memref<2446xf64> to memref<2446xf64>
  %sz1 = arith.constant 2446 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<2446xf64>
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
  %m3 = memref.alloc() : memref<f64>
  %flat3 = memref.reinterpret_cast %m3 to offset: [0], sizes: [1], strides: [1] : memref<f64> to memref<1xf64>
  %sz3 = arith.constant 1 : index
  scf.for %k = %c0 to %sz3 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_3 : i64
    %ka = arith.addi %km, %off3 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base3 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat3[%k] : memref<1xf64>
  }
  %m4 = memref.alloc() : memref<f64>
  %flat4 = memref.reinterpret_cast %m4 to offset: [0], sizes: [1], strides: [1] : memref<f64> to memref<1xf64>
  %sz4 = arith.constant 1 : index
  scf.for %k = %c0 to %sz4 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_4 : i64
    %ka = arith.addi %km, %off4 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base4 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat4[%k] : memref<1xf64>
  }
  %m5 = memref.alloc() : memref<1xf64>
  %flat5 = memref.reinterpret_cast %m5 to offset: [0], sizes: [1], strides: [1] : memref<1xf64> to memref<1xf64>
  %sz5 = arith.constant 1 : index
  scf.for %k = %c0 to %sz5 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_5 : i64
    %ka = arith.addi %km, %off5 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base5 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat5[%k] : memref<1xf64>
  }
  %m6 = memref.alloc() : memref<18xf64>
  %flat6 = memref.reinterpret_cast %m6 to offset: [0], sizes: [18], strides: [1] : memref<18xf64> to memref<18xf64>
  %sz6 = arith.constant 18 : index
  scf.for %k = %c0 to %sz6 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_6 : i64
    %ka = arith.addi %km, %off6 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base6 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat6[%k] : memref<18xf64>
  }
  %pv_n0 = arith.constant 12 : index
  func.call @kernel(%pv_n0, %m0, %m1, %m2, %m3, %m4, %m5, %m6) : (index, memref<2446xf64>, memref<2446xf64>, memref<1x1xf64>, memref<f64>, memref<f64>, memref<1xf64>, memref<18xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<2446xf64>
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
    %v = memref.load %flat1[%k] : memref<2446xf64>
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
    %v = memref.load %flat3[%k] : memref<1xf64>
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
  %sum4 = scf.for %k = %c0 to %sz4 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat4[%k] : memref<1xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum4) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sum5 = scf.for %k = %c0 to %sz5 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat5[%k] : memref<1xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum5) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sum6 = scf.for %k = %c0 to %sz6 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat6[%k] : memref<18xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum6) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %m0 : memref<2446xf64>
  memref.dealloc %m1 : memref<2446xf64>
  memref.dealloc %m2 : memref<1x1xf64>
  memref.dealloc %m3 : memref<f64>
  memref.dealloc %m4 : memref<f64>
  memref.dealloc %m5 : memref<1xf64>
  memref.dealloc %m6 : memref<18xf64>
  return
}
