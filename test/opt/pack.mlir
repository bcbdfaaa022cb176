// Packing of a register tile's row-invariant operands: the values its
// blocks read that do not change from one block row to the next (gemm's
// B[k][j], which depends on k and j only) are copied once per tile, before
// the loop over the block rows, into a buffer on the stack laid out block
// by block ([block][k mod T][lane]), and the blocks read them from there:
// one contiguous panel per block instead of one row of B per value of k.
// Where the blocks already read each operand as whole vectors in place
// (B's lanes side by side), the copy pays only for 16 rows of blocks or
// more; where the lanes come from different rows (A[j][k]: a gather), from
// 4. The results must be identical, digit for digit (2 threads), with full
// and partial blocks, with and without parallel loops, packed or not.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=2,4 tile-sizes=16,256,32 profitability=false' 2>&1 | FileCheck %s --check-prefix=FEW
// RUN: %polyrs-opt %s --poly-opt='%{avx512} pack=false register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' | %polyrs-runner --threads=2 - > %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=2,4 tile-sizes=16,256,32 profitability=false' | %polyrs-runner --threads=2 - > %t.few
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=3,4 tile-sizes=48,256,32 profitability=false' | %polyrs-runner --threads=2 - > %t.partial
// RUN: %polyrs-opt %s --poly-opt='%{avx512} parallel=false register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' | %polyrs-runner --threads=2 - > %t.seq
// RUN: %polyrs-opt %s --poly-opt='%{avx512} contract=false' | %polyrs-runner --threads=2 - > %t.default
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 contract=false' | %polyrs-runner --threads=2 - > %t.avx2
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.few
// RUN: diff %t.before %t.partial
// RUN: diff %t.before %t.seq
// RUN: diff %t.before %t.default
// RUN: diff %t.before %t.avx2
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS-COUNT-8: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
// The same with the packed blocks' partial rows (3x4 blocks in tiles of 48
// rows: 16 rows of blocks, the last partial):
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=3,4 tile-sizes=48,256,32 profitability=false' 2>&1 | FileCheck %s --check-prefix=PARTIAL
// On AVX2 (16 registers), rows of two arrays (syr2k's alpha * A[j][k] and
// alpha * B[j][k]) are packed by a loop per array: a loop that transposes
// rows holds two vectors per row and the broadcast alpha, at most 7 rows
// there; the slots of each loop lie apart ([block][loop][k mod T][lane]).
// AVX-512's 32 registers take the 8 rows in one loop.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' | %polyrs-runner --threads=2 - > %t.groups
// RUN: diff %t.before %t.groups
// PARTIAL: pack.mlir:78:3: remark: poly-opt: {{.*}}register tile 3x4; {{.*}}; row-invariant operands packed once per tile (1 loop)

