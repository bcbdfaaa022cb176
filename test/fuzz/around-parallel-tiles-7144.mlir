// A fuzz regression (fuzz/fuzz.py, program 7144 of the around family): a
// store between two nests that a fused band runs at one point kept its
// tile coordinates when the parallel-tiles stage cut the tiles of the
// members around it (`tiles of φ2 cut to 1`): it ran in another iteration
// of the parallel loop than the store it follows, which the checker caught
// ("violates the Waw dependence S0 -> S8 ... on parallel dimension 1").
// The results must be identical before and after poly-opt (2 OpenMP
// threads), and every SCoP transformed without an internal error.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false fuse=max tile-sizes=6' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks
// RUN: %polyrs-opt %s --poly-opt='profitability=false unroll-jam=3 fuse=max tile-sizes=6' 2>&1 >/dev/null | FileCheck %s
// CHECK-NOT: internal error
// CHECK: remark: poly-opt: {{[0-9]+}} statement
// CHECK-NOT: internal error
// fuzz program, seed 7144
func.func @kernel(%A0: memref<8x27xf64>, %A1: memref<f64>, %A2: memref<?x?xf64>) {
  affine.for %i0 = 0 to 8 step 2 {
    %t1 = affine.load %A2[(%i0 + 1), (%i0 + 1)] : memref<?x?xf64>
    %t2 = memref.load %A1[] : memref<f64>
    %t3 = affine.load %A1[] : memref<f64>
    %t4 = arith.mulf %t2, %t3 : f64
    %t5 = arith.addf %t1, %t4 : f64
    affine.store %t5, %A2[(%i0 + 1), (%i0 + 1)] : memref<?x?xf64>
  }
  %t6 = affine.load %A1[] : memref<f64>
  %t7 = affine.load %A2[2, 0] : memref<?x?xf64>
  affine.for %i1 = 1 to 9 {
    %t8 = affine.load %A2[(%i1 + 2), (%i1 mod 4)] : memref<?x?xf64>
    %t9 = arith.mulf %t7, %t8 : f64
    %t10 = affine.load %A0[((%i1 - 2) + 1), (%i1 - 1)] : memref<8x27xf64>
    %t11 = arith.mulf %t9, %t10 : f64
    affine.store %t11, %A0[2, ((%i1 * 3) + 2)] : memref<8x27xf64>
    affine.if affine_set<(d0)[] : ((d0 - 2) >= 0, (d0 - 2) == 0)>(%i1)[] {
      %t12 = affine.load %A2[%i1, %i1] : memref<?x?xf64>
      %t13 = arith.addf %t12, %t7 : f64
      memref.store %t13, %A1[] : memref<f64>
    } else {
      %t14 = affine.apply affine_map<(d0)[] -> (((-d0) + 8))>(%i1)[]
      %t15 = affine.apply affine_map<(d0)[] -> ((d0 floordiv 2))>(%i1)[]
      %t16 = memref.load %A0[%t14, %t15] : memref<8x27xf64>
      %t17 = arith.mulf %t7, %t16 : f64
      affine.store %t17, %A0[((-%i1) + 8), (%i1 floordiv 2)] : memref<8x27xf64>
    }
  }
  %t18 = arith.constant 1 : index
  %t19 = arith.constant 3 : index
  memref.store %t7, %A2[%t18, %t19] : memref<?x?xf64>
  %t20 = arith.constant 3 : index
  %t21 = arith.constant 0 : index
  %t22 = memref.load %A2[%t20, %t21] : memref<?x?xf64>
  %t23 = affine.load %A1[] : memref<f64>
  affine.for %i2 = 1 to 9 step 2 {
    affine.if affine_set<(d0)[] : ((d0 mod 2) == 0)>(%i2)[] {
      %t24 = affine.load %A0[(%i2 - 2), ((%i2 * 3) - 2)] : memref<8x27xf64>
      %t25 = arith.constant 2.0 : f64
      %t26 = arith.mulf %t24, %t25 : f64
      affine.store %t26, %A1[] : memref<f64>
    }
  }
  %t27 = arith.constant 0.5 : f64
  %t28 = arith.addf %t22, %t27 : f64
  affine.store %t28, %A2[2, 1] : memref<?x?xf64>
  %t29 = arith.constant 2.0 : f64
  %t30 = memref.load %A1[] : memref<f64>
  %t31 = arith.mulf %t29, %t30 : f64
  %t32 = arith.constant 2 : index
  %t33 = arith.constant 3 : index
  memref.store %t31, %A0[%t32, %t33] : memref<8x27xf64>
  %t34 = arith.constant 2.0 : f64
  affine.store %t34, %A2[3, 3] : memref<?x?xf64>
  affine.for %i3 = 1 to 5 {
    affine.if affine_set<(d0)[] : ((d0 - 1) >= 0, (d0 - 1) >= 0)>(%i3)[] {
      %t35 = affine.load %A1[] : memref<f64>
      %t36 = memref.load %A1[] : memref<f64>
      %t37 = affine.load %A2[(%i3 mod 4), (%i3 mod 2)] : memref<?x?xf64>
      %t38 = arith.mulf %t36, %t37 : f64
      %t39 = arith.addf %t35, %t38 : f64
      memref.store %t39, %A1[] : memref<f64>
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
  %m0 = memref.alloc() : memref<8x27xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [216], strides: [1] : memref<8x27xf64> to memref<216xf64>
  %sz0 = arith.constant 216 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<216xf64>
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
  %m2 = memref.alloc() : memref<11x8xf64>
  %flat2 = memref.reinterpret_cast %m2 to offset: [0], sizes: [88], strides: [1] : memref<11x8xf64> to memref<88xf64>
  %sz2 = arith.constant 88 : index
  scf.for %k = %c0 to %sz2 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_2 : i64
    %ka = arith.addi %km, %off2 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base2 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat2[%k] : memref<88xf64>
  }
  %dyn2 = memref.cast %m2 : memref<11x8xf64> to memref<?x?xf64>
  func.call @kernel(%m0, %m1, %dyn2) : (memref<8x27xf64>, memref<f64>, memref<?x?xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<216xf64>
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
    %v = memref.load %flat2[%k] : memref<88xf64>
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
  memref.dealloc %m0 : memref<8x27xf64>
  memref.dealloc %m1 : memref<f64>
  memref.dealloc %m2 : memref<11x8xf64>
  return
}
