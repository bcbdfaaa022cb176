// A gemm whose sizes are arguments (n x m x p: the shapes a front end
// hands over when they are not known at compile time). Its register tiles
// keep what they get with constant sizes:
//
// * the operands a block row reuses across its blocks (alpha * A[i][k], 16
//   rows) are computed once per block row into a buffer
//   (`codegen/tree/buffers.rs`). The loop over the row's whole blocks ends
//   at floor((m - 8) / 8) under a symbolic m, a bound with a divisor,
//   which the buffers stage refused: the buffer is now filled under the
//   condition that the loop runs, `floor(m / 8) - 1 - 64 t >= 0` (a
//   floordiv in an affine set);
// * tiles of the panel's width (512 columns on Zen 4, the target's
//   `panel_tile`) and of 8 rows of blocks (`TRIANGLE_BLOCK_ROWS`) where
//   the extents are symbolic, instead of the default 32x256
//   (`transform/sizes.rs`).
//
// At PolyBench's LARGE size (1000 x 1100 x 1200) with the sizes as
// arguments (2 threads, AMD EPYC Zen 4): 0.121 s before, 0.038 s now, the
// constant sizes' 0.032 s. Results identical, digit for digit, to the
// input's, with partial blocks and tiles in every direction.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2' 2> %t.avx2.remarks | %polyrs-runner --threads=3 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 broadcasts=fast' 2>/dev/null | %polyrs-runner --threads=2 - > %t.wide
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.wide
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.avx2.remarks --check-prefix=AVX2
// RUN: FileCheck %s --input-file=%t.mlir
//
// SUMS-COUNT-1: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: 2 statements, {{.*}}; register tile 16x8; band of 3 loops tiled 32x256x32 / 128x512x128; block-invariant operands computed once per block row (1 loop); legality verified
// AVX2: remark: poly-opt: 2 statements, {{.*}}; register tile 4x8; band of 3 loops tiled 32x128x32 / 32x256x128; block-invariant operands computed once per block row (1 loop); legality verified
//
// The fill of the buffer runs where the loop over the blocks runs.
// CHECK: #[[RUNS:set[0-9]*]] = affine_set<(d0)[s0] : (d0 * -64 + s0 floordiv 8 - 1 >= 0)>
// CHECK-LABEL: func.func @gemm(
// CHECK: memref.alloca() : memref<128x16xf64>
// CHECK: affine.if #[[RUNS]](%{{.*}})[%{{.*}}] {
// CHECK-NEXT: affine.for
// CHECK: affine.store %{{.*}}, %alloca[%{{.*}} mod 128, 0] : memref<128x16xf64>

func.func private @printI64(i64)
func.func private @printNewline()

// C = beta C + alpha A B, with n x m x p as arguments.
func.func @gemm(%alpha: f64, %beta: f64, %C: memref<?x?xf64>, %A: memref<?x?xf64>, %B: memref<?x?xf64>, %n: index, %m: index, %p: index) {
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %c = affine.load %C[%i, %j] : memref<?x?xf64>
      %c2 = arith.mulf %c, %beta : f64
      affine.store %c2, %C[%i, %j] : memref<?x?xf64>
    }
    affine.for %k = 0 to %p {
      affine.for %j = 0 to %m {
        %a = affine.load %A[%i, %k] : memref<?x?xf64>
        %aa = arith.mulf %alpha, %a : f64
        %b = affine.load %B[%k, %j] : memref<?x?xf64>
        %ab = arith.mulf %aa, %b : f64
        %c = affine.load %C[%i, %j] : memref<?x?xf64>
        %s = arith.addf %c, %ab : f64
        affine.store %s, %C[%i, %j] : memref<?x?xf64>
      }
    }
  }
  return
}

// X[i][j] = ((a i + b j) mod 13) / 4 - 1.
func.func @fill(%X: memref<?x?xf64>, %r: index, %c: index, %a: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %four = arith.constant 4.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %r step %c1 {
    scf.for %j = %c0 to %c step %c1 {
      %ai = arith.muli %a, %i : index
      %w0 = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 3) mod 13)>(%ai, %j)
      %wi = arith.index_cast %w0 : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %w = arith.divf %wf, %four : f64
      %v = arith.subf %w, %one : f64
      memref.store %v, %X[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Prints the bits of the sum of X[i][j] * (1 + (i + 2j) mod 5).
func.func @sum(%X: memref<?x?xf64>, %r: index, %c: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %t = scf.for %i = %c0 to %r step %c1 iter_args(%acc = %z) -> (f64) {
    %s = scf.for %j = %c0 to %c step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %X[%i, %j] : memref<?x?xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %q = arith.mulf %v, %wf : f64
      %r2 = arith.addf %a2, %q : f64
      scf.yield %r2 : f64
    }
    scf.yield %s : f64
  }
  %bits = arith.bitcast %t : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

// 150 x 1043 x 29: a partial block of rows (150 = 9 * 16 + 6), of columns
// (1043 = 130 * 8 + 3) and a partial tile of the columns (1043 = 2 * 512 +
// 19).
func.func @main() {
  %n = arith.constant 150 : index
  %m = arith.constant 1043 : index
  %p = arith.constant 29 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.25 : f64
  %C = memref.alloc(%n, %m) : memref<?x?xf64>
  %A = memref.alloc(%n, %p) : memref<?x?xf64>
  %B = memref.alloc(%p, %m) : memref<?x?xf64>
  func.call @fill(%C, %n, %m, %c3) : (memref<?x?xf64>, index, index, index) -> ()
  func.call @fill(%A, %n, %p, %c5) : (memref<?x?xf64>, index, index, index) -> ()
  func.call @fill(%B, %p, %m, %c7) : (memref<?x?xf64>, index, index, index) -> ()
  func.call @gemm(%alpha, %beta, %C, %A, %B, %n, %m, %p) : (f64, f64, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, index, index, index) -> ()
  func.call @sum(%C, %n, %m) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %C : memref<?x?xf64>
  memref.dealloc %A : memref<?x?xf64>
  memref.dealloc %B : memref<?x?xf64>
  return
}