// CHECK: pack.mlir:78:3: remark: poly-opt: {{.*}}register tile 2x4; {{.*}}; block-invariant operands computed once per block row (1 loop); row-invariant operands packed once per tile (1 loop); legality verified
// FEW: pack.mlir:78:3: remark: poly-opt: {{.*}}register tile 2x4; band of 3 loops tiled 16x256x32; block-invariant operands computed once per block row (1 loop); legality verified
// OFF-NOT: packed
// CHECK-LABEL: func.func @gemm
// The buffer, 16 blocks of 4 lanes by 32 values of k, in the parallel body:
// CHECK:      affine.parallel
// CHECK-NEXT: memref.alloca() : memref<32x2xf64>
// CHECK-NEXT: %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x32x4xf64>
// The copy, for each tile of k, before the loop over the rows of blocks:
// CHECK-NEXT: affine.for %[[KT:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 16 {
// CHECK-NEXT: affine.for %[[K:.*]] = #{{.*}}(%[[KT]]) to #{{.*}}(%[[KT]]) {
// CHECK-NEXT: %[[B0:.*]] = affine.load %arg1[%[[K]], %[[J]] * 4]
// CHECK-NEXT: affine.store %[[B0]], %[[BUF]][%[[J]], %[[K]] mod 32, 0]
// CHECK-NEXT: %[[B1:.*]] = affine.load %arg1[%[[K]], %[[J]] * 4 + 1]
// CHECK-NEXT: affine.store %[[B1]], %[[BUF]][%[[J]], %[[K]] mod 32, 1]
// CHECK:      affine.store %{{.*}}, %[[BUF]][%[[J]], %[[K]] mod 32, 3]
// CHECK-NEXT: }
// CHECK-NEXT: }
// The blocks read B's panel from the buffer, B itself not at all:
// CHECK-NEXT: affine.for %[[I:.*]] =
// CHECK:      affine.for %[[J2:.*]] = 0 to 16 {
// CHECK:      affine.for %[[K2:.*]] = {{.*}} iter_args(
// CHECK-NOT:  %arg1[
// CHECK:      affine.load %[[BUF]][%[[J2]], %[[K2]] mod 32, 0]
// CHECK-NOT:  %arg1[
// CHECK:      affine.load %[[BUF]][%[[J2]], %[[K2]] mod 32, 3]
// CHECK-NOT:  %arg1[
// CHECK:      affine.yield
// FEW-LABEL:  func.func @gemm
// FEW-NOT:    memref.alloca() {alignment = 64 : i64}
// FEW:        return
func.func @gemm(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>, %alpha: f64) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<64x64xf64>
        %s = arith.mulf %alpha, %a : f64
        %b = affine.load %B[%k, %j] : memref<64x64xf64>
        %p = arith.mulf %s, %b : f64
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %r = arith.addf %c, %p : f64
        affine.store %r, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}

// alpha * B[k][j] (row-invariant arithmetic): the copy computes it.
// CHECK-LABEL: func.func @scaled
// CHECK:       %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x32x4xf64>
// CHECK:       %[[B0:.*]] = affine.load %arg1[
// CHECK-NEXT:  %[[S0:.*]] = arith.mulf %arg3, %[[B0]] : f64
// CHECK-NEXT:  affine.store %[[S0]], %[[BUF]][
// CHECK:       iter_args(
// CHECK-NOT:   %arg1[
// CHECK:       affine.yield
func.func @scaled(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>, %alpha: f64) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %b = affine.load %B[%k, %j] : memref<64x64xf64>
        %s = arith.mulf %alpha, %b : f64
        %a = affine.load %A[%i, %k] : memref<64x64xf64>
        %p = arith.mulf %a, %s : f64
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %r = arith.addf %c, %p : f64
        affine.store %r, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}

// A[j][k]: the block's lanes come from four rows of A (a gather in place);
// packed side by side, even with 8 rows of blocks.
// CHECK-LABEL: func.func @rows
// CHECK:       %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x32x4xf64>
// CHECK:       affine.load %arg0[%[[J:.*]] * 4, %[[K:.*]]]
// CHECK-NEXT:  affine.store %{{.*}}, %[[BUF]][%[[J]], %[[K]] mod 32, 0]
// CHECK-NEXT:  affine.load %arg0[%[[J]] * 4 + 1, %[[K]]]
// CHECK-NEXT:  affine.store %{{.*}}, %[[BUF]][%[[J]], %[[K]] mod 32, 1]
// FEW-LABEL:   func.func @rows
// FEW:         memref.alloca() {alignment = 64 : i64} : memref<16x32x4xf64>
func.func @rows(%A: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<64x64xf64>
        %b = affine.load %A[%j, %k] : memref<64x64xf64>
        %p = arith.mulf %a, %b : f64
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %r = arith.addf %c, %p : f64
        affine.store %r, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}

