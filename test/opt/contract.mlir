// contract=true: the multiplies, adds and subtracts of the rewritten nests
// get fastmath<contract> (LLVM may fuse them into FMAs: vfmadd); code
// around the SCoP keeps its flags, and flags already there are kept, and a
// statement whose innermost loop is a chain of its own instances keeps its
// multiply apart. Off by default: the output is then bit-identical to the
// input.
//
// (steps=false: @chain's solve stays one band, whose rows are the chain in
// question; cut into steps, its rows run in vector lanes, see steps.mlir.)
// RUN: %polyrs-opt %s --poly-opt='%{avx512} contract=true steps=false profitability=false' 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} contract=true profitability=false' 2>/dev/null | %polyrs-translate --cpu=znver4 --emit=asm - | FileCheck %s --check-prefix=FMA
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | %polyrs-translate --cpu=znver4 --emit=asm - | FileCheck %s --check-prefix=NOFMA

// REMARK: remark: poly-opt: 1 statement, {{.*}}legality verified; multiply-adds may be fused (contract); target znver4
// REMARK: remark: poly-opt: 3 statements, {{.*}}legality verified; multiply-adds may be fused (contract), except in S1: a chain along its innermost loop; target znver4

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

// A statement whose innermost loop waits on its own previous instance
// (trisolv's x[i] -= L[i][j] * x[j] along j, kept in a register: a chain
// bound by latency) keeps its multiply and subtract apart: fused, each link
// of the chain would take a multiply-add's latency instead of a subtract's.
// The other nest's statement, with no chain, is fused.
// CHECK-LABEL: func.func @chain
// CHECK: arith.mulf {{.*}} fastmath<contract> : f64
// CHECK-NEXT: arith.addf {{.*}} fastmath<contract> : f64
// CHECK: iter_args
// CHECK: arith.mulf {{%[0-9]+}}, {{%[0-9]+}} : f64
// CHECK-NEXT: arith.subf {{%arg[0-9]+}}, {{%[0-9]+}} : f64
func.func @chain(%L: memref<64x64xf64>, %x: memref<64xf64>, %b: memref<64xf64>, %A: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    %bi = affine.load %b[%i] : memref<64xf64>
    affine.store %bi, %x[%i] : memref<64xf64>
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %l = affine.load %L[%i, %j] : memref<64x64xf64>
      %xj = affine.load %x[%j] : memref<64xf64>
      %xi = affine.load %x[%i] : memref<64xf64>
      %p = arith.mulf %l, %xj : f64
      %s = arith.subf %xi, %p : f64
      affine.store %s, %x[%i] : memref<64xf64>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<64x64xf64>
      %c = affine.load %C[%i, %j] : memref<64x64xf64>
      %q = arith.mulf %a, %a : f64
      %t = arith.addf %c, %q : f64
      affine.store %t, %C[%i, %j] : memref<64x64xf64>
    }
  }
  return
}
