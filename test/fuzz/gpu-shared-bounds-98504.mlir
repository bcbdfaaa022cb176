// A fuzz regression (fuzz/fuzz.py, program 98504, GPU target in the CPU emulation): a read of A0 past the array for parameter values the program never runs with (n0 large: A0[i0 - 1] with i0 < n0 - 1, A0 of 9 cells): the shared-memory checker asked every promoted read to lie inside the array and refused the plan (an internal error); reads outside the array are undefined in the original too, and the copy fills only the box's cells inside the array
// The results must be identical before and after poly-opt, with the box
// in shared memory, and no internal error or crash.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false target=gpu gpu-memory=host-register gpu-block=16,2' 2> %t.remarks | %polyrs-runner --gpu=emulate - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks
// CHECK-NOT: internal error
// CHECK: remark: poly-opt: {{[0-9]+}} statement
// CHECK-SAME: shared memory per block: arg1
// CHECK-NOT: internal error
func.func @kernel(%n0: index, %A0: memref<9xf64>, %A1: memref<7xf64>) {
  affine.for %i0 = 1 to affine_map<()[s0] -> ((s0 - 1))>()[%n0] step 3 {
    affine.for %i1 = affine_map<(d0)[] -> ((d0 floordiv 2))>(%i0)[] to 11 {
      affine.if affine_set<(d0, d1)[] : ((d0 + (-d1)) >= 0)>(%i0, %i1)[] {
        %t1 = arith.constant 0.5 : f64
        %t2 = affine.load %A0[((-%i1) + 8)] : memref<9xf64>
        %t3 = arith.subf %t1, %t2 : f64
        %t4 = affine.load %A0[((%i0 - 2) + 1)] : memref<9xf64>
        %t5 = arith.addf %t3, %t4 : f64
        affine.store %t5, %A1[(%i1 + 2)] : memref<7xf64>
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
  %m0 = memref.alloc() : memref<9xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [9], strides: [1] : memref<9xf64> to memref<9xf64>
  %sz0 = arith.constant 9 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<9xf64>
  }
  %m1 = memref.alloc() : memref<7xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [7], strides: [1] : memref<7xf64> to memref<7xf64>
  %sz1 = arith.constant 7 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<7xf64>
  }
  %pv_n0 = arith.constant 7 : index
  func.call @kernel(%pv_n0, %m0, %m1) : (index, memref<9xf64>, memref<7xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<9xf64>
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
    %v = memref.load %flat1[%k] : memref<7xf64>
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
  memref.dealloc %m0 : memref<9xf64>
  memref.dealloc %m1 : memref<7xf64>
  return
}
