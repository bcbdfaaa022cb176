// Square roots and absolute values in kernels: IEEE 754 defines both
// exactly and the GPU computes each in one instruction, so the kernels call
// the LLVM intrinsics (llvm.call_intrinsic, which upstream's NVVM lowering
// keeps: it would turn math.sqrt into libdevice's __nv_sqrt, not linked)
// and the PTX has sqrt.rn.f64 and abs.f64. Other math operations keep the
// SCoP on the host (test/gpu/host.mlir).
// Expected value worked out by hand, A[i][j] = (i + j)^2, C[i][j] = -i j
// over 20 x 30: the sum of B = sqrt(A) + |C| is 30 * 190 + 20 * 435 +
// 190 * 435 = 97050.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: %polyrs-translate --emit=ptx %t.mlir | FileCheck %s --check-prefix=PTX
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
//
// REMARK: exact-math.mlir:34:3: remark: poly-opt: 1 statement
// REMARK-SAME: mapped to blocks and threads
// IR-LABEL: func.func @roots
// IR: gpu.launch
// IR: llvm.call_intrinsic "llvm.sqrt.f64"
// IR: llvm.call_intrinsic "llvm.fabs.f64"
// IR-NOT: math.
// PTX: .entry roots_kernel(
// PTX-NOT: __nv_
// PTX-DAG: sqrt.rn.f64
// PTX-DAG: abs.f64
// CHECK: 97050

func.func private @printI64(i64)
func.func private @printNewline()

func.func @roots(%A: memref<20x30xf64>, %C: memref<20x30xf64>, %B: memref<20x30xf64>) {
  affine.for %i = 0 to 20 {
    affine.for %j = 0 to 30 {
      %a = affine.load %A[%i, %j] : memref<20x30xf64>
      %c = affine.load %C[%i, %j] : memref<20x30xf64>
      %s = math.sqrt %a : f64
      %m = math.absf %c : f64
      %b = arith.addf %s, %m : f64
      affine.store %b, %B[%i, %j] : memref<20x30xf64>
    }
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<20x30xf64>
  %C = memref.alloc() : memref<20x30xf64>
  %B = memref.alloc() : memref<20x30xf64>
  %zero = arith.constant 0.0 : f64
  affine.for %i = 0 to 20 {
    affine.for %j = 0 to 30 {
      %ii = arith.index_cast %i : index to i64
      %ji = arith.index_cast %j : index to i64
      %s = arith.addi %ii, %ji : i64
      %sq = arith.muli %s, %s : i64
      %p = arith.muli %ii, %ji : i64
      %np = arith.subi %p, %p : i64
      %neg = arith.subi %np, %p : i64
      %af = arith.sitofp %sq : i64 to f64
      %cf = arith.sitofp %neg : i64 to f64
      affine.store %af, %A[%i, %j] : memref<20x30xf64>
      affine.store %cf, %C[%i, %j] : memref<20x30xf64>
    }
  }
  func.call @roots(%A, %C, %B) : (memref<20x30xf64>, memref<20x30xf64>, memref<20x30xf64>) -> ()
  %t = affine.for %i = 0 to 20 iter_args(%acc = %zero) -> (f64) {
    %tj = affine.for %j = 0 to 30 iter_args(%acc2 = %acc) -> (f64) {
      %b = affine.load %B[%i, %j] : memref<20x30xf64>
      %n = arith.addf %acc2, %b : f64
      affine.yield %n : f64
    }
    affine.yield %tj : f64
  }
  %ti = arith.fptosi %t : f64 to i64
  func.call @printI64(%ti) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %A : memref<20x30xf64>
  memref.dealloc %C : memref<20x30xf64>
  memref.dealloc %B : memref<20x30xf64>
  return
}
