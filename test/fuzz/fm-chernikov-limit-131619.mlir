// A fuzz program (fuzz/fuzz.py, mixed 131619, option set t7-fusemax): a Farkas elimination whose step pairs 24,598 lower and upper bounds, of which Chernikov's rule keeps 524. The row limit counted every pair, so the scheduler gave up ("Fourier-Motzkin row count") and the SCoP was left unchanged; it counts the rows the step makes.
// The results must be identical before and after poly-opt (2 OpenMP
// threads), and the SCoP transformed without an internal error.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false tile-sizes=7 fuse=max time-budget=0' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks
// CHECK-NOT: left unchanged
// CHECK-NOT: internal error
// CHECK: remark: poly-opt: {{[0-9]+}} statement
// CHECK-NOT: left unchanged
// CHECK-NOT: internal error
// fuzz program, seed 131619
func.func @kernel(%n0: index, %A0: memref<?x?xf64>, %A1: memref<?x?xf64>, %A2: memref<1x1x1xf64>, %A3: memref<1xf64>) {
  affine.for %i0 = max affine_map<()[s0] -> ((s0 - 5), 0)>()[%n0] to 4 {
    affine.for %i1 = max affine_map<(d0)[] -> (0, (d0 - 3))>(%i0)[] to 7 {
      affine.for %i2 = 1 to affine_map<()[s0] -> (s0)>()[%n0] {
        %t1 = arith.constant 0.5 : f64
        %t2 = affine.load %A1[(%i1 + 1), (%i0 floordiv 2)] : memref<?x?xf64>
        %t3 = arith.mulf %t1, %t2 : f64
        %t4 = affine.load %A3[%i2] : memref<1xf64>
        %t5 = arith.mulf %t3, %t4 : f64
        affine.store %t5, %A1[(%i1 ceildiv 2), ((-%i1) + 9)] : memref<?x?xf64>
        affine.for %i3 = 2 to 5 {
          %t6 = affine.load %A1[(%i1 + 1), ((%i2 + 2) floordiv 2)] : memref<?x?xf64>
          %t7 = arith.constant 0.5 : f64
          %t8 = affine.load %A0[(%i1 - 2), (%i2 - 2)] : memref<?x?xf64>
          %t9 = arith.mulf %t7, %t8 : f64
          %t10 = arith.addf %t6, %t9 : f64
          affine.store %t10, %A1[(%i1 + 1), ((%i2 + 2) floordiv 2)] : memref<?x?xf64>
          %t11 = arith.constant 0.3 : f64
          %t12 = affine.load %A2[((%i1 * 2) - 2), (%i3 - 2), (%i0 - 1)] : memref<1x1x1xf64>
          %t13 = arith.mulf %t11, %t12 : f64
          %t14 = affine.load %A2[((%i3 * 3) + 2), (%i0 + 1), (%i1 - 2)] : memref<1x1x1xf64>
          %t15 = arith.subf %t13, %t14 : f64
          affine.store %t15, %A2[((%i2 + 2) floordiv 2), ((%i2 + 2) + symbol(%n0)), %i0] : memref<1x1x1xf64>
        }
      }
      %t16 = affine.load %A0[(%i1 - 1), (%i0 + 1)] : memref<?x?xf64>
      %t17 = affine.load %A1[(%i0 - 2), (%i0 - 2)] : memref<?x?xf64>
      %t18 = affine.load %A0[(%i0 + 2), (%i1 - 1)] : memref<?x?xf64>
      %t19 = arith.mulf %t17, %t18 : f64
      %t20 = arith.addf %t16, %t19 : f64
      affine.store %t20, %A0[(%i1 - 1), (%i0 + 1)] : memref<?x?xf64>
      affine.for %i4 = 0 to min affine_map<(d0)[s0] -> (s0, (d0 + 5))>(%i1)[%n0] {
        affine.for %i5 = 1 to affine_map<(d0)[] -> (((d0 floordiv 2) + 3))>(%i0)[] step 2 {
          %t21 = arith.constant 0.5 : f64
          %t22 = affine.load %A1[((%i5 ceildiv 2) - 2), ((((%i4 + 1) floordiv 2) + symbol(%n0)) + 1)] : memref<?x?xf64>
          %t23 = affine.load %A1[(%i5 ceildiv 2), (((%i4 + 1) floordiv 2) + symbol(%n0))] : memref<?x?xf64>
          %t24 = arith.addf %t22, %t23 : f64
          %t25 = arith.mulf %t21, %t24 : f64
          affine.store %t25, %A1[(%i5 ceildiv 2), (((%i4 + 1) floordiv 2) + symbol(%n0))] : memref<?x?xf64>
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
  %m1 = memref.alloc() : memref<1x1xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [1], strides: [1] : memref<1x1xf64> to memref<1xf64>
  %sz1 = arith.constant 1 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<1xf64>
  }
  %m2 = memref.alloc() : memref<1x1x1xf64>
  %flat2 = memref.reinterpret_cast %m2 to offset: [0], sizes: [1], strides: [1] : memref<1x1x1xf64> to memref<1xf64>
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
  %m3 = memref.alloc() : memref<1xf64>
  %flat3 = memref.reinterpret_cast %m3 to offset: [0], sizes: [1], strides: [1] : memref<1xf64> to memref<1xf64>
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
  %pv_n0 = arith.constant 12 : index
  %dyn0 = memref.cast %m0 : memref<1x1xf64> to memref<?x?xf64>
  %dyn1 = memref.cast %m1 : memref<1x1xf64> to memref<?x?xf64>
  func.call @kernel(%pv_n0, %dyn0, %dyn1, %m2, %m3) : (index, memref<?x?xf64>, memref<?x?xf64>, memref<1x1x1xf64>, memref<1xf64>) -> ()
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
    %v = memref.load %flat1[%k] : memref<1xf64>
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
  memref.dealloc %m0 : memref<1x1xf64>
  memref.dealloc %m1 : memref<1x1xf64>
  memref.dealloc %m2 : memref<1x1x1xf64>
  memref.dealloc %m3 : memref<1xf64>
  return
}
