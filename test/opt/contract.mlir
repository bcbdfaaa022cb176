// contract=true: the multiplies, adds and subtracts of the rewritten nests
// get fastmath<contract> (LLVM may fuse them into FMAs: vfmadd); code
// around the SCoP keeps its flags, and flags already there are kept. Off by
// default: the output is then bit-identical to the input.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} contract=true profitability=false' 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} contract=true profitability=false' 2>/dev/null | %polyrs-translate --cpu=znver4 --emit=asm - | FileCheck %s --check-prefix=FMA
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | %polyrs-translate --cpu=znver4 --emit=asm - | FileCheck %s --check-prefix=NOFMA

// REMARK: remark: poly-opt: 1 statement, {{.*}}legality verified; multiply-adds may be fused (contract); target znver4

// CHECK-LABEL: func.func @gemm
// CHECK: arith.mulf {{.*}} fastmath<contract> : f64
// CHECK: arith.addf {{.*}} fastmath<contract> : f64
// The scaling after the SCoP is not part of it: no flag.
// CHECK: %[[S:[0-9]+]] = arith.mulf %arg3, %arg3 : f64
// CHECK-NEXT: return %[[S]]
// OFF-NOT: contract
// FMA: vfmadd
// NOFMA-NOT: vfmadd
func.func @gemm(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>, %x: f64) -> f64 {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<64x64xf64>
        %b = affine.load %B[%k, %j] : memref<64x64xf64>
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  %y = arith.mulf %x, %x : f64
  return %y : f64
}

// Flags already there are kept, contract added.
// CHECK-LABEL: func.func @scale
// CHECK: arith.mulf {{.*}} fastmath<nnan,contract> : f64
func.func @scale(%A: memref<64x64xf64>, %B: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<64x64xf64>
      %p = arith.mulf %a, %a fastmath<nnan> : f64
      affine.store %p, %B[%j, %i] : memref<64x64xf64>
    }
  }
  return
}
