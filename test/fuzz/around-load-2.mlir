// A fuzz regression (fuzz/fuzz.py, program 2 of the around family, shrunk): a load between two nests, of the cell the first nest writes, was emitted in front of that nest (issue 67)
// The results must be identical before and after poly-opt (2 OpenMP
// threads), and every SCoP transformed without an internal error.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks
// CHECK-NOT: left unchanged
// CHECK-NOT: internal error
// CHECK: remark: poly-opt: {{[0-9]+}} statement
// CHECK-NOT: left unchanged
// CHECK-NOT: internal error
func.func @kernel(%A0: memref<?x?x?xf64>, %A1: memref<f64>) {
  affine.for %i0 = 0 to 7 {
    %t1 = arith.constant 0.5 : f64
    affine.store %t1, %A1[] : memref<f64>
  }
  %t2 = affine.load %A1[] : memref<f64>
  affine.for %i2 = 0 to 3 {
    affine.store %t2, %A0[0, 0, 0] : memref<?x?x?xf64>
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
  %m0 = memref.alloc() : memref<1x1x1xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [1], strides: [1] : memref<1x1x1xf64> to memref<1xf64>
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
  %dyn0 = memref.cast %m0 : memref<1x1x1xf64> to memref<?x?x?xf64>
  func.call @kernel(%dyn0, %m1) : (memref<?x?x?xf64>, memref<f64>) -> ()
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
  memref.dealloc %m0 : memref<1x1x1xf64>
  memref.dealloc %m1 : memref<f64>
  return
}
