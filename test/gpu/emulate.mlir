// polyrs-runner --gpu=emulate runs a GPU program on the CPU: the host code
// as built for the GPU (device buffers, copies, launches through MLIR's
// mgpu* runtime) with the kernels compiled for the host. B = 3 A over a
// 100x70 array, blocks of 32x8 threads with partial tiles on both edges;
// A[i][j] = i + j, so the sum of B is 3 (70 * 4950 + 100 * 2415) = 1764000.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
// Without a driver, --gpu=cuda (the default) says so and runs nothing:
// RUN: env MGPU_LIBCUDA=/nonexistent/libcuda.so.1 not %polyrs-runner %t.mlir 2>&1 | FileCheck %s --check-prefix=NODRIVER
// RUN: not %polyrs-runner --gpu=tpu %t.mlir 2>&1 | FileCheck %s --check-prefix=BADGPU
//
// REMARK: block 32x8
// REMARK: copies to the device: {{.*}}; back:
// CHECK: 1764000
// NODRIVER: polyrs-runner: no NVIDIA driver (/nonexistent/libcuda.so.1: cannot open shared object file: No such file or directory); --gpu=emulate runs GPU programs on the CPU
// BADGPU: polyrs-runner: invalid value 'tpu' for --gpu: expected cuda or emulate

func.func private @printI64(i64)
func.func private @printNewline()

func.func @triple(%A: memref<100x70xf64>, %B: memref<100x70xf64>) {
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 70 {
      %a = affine.load %A[%i, %j] : memref<100x70xf64>
      %two = arith.constant 2.0 : f64
      %d = arith.mulf %a, %two : f64
      %t = arith.addf %d, %a : f64
      affine.store %t, %B[%i, %j] : memref<100x70xf64>
    }
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<100x70xf64>
  %B = memref.alloc() : memref<100x70xf64>
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 70 {
      %s = arith.addi %i, %j : index
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %A[%i, %j] : memref<100x70xf64>
    }
  }
  func.call @triple(%A, %B) : (memref<100x70xf64>, memref<100x70xf64>) -> ()
  %zero = arith.constant 0.0 : f64
  %sum = affine.for %i = 0 to 100 iter_args(%acc = %zero) -> (f64) {
    %row = affine.for %j = 0 to 70 iter_args(%r = %acc) -> (f64) {
      %b = affine.load %B[%i, %j] : memref<100x70xf64>
      %n = arith.addf %r, %b : f64
      affine.yield %n : f64
    }
    affine.yield %row : f64
  }
  %si = arith.fptosi %sum : f64 to i64
  func.call @printI64(%si) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %A : memref<100x70xf64>
  memref.dealloc %B : memref<100x70xf64>
  return
}
