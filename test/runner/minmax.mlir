// arith.maximumf / arith.minimumf give NaN when an operand is NaN and order
// -0 below +0, vectorized (vector lanes and the scalar remainder), with the
// vrange form of src/lower/minmax.rs (the default on CPUs with AVX-512 DQ
// and VL) and with LLVM's own lowering: main prints how many of the 151
// pairs of special and ordinary values (NaNs of both signs, infinities,
// zeros of both signs, subnormals) differ from a reference computed from
// comparisons and bits.
// RUN: %polyrs-runner %s | FileCheck %s
// RUN: %polyrs-runner --no-range-minmax %s | FileCheck %s
// CHECK: f32 wrong 0
// CHECK-NEXT: f64 wrong 0
// For an AVX-512 CPU, whatever the host, the translator gives the vrange
// form; without it, or for a CPU without AVX-512, LLVM's.
// RUN: %polyrs-translate --cpu=znver4 --emit=asm %s | FileCheck %s --check-prefix=RANGE
// RANGE-DAG: vrangeps $5, %zmm
// RANGE-DAG: vrangeps $4, %zmm
// RANGE-DAG: vrangepd $5, %zmm
// RANGE-DAG: vrangepd $4, %zmm
// RANGE-DAG: vrangess $5,
// RANGE-DAG: vrangesd $4,
// RUN: %polyrs-translate --cpu=znver4 --no-range-minmax --emit=asm %s | FileCheck %s --check-prefix=LLVM
// RUN: %polyrs-translate --cpu=haswell --emit=asm %s | FileCheck %s --check-prefix=LLVM
// LLVM-NOT: vrange

