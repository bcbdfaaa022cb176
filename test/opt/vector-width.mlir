// On the Intel AVX-512 CPUs whose LLVM tuning prefers 256-bit vectors
// (src/target/mod.rs, PREFER_256_BIT: skylake-avx512 here), a plan with
// register tiles is made for the CPU's 512-bit registers, and its function
// asks LLVM for them (`passthrough = [["prefer-vector-width", "512"]]`,
// which convert-func-to-llvm keeps and LLVM reads as the function attribute
// "prefer-vector-width"="512"): gemm's blocks are then 8x16 doubles, 16 zmm
// accumulators, and the cache tiles follow the 512-bit model (as znver4's in
// target.mlir). Functions without register tiles keep LLVM's width and get
// no attribute; an explicit vector-bits is taken as given.
//
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 threads=2 profitability=false' 2>%t.err | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// REMARK: remark: poly-opt: 1 statement, {{.*}}register tile 8x16; band of 3 loops tiled 256x512x64; {{.*}}legality verified; register tiles in 512-bit vectors (prefer-vector-width=512 on the function); target skylake-avx512 (512-bit vectors, 32 registers, FMA, L1d 32 KiB, L2 1024 KiB, 2 cores)
// REMARK: remark: poly-opt: 1 statement, {{.*}}register tile 8x16; {{.*}}prefer-vector-width=512 on the function
// REMARK: remark: poly-opt: 1 statement, {{.*}}register tile 8x8; {{.*}}legality verified; target skylake-avx512 (256-bit vectors, 32 registers
// REMARK: remark: poly-opt: 1 statement, {{.*}}legality verified; target skylake-avx512 (256-bit vectors, 32 registers
//
// A passthrough list the function has is extended; a function that already
// names a width keeps it, and its plans are made for LLVM's width.
// IR-LABEL: func.func @gemm(
// IR-SAME: attributes {passthrough = {{\[}}["prefer-vector-width", "512"]]}
// IR-LABEL: func.func @gemm_noinline(
// IR-SAME: attributes {passthrough = ["noinline", ["prefer-vector-width", "512"]]}
// IR-LABEL: func.func @gemm_256(
// IR-SAME: attributes {passthrough = {{\[}}["prefer-vector-width", "256"]]}
// IR-LABEL: func.func @add(
// IR-NOT: passthrough
// IR: return
//
// Explicit vector-bits: 256-bit blocks (8x8), no attribute.
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 vector-bits=256 threads=2 profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NARROW
// NARROW-NOT: prefer-vector-width
// NARROW: register tile 8x8;{{.*}}target skylake-avx512 (256-bit vectors
// NARROW-NOT: prefer-vector-width
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 vector-bits=256 threads=2 profitability=false' 2>/dev/null | FileCheck %s --check-prefix=NARROWIR
// NARROWIR: func.func @gemm({{.*}}) {
// NARROWIR: func.func @gemm_noinline({{.*}}) attributes {passthrough = ["noinline"]} {
//
// CPUs whose tuning uses their widest vectors get no attribute.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' 2>/dev/null | FileCheck %s --check-prefix=NONE
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' 2>/dev/null | FileCheck %s --check-prefix=NONE
// NONE: func.func @gemm({{.*}}) {
// NONE: func.func @gemm_noinline({{.*}}) attributes {passthrough = ["noinline"]} {
// NONE: func.func @add({{.*}}) {
//
// The attribute reaches LLVM, whose code for the function is then in zmm
// registers; without it, in ymm.
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 threads=2 profitability=false' | %polyrs-translate --cpu=skylake-avx512 --emit=llvm - | FileCheck %s --check-prefix=LLVM
// LLVM: "prefer-vector-width"="512"
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 threads=2 profitability=false' | %polyrs-translate --cpu=skylake-avx512 --emit=asm - | FileCheck %s --check-prefix=ZMM
// ZMM-LABEL: gemm:
// ZMM: vmulpd {{.*}}zmm
// The stock mlir-opt with the plugin, then MLIR's own lowering and
// translation, carry it too.
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(poly-opt{cpu=skylake-avx512 threads=2 profitability=false}))' %s 2>/dev/null | %mlir-opt --lower-affine --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=STOCK
// STOCK: define void @gemm({{.*}}) #[[WIDE:[0-9]+]] {
// STOCK: define void @add({{.*}}) {
// STOCK: attributes #[[WIDE]] = { "prefer-vector-width"="512" }
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 vector-bits=256 threads=2 profitability=false' | %polyrs-translate --cpu=skylake-avx512 --emit=asm - | FileCheck %s --check-prefix=YMM
// YMM-NOT: zmm
// YMM: vmulpd {{.*}}ymm
// YMM-NOT: zmm
func.func @gemm(%A: memref<512x512xf64>, %B: memref<512x512xf64>, %C: memref<512x512xf64>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      affine.for %k = 0 to 512 {
        %a = affine.load %A[%i, %k] : memref<512x512xf64>
        %b = affine.load %B[%k, %j] : memref<512x512xf64>
        %c = affine.load %C[%i, %j] : memref<512x512xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<512x512xf64>
      }
    }
  }
  return
}

func.func @gemm_noinline(%A: memref<512x512xf64>, %B: memref<512x512xf64>, %C: memref<512x512xf64>) attributes {passthrough = ["noinline"]} {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      affine.for %k = 0 to 512 {
        %a = affine.load %A[%i, %k] : memref<512x512xf64>
        %b = affine.load %B[%k, %j] : memref<512x512xf64>
        %c = affine.load %C[%i, %j] : memref<512x512xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<512x512xf64>
      }
    }
  }
  return
}

func.func @gemm_256(%A: memref<512x512xf64>, %B: memref<512x512xf64>, %C: memref<512x512xf64>) attributes {passthrough = [["prefer-vector-width", "256"]]} {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      affine.for %k = 0 to 512 {
        %a = affine.load %A[%i, %k] : memref<512x512xf64>
        %b = affine.load %B[%k, %j] : memref<512x512xf64>
        %c = affine.load %C[%i, %j] : memref<512x512xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<512x512xf64>
      }
    }
  }
  return
}

func.func @add(%A: memref<512x512xf64>, %B: memref<512x512xf64>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      %a = affine.load %A[%i, %j] : memref<512x512xf64>
      %b = affine.load %B[%i, %j] : memref<512x512xf64>
      %s = arith.addf %a, %b : f64
      affine.store %s, %B[%i, %j] : memref<512x512xf64>
    }
  }
  return
}
