// A fuzz program (fuzz/fuzz.py, mixed 131492): one Farkas projection makes
// 551 rows in 11 columns, 67 of them needed, and the polyhedron has no
// interior (two of its rows are zero on all of it). Clarkson's redundancy
// removal runs within its affine hull (before, it did not apply, and one
// simplex over every row took most of the pass: with the default budget
// the SCoP was left unchanged). Without a time budget, so that the test
// checks the rows kept, not the speed: a needed row dropped would change
// the schedule's constraints, and the checker or the results would show
// it. The results must be identical before and after poly-opt (2 OpenMP
// threads), and the SCoP transformed.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false time-budget=0' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks
// CHECK-NOT: left unchanged
// CHECK-NOT: internal error
// CHECK: remark: poly-opt: {{[0-9]+}} statement
// CHECK-NOT: left unchanged
// CHECK-NOT: internal error
// fuzz program, seed 131492
func.func @kernel(%n0: index, %A0: memref<6x12xf64>, %A1: memref<f64>, %A2: memref<?xf64>) {
  affine.for %i0 = 0 to 6 {
    affine.for %i1 = 1 to 3 {
      affine.for %i2 = 0 to affine_map<()[s0] -> ((s0 - 1))>()[%n0] {
        affine.for %i3 = 0 to min affine_map<(d0)[s0] -> (s0, (d0 + 5))>(%i0)[%n0] step 2 {
          %t1 = arith.constant 0.5 : f64
          %t2 = affine.load %A0[((%i1 + 1) - 1), %i0] : memref<6x12xf64>
          %t3 = affine.load %A0[((%i1 + 1) + 2), (%i0 + 2)] : memref<6x12xf64>
          %t4 = arith.addf %t2, %t3 : f64
          %t5 = affine.load %A0[(%i1 + 1), ((%i0 - 2) + 2)] : memref<6x12xf64>
          %t6 = arith.addf %t4, %t5 : f64
          %t7 = arith.mulf %t1, %t6 : f64
          affine.store %t7, %A0[(%i1 + 1), %i0] : memref<6x12xf64>
          %t8 = arith.constant 0.3 : f64
          %t9 = affine.load %A0[(%i2 + 2), (%i1 floordiv 3)] : memref<6x12xf64>
          %t10 = arith.mulf %t8, %t9 : f64
          %t11 = arith.constant -0.75 : f64
          %t12 = arith.mulf %t10, %t11 : f64
          affine.store %t12, %A1[] : memref<f64>
          %t13 = affine.load %A1[] : memref<f64>
          %t14 = affine.load %A0[1, ((%i0 - 2) + 2)] : memref<6x12xf64>
          %t15 = arith.mulf %t13, %t14 : f64
          %t16 = affine.load %A1[] : memref<f64>
          %t17 = arith.mulf %t15, %t16 : f64
          affine.store %t17, %A1[] : memref<f64>
        }
        affine.if affine_set<(d0)[] : ((4 + (-d0)) >= 0)>(%i2)[] {
          %t18 = affine.load %A1[] : memref<f64>
          %t19 = affine.load %A1[] : memref<f64>
          %t20 = affine.load %A0[(%i0 ceildiv 2), ((-%i2) + 11)] : memref<6x12xf64>
          %t21 = arith.mulf %t19, %t20 : f64
          %t22 = arith.addf %t18, %t21 : f64
          affine.store %t22, %A1[] : memref<f64>
        }
      }
    }
  }
  affine.for %i4 = 2 to 4 {
    affine.if affine_set<(d0)[] : ((d0 - 1) >= 0)>(%i4)[] {
      %t23 = arith.constant 0.5 : f64
      %t24 = affine.load %A2[((%i4 * 2) - 2)] : memref<?xf64>
      %t25 = arith.mulf %t23, %t24 : f64
      affine.store %t25, %A2[((%i4 * 2) - 2)] : memref<?xf64>
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
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z64 = arith.constant 0 : i64
  %one64 = arith.constant 1 : i64
  %p997 = arith.constant 997 : i64
  %f997 = arith.constant 997.0 : f64
  %half = arith.constant 0.5 : f64
  %nan64 = arith.constant 9221120237041090560 : i64
  %m0 = memref.alloc() : memref<6x12xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [72], strides: [1] : memref<6x12xf64> to memref<72xf64>
  %sz0 = arith.constant 72 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<72xf64>
  }
  %m1 = memref.alloc() : memref<f64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [1], strides: [1] : memref<f64> to memref<1xf64>
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
  %m2 = memref.alloc() : memref<5xf64>
  %flat2 = memref.reinterpret_cast %m2 to offset: [0], sizes: [5], strides: [1] : memref<5xf64> to memref<5xf64>
  %sz2 = arith.constant 5 : index
  scf.for %k = %c0 to %sz2 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_2 : i64
    %ka = arith.addi %km, %off2 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base2 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat2[%k] : memref<5xf64>
  }
  %pv_n0 = arith.constant 5 : index
  %dyn2 = memref.cast %m2 : memref<5xf64> to memref<?xf64>
  func.call @kernel(%pv_n0, %m0, %m1, %dyn2) : (index, memref<6x12xf64>, memref<f64>, memref<?xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<72xf64>
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
    %v = memref.load %flat2[%k] : memref<5xf64>
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
  memref.dealloc %m0 : memref<6x12xf64>
  memref.dealloc %m1 : memref<f64>
  memref.dealloc %m2 : memref<5xf64>
  return
}
