// Cyclic tiles: the parallel loop over a triangle's row tiles deals tile
// `t` to thread `t mod P` (a parallel loop over the threads around a
// sequential loop over each one's tiles) instead of leaving OpenMP's
// static schedule to hand the first thread the first half of the rows,
// the longest ones. @syrk's `C[i][j] += A[i][k] * A[j][k]` over `j <= i`
// (tiles of 32 rows of 128: 4 tiles, more than 2 or 3 threads) is dealt;
// @gemm's rectangle (every tile the same work) and a run with one thread
// are not. The results must be identical, digit for digit, before and
// after (parallel loops on 2 and 3 OpenMP threads), with AVX-512 and AVX2
// sizes and three threads' plan.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' | %polyrs-runner --threads=3 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} threads=3 profitability=false' 2> %t.remarks3 | %polyrs-runner --threads=3 - > %t.three
// RUN: %polyrs-opt %s --poly-opt='%{avx512} threads=1 profitability=false' 2> %t.remarks1 | %polyrs-runner --threads=2 - > %t.one
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.three
// RUN: diff %t.before %t.one
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks3 --check-prefix=THREE
// RUN: FileCheck %s --input-file=%t.remarks1 --check-prefix=ONE
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false print-plan' 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAN
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: cyclic.mlir:[[@LINE+16]]:3: remark: poly-opt: {{.*}}tiles of S0 dealt to 2 threads cyclically (a triangle's rows);{{.*}} legality verified
// REMARK: cyclic.mlir:[[@LINE+31]]:3: remark: poly-opt:
// REMARK-NOT: dealt
// REMARK-SAME: legality verified
// THREE: cyclic.mlir:[[@LINE+12]]:3: remark: poly-opt: {{.*}}tiles of S0 dealt to 3 threads cyclically
// ONE-NOT: dealt
//
// The thread loop is parallel, the rounds of tiles inside it sequential.
// PLAN: t0: tile of φ0 [parallel]
// PLAN-NEXT: t1: round of tiles dealt cyclically
// PLAN-NOT: [parallel]
// PLAN: loop tree
// PLAN-NEXT: parfor t0 = max(0) to min(1)
// PLAN-NEXT: for t1 =

func.func @syrk(%A: memref<128x128xf64>, %C: memref<128x128xf64>) {
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      affine.for %k = 0 to 128 {
        %a = affine.load %A[%i, %k] : memref<128x128xf64>
        %b = affine.load %A[%j, %k] : memref<128x128xf64>
        %c = affine.load %C[%i, %j] : memref<128x128xf64>
        %m = arith.mulf %a, %b : f64
        %s = arith.addf %c, %m : f64
        affine.store %s, %C[%i, %j] : memref<128x128xf64>
      }
    }
  }
  return
}

func.func @gemm(%A: memref<128x128xf64>, %C: memref<128x128xf64>) {
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 128 {
      affine.for %k = 0 to 128 {
        %a = affine.load %A[%i, %k] : memref<128x128xf64>
        %b = affine.load %A[%k, %j] : memref<128x128xf64>
        %c = affine.load %C[%i, %j] : memref<128x128xf64>
        %m = arith.mulf %a, %b : f64
        %s = arith.addf %c, %m : f64
        affine.store %s, %C[%i, %j] : memref<128x128xf64>
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// A[i][j] = ((7i + 3j) mod 11) / 7, plus 100 on the diagonal (positive
// pivots and square roots).
func.func @fill(%A: memref<128x128xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c7 = arith.constant 7.0 : f64
  %big = arith.constant 100.0 : f64
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<128x128xf64>
    }
    %x = memref.load %A[%i, %i] : memref<128x128xf64>
    %y = arith.addf %x, %big : f64
    memref.store %y, %A[%i, %i] : memref<128x128xf64>
  }
  return
}

// Prints the bits of the sum of A[i][j] * (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<128x128xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c128 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c128 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<128x128xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %p = arith.mulf %v, %wf : f64
      %n2 = arith.addf %a2, %p : f64
      scf.yield %n2 : f64
    }
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<128x128xf64>
  %C = memref.alloc() : memref<128x128xf64>
  func.call @fill(%A) : (memref<128x128xf64>) -> ()
  func.call @fill(%C) : (memref<128x128xf64>) -> ()
  func.call @syrk(%A, %C) : (memref<128x128xf64>, memref<128x128xf64>) -> ()
  func.call @sum(%C) : (memref<128x128xf64>) -> ()
  func.call @fill(%C) : (memref<128x128xf64>) -> ()
  func.call @gemm(%A, %C) : (memref<128x128xf64>, memref<128x128xf64>) -> ()
  func.call @sum(%C) : (memref<128x128xf64>) -> ()
  memref.dealloc %A : memref<128x128xf64>
  memref.dealloc %C : memref<128x128xf64>
  return
}