// CHECK-LABEL: func.func @pairs
// CHECK:       memref.alloca() {alignment = 64 : i64} : memref<16x32x8xf64>
// CHECK-NOT:   memref.alloca() {alignment = 64 : i64}
// CHECK:       return
// AVX2-LABEL:  func.func @pairs
// AVX2:        %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x2x32x4xf64>
// AVX2:        affine.for %[[J:.*]] = 0 to 16 {
// AVX2-NEXT:   affine.for %[[K:.*]] = #{{.*}} to #{{.*}} {
// AVX2-NEXT:   affine.load %arg0[%[[J]] * 4, %[[K]]]
// AVX2-NEXT:   arith.mulf
// AVX2-NEXT:   affine.store %{{.*}}, %[[BUF]][%[[J]], 0, %[[K]] mod 32, 0]
// AVX2:        affine.store %{{.*}}, %[[BUF]][%[[J]], 0, %[[K]] mod 32, 3]
// AVX2-NEXT:   }
// AVX2-NEXT:   affine.for %[[K1:.*]] = #{{.*}} to #{{.*}} {
// AVX2-NEXT:   affine.load %arg1[%[[J]] * 4, %[[K1]]]
// AVX2-NEXT:   arith.mulf
// AVX2-NEXT:   affine.store %{{.*}}, %[[BUF]][%[[J]], 1, %[[K1]] mod 32, 0]
// AVX2:        affine.store %{{.*}}, %[[BUF]][%[[J]], 1, %[[K1]] mod 32, 3]
// AVX2-NEXT:   }
// AVX2-NEXT:   }
// The blocks read both groups, A and B themselves only at their own rows:
// AVX2:        iter_args(
// AVX2:        affine.load %[[BUF]][%{{.*}}, 0, %{{.*}} mod 32, 0]
// AVX2:        affine.load %[[BUF]][%{{.*}}, 1, %{{.*}} mod 32, 3]
// AVX2:        affine.yield
// AVX2:        return
func.func @pairs(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>, %alpha: f64) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%j, %k] : memref<64x64xf64>
        %s = arith.mulf %a, %alpha : f64
        %b = affine.load %B[%i, %k] : memref<64x64xf64>
        %p = arith.mulf %s, %b : f64
        %b2 = affine.load %B[%j, %k] : memref<64x64xf64>
        %s2 = arith.mulf %b2, %alpha : f64
        %a2 = affine.load %A[%i, %k] : memref<64x64xf64>
        %p2 = arith.mulf %s2, %a2 : f64
        %q = arith.addf %p, %p2 : f64
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %r = arith.addf %c, %q : f64
        affine.store %r, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}

// A constant inside the body (2.0 in place of alpha) is a broadcast too:
// LLVM keeps it in a register throughout the loop, so AVX2's 8 rows are
// packed by two loops of 4 as in @pairs.
// CHECK-LABEL: func.func @doubled
// CHECK:       memref.alloca() {alignment = 64 : i64} : memref<16x32x8xf64>
// CHECK:       return
// AVX2-LABEL:  func.func @doubled
// AVX2:        memref.alloca() {alignment = 64 : i64} : memref<16x2x32x4xf64>
// AVX2:        return
func.func @doubled(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %two = arith.constant 2.0 : f64
        %a = affine.load %A[%j, %k] : memref<64x64xf64>
        %s = arith.mulf %a, %two : f64
        %b = affine.load %B[%i, %k] : memref<64x64xf64>
        %p = arith.mulf %s, %b : f64
        %b2 = affine.load %B[%j, %k] : memref<64x64xf64>
        %s2 = arith.mulf %b2, %two : f64
        %a2 = affine.load %A[%i, %k] : memref<64x64xf64>
        %p2 = arith.mulf %s2, %a2 : f64
        %q = arith.addf %p, %p2 : f64
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %r = arith.addf %c, %q : f64
        affine.store %r, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}

