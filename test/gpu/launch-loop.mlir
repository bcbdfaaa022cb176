// Launches inside a host loop free their stack after each launch. MLIR's
// translation of a launch puts the kernel's argument arrays on the stack
// (`alloca`) where the launch is; without a `memref.alloca_scope` around
// each launch, a host loop grows the stack at every step (PolyBench's
// doitgen at LARGE, 63000 launches, overflowed an 8 MiB stack on the H200
// and in emulation). Here 40000 time steps of two launches each, over
// 32 cells: B[i] = A[i-1] + 1, A[i] = B[i] for i >= 1, A = 0 at first, so
// that after t steps A[i] = min(i, t): the sum of A is 0 + 1 + ... + 31
// = 496 (worked out by hand, not by polyrs).
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
// RUN: %polyrs-translate --emit=llvm %t.mlir | FileCheck %s --check-prefix=LLVM
//
// REMARK: original loop order kept
// REMARK-SAME: 2 kernels
//
// IR-LABEL: func.func @steps
// IR: affine.for %{{.*}} = 0 to 40000 {
// IR-NOT: gpu.launch
// IR: memref.alloca_scope {
// IR-NEXT: gpu.launch blocks
// IR: memref.alloca_scope {
// IR-NEXT: gpu.launch blocks
//
// Each launch's argument arrays between a stack save and its restore:
// LLVM-LABEL: define void @steps(
// LLVM: call ptr @llvm.stacksave
// LLVM-NOT: call void @llvm.stackrestore
// LLVM: alloca
// LLVM: call void @mgpuLaunchKernel
// LLVM: call void @llvm.stackrestore
// LLVM: call ptr @llvm.stacksave
// LLVM-NOT: call void @llvm.stackrestore
// LLVM: alloca
// LLVM: call void @mgpuLaunchKernel
// LLVM: call void @llvm.stackrestore
//
// CHECK: 496

func.func private @printI64(i64)
func.func private @printNewline()

func.func @steps(%A: memref<32xf64>, %B: memref<32xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %t = 0 to 40000 {
    affine.for %i = 1 to 32 {
      %a = affine.load %A[%i - 1] : memref<32xf64>
      %b = arith.addf %a, %one : f64
      affine.store %b, %B[%i] : memref<32xf64>
    }
    affine.for %i = 1 to 32 {
      %b = affine.load %B[%i] : memref<32xf64>
      affine.store %b, %A[%i] : memref<32xf64>
    }
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<32xf64>
  %B = memref.alloc() : memref<32xf64>
  %zero = arith.constant 0.0 : f64
  affine.for %i = 0 to 32 {
    affine.store %zero, %A[%i] : memref<32xf64>
    affine.store %zero, %B[%i] : memref<32xf64>
  }
  func.call @steps(%A, %B) : (memref<32xf64>, memref<32xf64>) -> ()
  %sum = affine.for %i = 0 to 32 iter_args(%acc = %zero) -> (f64) {
    %a = affine.load %A[%i] : memref<32xf64>
    %n = arith.addf %acc, %a : f64
    affine.yield %n : f64
  }
  %si = arith.fptosi %sum : f64 to i64
  func.call @printI64(%si) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %A : memref<32xf64>
  memref.dealloc %B : memref<32xf64>
  return
}
