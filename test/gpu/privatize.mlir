// A temporary that ties every iteration to the next (t[0], written and
// then read in each iteration, as symm's temp2 and deriche's ym1) leaves
// no parallel loop to map; expanded per iteration (privatized), both loops
// map to the GPU. The expanded buffer lives in device memory, and a kernel
// of one thread copies the last iteration's value into t's device buffer,
// which goes back to the host: code after the SCoP sees t[0] = 2 A[63][63].
// Expected values worked out by hand, A[i][j] = i + j: the sum of
// B[i][j] = 2 (i + j) + 1 over 64 x 64 is 520192; t[0] = 252.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.mlir | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-memory=host-register' -o %t.reg.mlir 2>/dev/null
// RUN: %polyrs-runner --gpu=emulate %t.reg.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu privatize=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
//
// REMARK: privatize.mlir:32:3: remark: poly-opt: 2 statements
// REMARK-SAME: temporary arg2 expanded per iteration (privatized)
// REMARK-SAME: 1 thread (a privatized temporary's last values)
// OFF: SCoP left unchanged: no parallel loop to map to the GPU's blocks and threads
//
// CHECK: 520192
// CHECK-NEXT: 252

func.func private @printI64(i64)
func.func private @printNewline()

func.func @twice(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %t: memref<1xf64>) {
  %two = arith.constant 2.0 : f64
  %one = arith.constant 1.0 : f64
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<64x64xf64>
      %d = arith.mulf %a, %two : f64
      affine.store %d, %t[0] : memref<1xf64>
      %x = affine.load %t[0] : memref<1xf64>
      %b = arith.addf %x, %one : f64
      affine.store %b, %B[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

func.func @print(%x: f64) {
  %r = arith.fptosi %x : f64 to i64
  func.call @printI64(%r) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %zero = arith.constant 0.0 : f64
  %A = memref.alloc() : memref<64x64xf64>
  %B = memref.alloc() : memref<64x64xf64>
  %t = memref.alloc() : memref<1xf64>
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %s = arith.addi %i, %j : index
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %A[%i, %j] : memref<64x64xf64>
    }
  }
  affine.store %zero, %t[0] : memref<1xf64>
  func.call @twice(%A, %B, %t) : (memref<64x64xf64>, memref<64x64xf64>, memref<1xf64>) -> ()
  %sum = affine.for %i = 0 to 64 iter_args(%acc = %zero) -> (f64) {
    %r = affine.for %j = 0 to 64 iter_args(%acc2 = %acc) -> (f64) {
      %x = affine.load %B[%i, %j] : memref<64x64xf64>
      %s = arith.addf %acc2, %x : f64
      affine.yield %s : f64
    }
    affine.yield %r : f64
  }
  func.call @print(%sum) : (f64) -> ()
  %tv = affine.load %t[0] : memref<1xf64>
  func.call @print(%tv) : (f64) -> ()
  return
}