// What computes the loads' subscripts (63 - k) is no broadcast: addresses
// stay out of the vector registers, and AVX2's 8 rows fit one loop.
// AVX2-LABEL:  func.func @reversed
// AVX2:        memref.alloca() {alignment = 64 : i64} : memref<16x32x8xf64>
// AVX2-NOT:    memref.alloca() {alignment = 64 : i64}
// AVX2:        return
func.func @reversed(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %r = affine.apply affine_map<(d0) -> (63 - d0)>(%k)
        %a = affine.load %A[%j, %r] : memref<64x64xf64>
        %b = affine.load %B[%i, %r] : memref<64x64xf64>
        %p = arith.mulf %a, %b : f64
        %b2 = affine.load %B[%j, %r] : memref<64x64xf64>
        %a2 = affine.load %A[%i, %r] : memref<64x64xf64>
        %p2 = arith.mulf %b2, %a2 : f64
        %q = arith.addf %p, %p2 : f64
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %s = arith.addf %c, %q : f64
        affine.store %s, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}

// B is written in the SCoP, but after the product, by a nest of its own:
// no statement inside the product's loops writes it, so the copy made
// before them holds the values its blocks read (3mm's G = E * F, E and F
// computed in the SCoP). The blocks read the buffer, B itself not at all.
// CHECK-LABEL: func.func @written
// CHECK:       %[[WBUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x32x4xf64>
// CHECK:       affine.load %arg1[
// CHECK-NEXT:  affine.store %{{.*}}, %[[WBUF]][
// CHECK:       iter_args(
// CHECK-NOT:   %arg1[
// CHECK:       affine.load %[[WBUF]][
// CHECK-NOT:   %arg1[
// CHECK:       affine.yield
// The later nest writes B:
// CHECK:       affine.store %{{.*}}, %arg1[
// CHECK:       return
func.func @written(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>, %alpha: f64) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<64x64xf64>
        %b = affine.load %B[%k, %j] : memref<64x64xf64>
        %p = arith.mulf %a, %b : f64
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %r = arith.addf %c, %p : f64
        affine.store %r, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  affine.for %k = 0 to 64 {
    affine.for %j = 0 to 64 {
      %b = affine.load %B[%k, %j] : memref<64x64xf64>
      %d = arith.addf %b, %alpha : f64
      affine.store %d, %B[%k, %j] : memref<64x64xf64>
    }
  }
  return
}

// A triangle (j <= i): the blocks' loop depends on the row; no copy where
// it does (the results are checked).
func.func @triangle(%A: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<64x64xf64>
        %b = affine.load %A[%j, %k] : memref<64x64xf64>
        %p = arith.mulf %a, %b : f64
        %c = affine.load %C[%i, %j] : memref<64x64xf64>
        %r = arith.addf %c, %p : f64
        affine.store %r, %C[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @fill(%A: memref<64x64xf64>, %seed: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7.0 : f64
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = affine.apply affine_map<(d0, d1)[s0] -> ((d0 * 7 + d1 * 3 + s0) mod 11)>(%i, %j)[%seed]
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

// Prints the bits of Σ C[i][j] · (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<64x64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c64 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<64x64xf64>
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
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %alpha = arith.constant 1.3 : f64
  %A = memref.alloc() : memref<64x64xf64>
  %B = memref.alloc() : memref<64x64xf64>
  %C = memref.alloc() : memref<64x64xf64>
  func.call @fill(%A, %c1) : (memref<64x64xf64>, index) -> ()
  func.call @fill(%B, %c2) : (memref<64x64xf64>, index) -> ()
  func.call @fill(%C, %c5) : (memref<64x64xf64>, index) -> ()
  func.call @gemm(%A, %B, %C, %alpha) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>, f64) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  func.call @scaled(%A, %B, %C, %alpha) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>, f64) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  func.call @rows(%A, %C) : (memref<64x64xf64>, memref<64x64xf64>) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  func.call @pairs(%A, %B, %C, %alpha) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>, f64) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  func.call @written(%A, %B, %C, %alpha) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>, f64) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  func.call @triangle(%B, %C) : (memref<64x64xf64>, memref<64x64xf64>) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  func.call @doubled(%A, %B, %C) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  func.call @reversed(%A, %B, %C) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  memref.dealloc %A : memref<64x64xf64>
  memref.dealloc %B : memref<64x64xf64>
  memref.dealloc %C : memref<64x64xf64>
  return
}