func.func private @printString(!llvm.ptr)
func.func private @printI64(i64)
func.func private @printNewline()
llvm.mlir.global internal constant @f32_label("f32 wrong \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @f64_label("f64 wrong \00") {addr_space = 0 : i32}

func.func @check_f32() -> i64 {
  %V = memref.alloc() : memref<12xf32>
  %v0 = arith.constant 1.0 : f32
  %k0 = arith.constant 0 : index
  memref.store %v0, %V[%k0] : memref<12xf32>
  %v1 = arith.constant -1.0 : f32
  %k1 = arith.constant 1 : index
  memref.store %v1, %V[%k1] : memref<12xf32>
  %v2 = arith.constant 0.0 : f32
  %k2 = arith.constant 2 : index
  memref.store %v2, %V[%k2] : memref<12xf32>
  %v3 = arith.constant -0.0 : f32
  %k3 = arith.constant 3 : index
  memref.store %v3, %V[%k3] : memref<12xf32>
  %v4 = arith.constant 0x7FC00000 : f32
  %k4 = arith.constant 4 : index
  memref.store %v4, %V[%k4] : memref<12xf32>
  %v5 = arith.constant 0xFFC00000 : f32
  %k5 = arith.constant 5 : index
  memref.store %v5, %V[%k5] : memref<12xf32>
  %v6 = arith.constant 0x7F800000 : f32
  %k6 = arith.constant 6 : index
  memref.store %v6, %V[%k6] : memref<12xf32>
  %v7 = arith.constant 0xFF800000 : f32
  %k7 = arith.constant 7 : index
  memref.store %v7, %V[%k7] : memref<12xf32>
  %v8 = arith.constant 1.0e-40 : f32
  %k8 = arith.constant 8 : index
  memref.store %v8, %V[%k8] : memref<12xf32>
  %v9 = arith.constant -1.0e-40 : f32
  %k9 = arith.constant 9 : index
  memref.store %v9, %V[%k9] : memref<12xf32>
  %v10 = arith.constant 2.0 : f32
  %k10 = arith.constant 10 : index
  memref.store %v10, %V[%k10] : memref<12xf32>
  %v11 = arith.constant 3.5 : f32
  %k11 = arith.constant 11 : index
  memref.store %v11, %V[%k11] : memref<12xf32>
  %A = memref.alloc() : memref<151xf32>
  %B = memref.alloc() : memref<151xf32>
  %C = memref.alloc() : memref<151xf32>
  %D = memref.alloc() : memref<151xf32>
  // A[p], B[p]: every ordered pair of the values, the first pairs again after them.
  affine.for %p = 0 to 151 {
    %a = affine.load %V[(%p floordiv 12) mod 12] : memref<12xf32>
    %b = affine.load %V[%p mod 12] : memref<12xf32>
    affine.store %a, %A[%p] : memref<151xf32>
    affine.store %b, %B[%p] : memref<151xf32>
  }
  // The operations under test, in a loop LLVM vectorizes.
  affine.for %p = 0 to 151 {
    %a = affine.load %A[%p] : memref<151xf32>
    %b = affine.load %B[%p] : memref<151xf32>
    %mx = arith.maximumf %a, %b : f32
    %mn = arith.minimumf %a, %b : f32
    affine.store %mx, %C[%p] : memref<151xf32>
    affine.store %mn, %D[%p] : memref<151xf32>
  }
  // The reference, from comparisons and bits: NaN when an operand is;
  // of equal operands (+0 and -0 among them) the AND of their bits for
  // the maximum, the OR for the minimum; else the larger (smaller).
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %bad = affine.for %p = 0 to 151 iter_args(%n = %zero) -> (i64) {
    %a = affine.load %A[%p] : memref<151xf32>
    %b = affine.load %B[%p] : memref<151xf32>
    %mx = affine.load %C[%p] : memref<151xf32>
    %mn = affine.load %D[%p] : memref<151xf32>
    %ia = arith.bitcast %a : f32 to i32
    %ib = arith.bitcast %b : f32 to i32
    %nan = arith.cmpf uno, %a, %b : f32
    %eq = arith.cmpf oeq, %a, %b : f32
    %gt = arith.cmpf ogt, %a, %b : f32
    %both_and = arith.andi %ia, %ib : i32
    %both_or = arith.ori %ia, %ib : i32
    %larger = arith.select %gt, %ia, %ib : i32
    %smaller = arith.select %gt, %ib, %ia : i32
    %wmx = arith.select %eq, %both_and, %larger : i32
    %wmn = arith.select %eq, %both_or, %smaller : i32
    %imx = arith.bitcast %mx : f32 to i32
    %imn = arith.bitcast %mn : f32 to i32
    %okmx = arith.cmpi eq, %imx, %wmx : i32
    %okmn = arith.cmpi eq, %imn, %wmn : i32
    %ok = arith.andi %okmx, %okmn : i1
    %nanmx = arith.cmpf uno, %mx, %mx : f32
    %nanmn = arith.cmpf uno, %mn, %mn : f32
    %oknan = arith.andi %nanmx, %nanmn : i1
    %good = arith.select %nan, %oknan, %ok : i1
    %inc = arith.select %good, %zero, %one : i64
    %m = arith.addi %n, %inc : i64
    affine.yield %m : i64
  }
  memref.dealloc %V : memref<12xf32>
  memref.dealloc %A : memref<151xf32>
  memref.dealloc %B : memref<151xf32>
  memref.dealloc %C : memref<151xf32>
  memref.dealloc %D : memref<151xf32>
  return %bad : i64
}

func.func @check_f64() -> i64 {
  %V = memref.alloc() : memref<12xf64>
  %v0 = arith.constant 1.0 : f64
  %k0 = arith.constant 0 : index
  memref.store %v0, %V[%k0] : memref<12xf64>
  %v1 = arith.constant -1.0 : f64
  %k1 = arith.constant 1 : index
  memref.store %v1, %V[%k1] : memref<12xf64>
  %v2 = arith.constant 0.0 : f64
  %k2 = arith.constant 2 : index
  memref.store %v2, %V[%k2] : memref<12xf64>
  %v3 = arith.constant -0.0 : f64
  %k3 = arith.constant 3 : index
  memref.store %v3, %V[%k3] : memref<12xf64>
  %v4 = arith.constant 0x7FF8000000000000 : f64
  %k4 = arith.constant 4 : index
  memref.store %v4, %V[%k4] : memref<12xf64>
  %v5 = arith.constant 0xFFF8000000000000 : f64
  %k5 = arith.constant 5 : index
  memref.store %v5, %V[%k5] : memref<12xf64>
  %v6 = arith.constant 0x7FF0000000000000 : f64
  %k6 = arith.constant 6 : index
  memref.store %v6, %V[%k6] : memref<12xf64>
  %v7 = arith.constant 0xFFF0000000000000 : f64
  %k7 = arith.constant 7 : index
  memref.store %v7, %V[%k7] : memref<12xf64>
  %v8 = arith.constant 1.0e-310 : f64
  %k8 = arith.constant 8 : index
  memref.store %v8, %V[%k8] : memref<12xf64>
  %v9 = arith.constant -1.0e-310 : f64
  %k9 = arith.constant 9 : index
  memref.store %v9, %V[%k9] : memref<12xf64>
  %v10 = arith.constant 2.0 : f64
  %k10 = arith.constant 10 : index
  memref.store %v10, %V[%k10] : memref<12xf64>
  %v11 = arith.constant 3.5 : f64
  %k11 = arith.constant 11 : index
  memref.store %v11, %V[%k11] : memref<12xf64>
  %A = memref.alloc() : memref<151xf64>
  %B = memref.alloc() : memref<151xf64>
  %C = memref.alloc() : memref<151xf64>
  %D = memref.alloc() : memref<151xf64>
  // A[p], B[p]: every ordered pair of the values, the first pairs again after them.
  affine.for %p = 0 to 151 {
    %a = affine.load %V[(%p floordiv 12) mod 12] : memref<12xf64>
    %b = affine.load %V[%p mod 12] : memref<12xf64>
    affine.store %a, %A[%p] : memref<151xf64>
    affine.store %b, %B[%p] : memref<151xf64>
  }
  // The operations under test, in a loop LLVM vectorizes.
  affine.for %p = 0 to 151 {
    %a = affine.load %A[%p] : memref<151xf64>
    %b = affine.load %B[%p] : memref<151xf64>
    %mx = arith.maximumf %a, %b : f64
    %mn = arith.minimumf %a, %b : f64
    affine.store %mx, %C[%p] : memref<151xf64>
    affine.store %mn, %D[%p] : memref<151xf64>
  }
  // The reference, from comparisons and bits: NaN when an operand is;
  // of equal operands (+0 and -0 among them) the AND of their bits for
  // the maximum, the OR for the minimum; else the larger (smaller).
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %bad = affine.for %p = 0 to 151 iter_args(%n = %zero) -> (i64) {
    %a = affine.load %A[%p] : memref<151xf64>
    %b = affine.load %B[%p] : memref<151xf64>
    %mx = affine.load %C[%p] : memref<151xf64>
    %mn = affine.load %D[%p] : memref<151xf64>
    %ia = arith.bitcast %a : f64 to i64
    %ib = arith.bitcast %b : f64 to i64
    %nan = arith.cmpf uno, %a, %b : f64
    %eq = arith.cmpf oeq, %a, %b : f64
    %gt = arith.cmpf ogt, %a, %b : f64
    %both_and = arith.andi %ia, %ib : i64
    %both_or = arith.ori %ia, %ib : i64
    %larger = arith.select %gt, %ia, %ib : i64
    %smaller = arith.select %gt, %ib, %ia : i64
    %wmx = arith.select %eq, %both_and, %larger : i64
    %wmn = arith.select %eq, %both_or, %smaller : i64
    %imx = arith.bitcast %mx : f64 to i64
    %imn = arith.bitcast %mn : f64 to i64
    %okmx = arith.cmpi eq, %imx, %wmx : i64
    %okmn = arith.cmpi eq, %imn, %wmn : i64
    %ok = arith.andi %okmx, %okmn : i1
    %nanmx = arith.cmpf uno, %mx, %mx : f64
    %nanmn = arith.cmpf uno, %mn, %mn : f64
    %oknan = arith.andi %nanmx, %nanmn : i1
    %good = arith.select %nan, %oknan, %ok : i1
    %inc = arith.select %good, %zero, %one : i64
    %m = arith.addi %n, %inc : i64
    affine.yield %m : i64
  }
  memref.dealloc %V : memref<12xf64>
  memref.dealloc %A : memref<151xf64>
  memref.dealloc %B : memref<151xf64>
  memref.dealloc %C : memref<151xf64>
  memref.dealloc %D : memref<151xf64>
  return %bad : i64
}

func.func @main() {
  %n32 = func.call @check_f32() : () -> i64
  %l32 = llvm.mlir.addressof @f32_label : !llvm.ptr
  func.call @printString(%l32) : (!llvm.ptr) -> ()
  func.call @printI64(%n32) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %n64 = func.call @check_f64() : () -> i64
  %l64 = llvm.mlir.addressof @f64_label : !llvm.ptr
  func.call @printString(%l64) : (!llvm.ptr) -> ()
  func.call @printI64(%n64) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
