// What poly-opt{target=gpu} leaves on the host, with the reason in a remark:
// a SCoP with no parallel loop, and one whose kernel would call the math
// library (libdevice is not linked; square roots and absolute values are
// exact intrinsics instead, test/gpu/exact-math.mlir). Invalid GPU options
// are errors.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: not %polyrs-opt %s --poly-opt='target=tpu' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not %polyrs-opt %s --poly-opt='target=gpu gpu-chip=sm_20' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not %polyrs-opt %s --poly-opt='target=gpu gpu-block=2048' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK
//
// CHECK: remark: poly-opt: SCoP left unchanged: no parallel loop to map to the GPU's blocks and threads; left on the host
// CHECK: remark: poly-opt: SCoP left unchanged: 'math.exp' would need CUDA's libdevice in a kernel, which is not linked; left on the host
// IR-NOT: gpu.
// TARGET: error: poly-opt: invalid value 'tpu' for option 'target': expected cpu or gpu
// CHIP: error: poly-opt: invalid value 'sm_20' for option 'gpu-chip': expected sm_80 or sm_90
// BLOCK: error: poly-opt: invalid value '2048' for option 'gpu-block': threads per block along a dimension must be between 1 and 1024

func.func @prefix(%A: memref<1000xf64>) {
  affine.for %i = 1 to 1000 {
    %a = affine.load %A[%i - 1] : memref<1000xf64>
    %b = affine.load %A[%i] : memref<1000xf64>
    %s = arith.addf %a, %b : f64
    affine.store %s, %A[%i] : memref<1000xf64>
  }
  return
}

func.func @roots(%A: memref<1000x1000xf64>) {
  affine.for %i = 0 to 1000 {
    affine.for %j = 0 to 1000 {
      %a = affine.load %A[%i, %j] : memref<1000x1000xf64>
      %s = math.exp %a : f64
      affine.store %s, %A[%i, %j] : memref<1000x1000xf64>
    }
  }
  return
}
