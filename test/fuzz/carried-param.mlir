// A fuzz regression (fuzz/fuzz.py, program 1413, shrunk): a cell kept in registers across a loop (scalar replacement) whose subscript uses a parameter no loop bound uses: the parameter was dropped from the new access maps, which then read another cell (wrong results, also before the fuzzer)
// The results must be identical before and after poly-opt (2 OpenMP
// threads), and every SCoP transformed without an internal error.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false tile-sizes=15 register-tile-sizes=3,5' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks
// CHECK-NOT: left unchanged
// CHECK-NOT: internal error
// CHECK: remark: poly-opt: {{[0-9]+}} statement
// CHECK-NOT: left unchanged
// CHECK-NOT: internal error
func.func @kernel(%n0: index, %A0: memref<?xf64>) {
  affine.for %i0 = 2 to 10 {
    affine.for %i1 = 0 to affine_map<(d0)[] -> (d0)>(%i0)[] {
      %t1 = affine.load %A0[((%i0 + 2) + symbol(%n0))] : memref<?xf64>
      %t2 = affine.load %A0[((%i0 + 2) + symbol(%n0))] : memref<?xf64>
      %t3 = arith.addf %t1, %t2 : f64
      %t4 = affine.load %A0[(((%i0 + 2) + symbol(%n0)) - 1)] : memref<?xf64>
      %t5 = arith.addf %t3, %t4 : f64
      affine.store %t5, %A0[((%i0 + 2) + symbol(%n0))] : memref<?xf64>
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
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z64 = arith.constant 0 : i64
  %one64 = arith.constant 1 : i64
  %p997 = arith.constant 997 : i64
  %f997 = arith.constant 997.0 : f64
  %half = arith.constant 0.5 : f64
  %nan64 = arith.constant 9221120237041090560 : i64
  %m0 = memref.alloc() : memref<13xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [13], strides: [1] : memref<13xf64> to memref<13xf64>
  %sz0 = arith.constant 13 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<13xf64>
  }
  %pv_n0 = arith.constant 1 : index
  %dyn0 = memref.cast %m0 : memref<13xf64> to memref<?xf64>
  func.call @kernel(%pv_n0, %dyn0) : (index, memref<?xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<13xf64>
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
  memref.dealloc %m0 : memref<13xf64>
  return
}
