// Register blocks two vectors wide under a triangle: syrk's `j <= i`.
// With 8x16 blocks (8 rows i, 16 columns j), a block is full where its
// last row's diagonal lies past its last column, `16·q_v + 15 <= 8·q_u`
// for `j <= i`: a bound with a coefficient of 2 on the block loop. Code
// generation separates the loop over full blocks (unrolled, 128
// accumulators in iter_args) from the partial blocks along the diagonal
// (guarded loops) at `q_u floordiv 2`, as it does unit bounds; before, the
// two shared one guarded loop over every block of a tile crossing the
// diagonal, and wide blocks were 2.3x slower on correlation. The results
// must be identical, digit for digit, to the untransformed program's
// (parallel loops on 2 OpenMP threads), with several tile shapes.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false tile-sizes=32' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.t32
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' | %polyrs-runner --threads=2 - > %t.default
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false tile-sizes=16,48,8' | %polyrs-runner --threads=2 - > %t.odd
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false tile-sizes=32 register-tile-sizes=3,16' | %polyrs-runner --threads=2 - > %t.rows3
// With contract=true on AVX2, blocks of the target's shape take 6 rows
// (three quarters of the 16 ymm registers hold accumulators), which do not
// divide the triangle's tiles of 32 rows: they take the most rows that do,
// 4 (before: no register tile at all, 4-7x slower on syrk, trmm and symm
// at LARGE); the loop inside the blocks takes the target's tile (128: the
// blocks read rows of A, A[j][k] along j, which the emitter packs, see
// sizes::triangle_tile_sizes). The sums are integers: exact with fused
// multiply-adds too.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false contract=true' 2> %t.fma-remarks | %polyrs-runner --threads=2 - > %t.fma
// RUN: diff %t.before %t.fma
// RUN: FileCheck %s --input-file=%t.fma-remarks --check-prefix=FMA
// FMA: remark: poly-opt: {{.*}}register tile 4x8; band of 3 loops tiled 32x128x128;{{.*}}multiply-adds may be fused (contract); target znver3
// RUN: diff %t.before %t.t32
// RUN: diff %t.before %t.default
// RUN: diff %t.before %t.odd
// RUN: diff %t.before %t.rows3
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false tile-sizes=32' 2>/dev/null | FileCheck %s
//
// SUMS: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: {{.*}}register tile 8x16; band of 3 loops tiled 32x32x32;
//
// CHECK-DAG: #[[FULL:map[0-9]*]] = affine_map<(d0) -> (d0 floordiv 2)>
// CHECK-DAG: #[[PART:map[0-9]*]] = affine_map<(d0) -> ((d0 - 1) ceildiv 2)>
// CHECK-LABEL: func.func @syrk
// The full blocks: q_v from 0 while 2·q_v <= q_u - 1 (below the diagonal's
// block), the loop over k carrying the block's 8 x 16 accumulators.
// CHECK: affine.for %{{.*}} = 0 to #[[FULL]](%{{.*}}) {
// CHECK: %{{[0-9]+}}:128 = affine.for %{{.*}} = 0 to 30 iter_args(
// The partial blocks along the diagonal, in loops of their own.
// CHECK: affine.for %{{.*}} = #[[PART]](%{{.*}}) to

func.func private @printI64(i64)
func.func private @printNewline()

func.func @syrk(%C: memref<40x40xf64>, %A: memref<40x30xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      affine.for %k = 0 to 30 {
        %c = affine.load %C[%i, %j] : memref<40x40xf64>
        %a = affine.load %A[%i, %k] : memref<40x30xf64>
        %b = affine.load %A[%j, %k] : memref<40x30xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<40x40xf64>
      }
    }
  }
  return
}

func.func @fill(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      %x = arith.addf %w, %one : f64
      memref.store %x, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Prints the bits of the sum of A[i][j] * (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %m step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<?x?xf64>
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
  %c30 = arith.constant 30 : index
  %c40 = arith.constant 40 : index
  %C = memref.alloc() : memref<40x40xf64>
  %A = memref.alloc() : memref<40x30xf64>
  %Cd = memref.cast %C : memref<40x40xf64> to memref<?x?xf64>
  %Ad = memref.cast %A : memref<40x30xf64> to memref<?x?xf64>
  func.call @fill(%Cd, %c40, %c40) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Ad, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @syrk(%C, %A) : (memref<40x40xf64>, memref<40x30xf64>) -> ()
  func.call @sum(%Cd, %c40, %c40) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %C : memref<40x40xf64>
  memref.dealloc %A : memref<40x30xf64>
  return
}
