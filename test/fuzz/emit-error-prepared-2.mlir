// Found while testing the emitted-code check's undo (session 58): fuzz
// family views, program 2, with the testing-only mutation
// emit-test-mutation=duplicate. Two SCoPs were prepared before the first
// was optimized: each had a loop carrying a value demoted to a cell and
// then split into one block per thread. The first one's code generation
// stopped with an internal error and the pass stopped there; the second
// SCoP's split loop was never put back, and taking back its demoted nest
// then crashed (a segmentation fault inserting before an operation in no
// block). Now the SCoPs not reached take back what was prepared for them
// first: the error is reported and the process exits with a failure.
//
// RUN: not %polyrs-opt %s --poly-opt='profitability=false emit-test-mutation=duplicate' -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: poly-opt: internal error while rewriting: internal error: an instance the carried-cell analysis did not see
// CHECK-NOT: PLEASE submit a bug report

func.func @kernel(%n0: index, %A0: memref<?xf64>, %A1: memref<5xf64>, %A2: memref<112x117xf64>, %A3: memref<f64>, %A4: memref<f64>, %A5: memref<1xf64>, %A6: memref<?xf64>) {
  %v_A2 = memref.subview %A2[0, 0] [112, 117] [1, 1] : memref<112x117xf64> to memref<112x117xf64, strided<[117, 1]>>
  %t1 = affine.load %A4[] : memref<f64>
  %t3 = affine.for %i1 = 0 to affine_map<()[s0] -> ((s0 - 1))>()[%n0] iter_args(%t2 = %t1) -> (f64) {
    %t5 = affine.for %i2 = 0 to 5 iter_args(%t4 = %t2) -> (f64) {
      %t7 = affine.for %i3 = 0 to 16 iter_args(%t6 = %t4) -> (f64) {
        %t8 = affine.load %A2[%i1, %i3] : memref<112x117xf64>
        %t9 = affine.load %A1[%i2] : memref<5xf64>
        %t10 = arith.mulf %t8, %t9 : f64
        %t11 = arith.maximumf %t6, %t10 : f64
        affine.yield %t11 : f64
      }
      affine.yield %t7 : f64
    }
    affine.yield %t5 : f64
  }
  affine.store %t3, %A4[] : memref<f64>
  affine.for %i4 = 0 to 37 {
    %t12 = affine.load %A6[%i4] : memref<?xf64>
    %t13 = affine.load %A4[] : memref<f64>
    %t14 = arith.mulf %t12, %t13 : f64
    affine.store %t14, %A6[%i4] : memref<?xf64>
  }
  affine.for %i5 = 3 to 112 {
    affine.for %i6 = 0 to affine_map<(d0)[] -> ((d0 + 2))>(%i5)[] {
      affine.if affine_set<(d0)[] : ((d0 - 1) >= 0)>(%i6)[] {
        %t15 = affine.load %A4[] : memref<f64>
        %t16 = affine.load %v_A2[%i5, %i6] : memref<112x117xf64, strided<[117, 1]>>
        %t17 = affine.load %A0[%i6] : memref<?xf64>
        %t18 = arith.mulf %t16, %t17 : f64
        %t19 = arith.maximumf %t15, %t18 : f64
        affine.store %t19, %A4[] : memref<f64>
      }
    }
  }
  %t20 = affine.load %A5[0] : memref<1xf64>
  %t22 = affine.for %i7 = 0 to 35 iter_args(%t21 = %t20) -> (f64) {
    %t24 = affine.for %i8 = 0 to 117 iter_args(%t23 = %t21) -> (f64) {
      %t25 = affine.load %A2[%i7, %i8] : memref<112x117xf64>
      %t26 = arith.maximumf %t23, %t25 : f64
      affine.yield %t26 : f64
    }
    affine.yield %t24 : f64
  }
  affine.store %t22, %A5[0] : memref<1xf64>
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
  %m0 = memref.alloc() : memref<113xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [113], strides: [1] : memref<113xf64> to memref<113xf64>
  %sz0 = arith.constant 113 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<113xf64>
  }
  %m1 = memref.alloc() : memref<5xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [5], strides: [1] : memref<5xf64> to memref<5xf64>
  %sz1 = arith.constant 5 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<5xf64>
  }
  %m2 = memref.alloc() : memref<112x117xf64>
  %flat2 = memref.reinterpret_cast %m2 to offset: [0], sizes: [13104], strides: [1] : memref<112x117xf64> to memref<13104xf64>
  %sz2 = arith.constant 13104 : index
  scf.for %k = %c0 to %sz2 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_2 : i64
    %ka = arith.addi %km, %off2 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base2 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat2[%k] : memref<13104xf64>
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
  %m6 = memref.alloc() : memref<37xf64>
  %flat6 = memref.reinterpret_cast %m6 to offset: [0], sizes: [37], strides: [1] : memref<37xf64> to memref<37xf64>
  %sz6 = arith.constant 37 : index
  scf.for %k = %c0 to %sz6 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_6 : i64
    %ka = arith.addi %km, %off6 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base6 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat6[%k] : memref<37xf64>
  }
  %pv_n0 = arith.constant 55 : index
  %dyn0 = memref.cast %m0 : memref<113xf64> to memref<?xf64>
  %dyn6 = memref.cast %m6 : memref<37xf64> to memref<?xf64>
  func.call @kernel(%pv_n0, %dyn0, %m1, %m2, %m3, %m4, %m5, %dyn6) : (index, memref<?xf64>, memref<5xf64>, memref<112x117xf64>, memref<f64>, memref<f64>, memref<1xf64>, memref<?xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<113xf64>
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
    %v = memref.load %flat1[%k] : memref<5xf64>
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
    %v = memref.load %flat2[%k] : memref<13104xf64>
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
    %v = memref.load %flat6[%k] : memref<37xf64>
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
  memref.dealloc %m0 : memref<113xf64>
  memref.dealloc %m1 : memref<5xf64>
  memref.dealloc %m2 : memref<112x117xf64>
  memref.dealloc %m3 : memref<f64>
  memref.dealloc %m4 : memref<f64>
  memref.dealloc %m5 : memref<1xf64>
  memref.dealloc %m6 : memref<37xf64>
  return
}
