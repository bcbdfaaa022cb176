// polyrs-translate --emit=ptx compiles the kernels of a poly-opt{target=gpu}
// module to PTX for sm_90 (PTX ISA 8.0) with LLVM's NVPTX back end, no CUDA
// needed; the host code (--emit=llvm) loads the PTX through the driver at
// run time and launches it through MLIR's mgpu* runtime entry points
// (runtime/mgpu_cuda.c). Multiply and add stay apart (no fma): the GPU
// computes what the CPU computes, bit for bit.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>/dev/null
// RUN: %polyrs-translate --emit=ptx %t.mlir | FileCheck %s
// RUN: %polyrs-translate --emit=ptx --gpu-chip=sm_80 %t.mlir | FileCheck %s --check-prefix=SM80
// RUN: %polyrs-translate %t.mlir | FileCheck %s --check-prefix=HOST
//
// CHECK: .version 8.0
// CHECK: .target sm_90
// CHECK: .visible .entry scale_kernel(
// CHECK: ld.global.b64
// CHECK: mul.rn.f64
// CHECK: add.rn.f64
// CHECK-NOT: fma
// CHECK: st.global.b64
// SM80: .target sm_80
// HOST-DAG: call ptr @mgpuModuleLoadJIT(
// HOST-DAG: call void @mgpuLaunchKernel(
// HOST-DAG: call ptr @mgpuMemAlloc(
// HOST-DAG: call void @mgpuMemcpy(

func.func @scale(%A: memref<512x512xf64>, %x: f64) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      %a = affine.load %A[%i, %j] : memref<512x512xf64>
      %p = arith.mulf %a, %x : f64
      %s = arith.addf %p, %a : f64
      affine.store %s, %A[%i, %j] : memref<512x512xf64>
    }
  }
  return
}
