// A fuzz regression (fuzz/fuzz.py, program 50056, GPU target in the CPU emulation): a SCoP whose only statement never runs: the affine simplification erased the loop holding the launch, the last new operation, and the copies back were then inserted next to freed memory (a crash)
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
func.func @kernel(%A0: memref<f64>, %A1: memref<?x?xf64>, %A2: memref<?x?xf64>, %A3: memref<1x1xf64>) {
  affine.for %i0 = 1 to 9 step 2 {
    affine.if affine_set<(d0)[] : ((d0 mod 2) == 0)>(%i0)[] {
      %t1 = affine.load %A0[] : memref<f64>
      %t2 = affine.load %A0[] : memref<f64>
      %t3 = affine.load %A0[] : memref<f64>
      %t4 = arith.mulf %t2, %t3 : f64
      %t5 = arith.addf %t1, %t4 : f64
      affine.store %t5, %A0[] : memref<f64>
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
  %m0 = memref.alloc() : memref<f64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [1], strides: [1] : memref<f64> to memref<1xf64>
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
  %m3 = memref.alloc() : memref<1x1xf64>
  %flat3 = memref.reinterpret_cast %m3 to offset: [0], sizes: [1], strides: [1] : memref<1x1xf64> to memref<1xf64>
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
  %dyn0 = memref.cast %m0 : memref<f64> to memref<f64>
  %dyn1 = memref.cast %m1 : memref<1x1xf64> to memref<?x?xf64>
  %dyn2 = memref.cast %m2 : memref<1x1xf64> to memref<?x?xf64>
  func.call @kernel(%dyn0, %dyn1, %dyn2, %m3) : (memref<f64>, memref<?x?xf64>, memref<?x?xf64>, memref<1x1xf64>) -> ()
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
  memref.dealloc %m0 : memref<f64>
  memref.dealloc %m1 : memref<1x1xf64>
  memref.dealloc %m2 : memref<1x1xf64>
  memref.dealloc %m3 : memref<1x1xf64>
  return
}
