// A time-stepped stencil on the GPU: Pluto skews the time loop into the
// band, which then has no parallel tile loop, so the original loop order
// is mapped instead: the time loop stays on the host around one launch per
// statement and time step, and the copies stay outside it (once in, once
// back). A[i] = i mod 7, five steps of B[i] = A[i-1] + A[i+1],
// A[i] = B[i] - A[i] over 300 cells (ten blocks of 32 threads, one warp
// each, enough blocks for every multiprocessor; the last partial); the sum of A and B afterwards is 2681 (worked out by a Python
// loop, not by polyrs). The threads run in reverse order in emulation, so
// a race between them would show.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
//
// REMARK: original loop order kept (no scheduled band has a parallel tile loop)
// REMARK-SAME: 2 kernels: grid over 1 tile loop, block 32, grid over 1 tile loop, block 32
// REMARK-SAME: every block and thread loop verified
//
// IR-LABEL: func.func @steps
// IR: gpu.memcpy
// IR: affine.for %{{.*}} = 0 to 5 {
// IR-NOT: gpu.memcpy
// IR: gpu.launch blocks
// IR-NOT: gpu.memcpy
// IR: gpu.launch blocks
// IR-NOT: gpu.memcpy
// IR: }
// IR: gpu.memcpy
// IR: return
//
// CHECK: 2681

func.func private @printI64(i64)
func.func private @printNewline()

func.func @steps(%A: memref<300xf64>, %B: memref<300xf64>) {
  affine.for %t = 0 to 5 {
    affine.for %i = 1 to 299 {
      %l = affine.load %A[%i - 1] : memref<300xf64>
      %r = affine.load %A[%i + 1] : memref<300xf64>
      %s = arith.addf %l, %r : f64
      affine.store %s, %B[%i] : memref<300xf64>
    }
    affine.for %i = 1 to 299 {
      %b = affine.load %B[%i] : memref<300xf64>
      %a = affine.load %A[%i] : memref<300xf64>
      %d = arith.subf %b, %a : f64
      affine.store %d, %A[%i] : memref<300xf64>
    }
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<300xf64>
  %B = memref.alloc() : memref<300xf64>
  %zero = arith.constant 0.0 : f64
  %c7 = arith.constant 7 : index
  affine.for %i = 0 to 300 {
    %m = arith.remui %i, %c7 : index
    %mi = arith.index_cast %m : index to i64
    %f = arith.sitofp %mi : i64 to f64
    affine.store %f, %A[%i] : memref<300xf64>
    affine.store %zero, %B[%i] : memref<300xf64>
  }
  func.call @steps(%A, %B) : (memref<300xf64>, memref<300xf64>) -> ()
  %sa = affine.for %i = 0 to 300 iter_args(%acc = %zero) -> (f64) {
    %a = affine.load %A[%i] : memref<300xf64>
    %b = affine.load %B[%i] : memref<300xf64>
    %s = arith.addf %acc, %a : f64
    %t = arith.addf %s, %b : f64
    affine.yield %t : f64
  }
  %r = arith.fptosi %sa : f64 to i64
  func.call @printI64(%r) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %A : memref<300xf64>
  memref.dealloc %B : memref<300xf64>
  return
}
