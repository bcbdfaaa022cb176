// Register tiles with statements on the blocks' edges. Cholesky's group
// runs its dot products `A[i][j] -= A[i][k] * A[j][k]` along `k`, then the
// division `A[i][j] /= A[j][j]` at `k = j` and, on the diagonal, the sum of
// squares and the square root: statements that sit at one point of `k` per
// point of the other loops. They do not stop `k` from being the loop inside
// register blocks of `i` x `j` when the group's vector loop `j` would gather
// (`A[j][k]` down a column): the full blocks, below the diagonal, carry 8x8
// cells (AVX-512) or 4x4 (AVX2) in registers across `k`, and the partial
// ones along the diagonal hold the edge statements. Where the vector loop
// streams (`B[k][j]` along `j`, @streams), the edge statements keep the
// group without blocks, as before. The results must be identical, digit for
// digit, before and after (parallel loops on 2 and 3 OpenMP threads), with
// AVX-512 and AVX2 blocks, three threads' tiles and tiles of 16.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' 2> %t.remarks-avx2 | %polyrs-runner --threads=2 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} threads=3 tile-sizes=16 profitability=false' | %polyrs-runner --threads=3 - > %t.sixteen
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.sixteen
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks-avx2 --check-prefix=AVX2
// The partial blocks' rows along the diagonal (`j < i` at `i = 8q + a`)
// keep cells in registers across their `j` loops, loaded under a guard that
// the loop runs; at an unrolled row whose loop surely runs (`8q + a - 1 -
// 8q >= 0`), that guard is a constant and is left out, not emitted as
// `affine.if` on an empty set of operands.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s --check-prefix=GUARDS
// GUARDS-NOT: affine_set<() :
// GUARDS: func.func @cholesky
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: edge-blocks.mlir:[[@LINE+8]]:3: remark: poly-opt: 4 statements, {{.*}}register tile 8x8;{{.*}} legality verified
// REMARK-NOT: kept innermost
// REMARK: edge-blocks.mlir:[[@LINE+36]]:3: remark: poly-opt: 2 statements,
// REMARK-NOT: register tile
// REMARK-SAME: legality verified
// AVX2: edge-blocks.mlir:[[@LINE+3]]:3: remark: poly-opt: 4 statements, {{.*}}register tile 4x4;{{.*}} legality verified

func.func @cholesky(%A: memref<72x72xf64>) {
  affine.for %i = 0 to 72 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      affine.for %k = 0 to affine_map<(d0) -> (d0)>(%j) {
        %a = affine.load %A[%i, %k] : memref<72x72xf64>
        %b = affine.load %A[%j, %k] : memref<72x72xf64>
        %c = affine.load %A[%i, %j] : memref<72x72xf64>
        %m = arith.mulf %a, %b : f64
        %s = arith.subf %c, %m : f64
        affine.store %s, %A[%i, %j] : memref<72x72xf64>
      }
      %d = affine.load %A[%j, %j] : memref<72x72xf64>
      %e = affine.load %A[%i, %j] : memref<72x72xf64>
      %f = arith.divf %e, %d : f64
      affine.store %f, %A[%i, %j] : memref<72x72xf64>
    }
    affine.for %k = 0 to affine_map<(d0) -> (d0)>(%i) {
      %a = affine.load %A[%i, %k] : memref<72x72xf64>
      %c = affine.load %A[%i, %i] : memref<72x72xf64>
      %m = arith.mulf %a, %a : f64
      %s = arith.subf %c, %m : f64
      affine.store %s, %A[%i, %i] : memref<72x72xf64>
    }
    %g = affine.load %A[%i, %i] : memref<72x72xf64>
    %h = math.sqrt %g : f64
    affine.store %h, %A[%i, %i] : memref<72x72xf64>
  }
  return
}

func.func @streams(%A: memref<72x72xf64>, %B: memref<72x72xf64>) {
  affine.for %i = 0 to 72 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      affine.for %k = 0 to affine_map<(d0) -> (d0)>(%j) {
        %a = affine.load %A[%i, %k] : memref<72x72xf64>
        %b = affine.load %B[%k, %j] : memref<72x72xf64>
        %c = affine.load %A[%i, %j] : memref<72x72xf64>
        %m = arith.mulf %a, %b : f64
        %s = arith.subf %c, %m : f64
        affine.store %s, %A[%i, %j] : memref<72x72xf64>
      }
      %d = affine.load %B[%j, %j] : memref<72x72xf64>
      %e = affine.load %A[%i, %j] : memref<72x72xf64>
      %f = arith.divf %e, %d : f64
      affine.store %f, %A[%i, %j] : memref<72x72xf64>
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// A[i][j] = ((7i + 3j) mod 11) / 7, plus 100 on the diagonal (positive
// pivots and square roots).
func.func @fill(%A: memref<72x72xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c72 = arith.constant 72 : index
  %c7 = arith.constant 7.0 : f64
  %big = arith.constant 100.0 : f64
  scf.for %i = %c0 to %c72 step %c1 {
    scf.for %j = %c0 to %c72 step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<72x72xf64>
    }
    %x = memref.load %A[%i, %i] : memref<72x72xf64>
    %y = arith.addf %x, %big : f64
    memref.store %y, %A[%i, %i] : memref<72x72xf64>
  }
  return
}

// Prints the bits of the sum of A[i][j] * (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<72x72xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c72 = arith.constant 72 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c72 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c72 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<72x72xf64>
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
  %A = memref.alloc() : memref<72x72xf64>
  func.call @fill(%A) : (memref<72x72xf64>) -> ()
  func.call @cholesky(%A) : (memref<72x72xf64>) -> ()
  func.call @sum(%A) : (memref<72x72xf64>) -> ()
  %B = memref.alloc() : memref<72x72xf64>
  %C = memref.alloc() : memref<72x72xf64>
  func.call @fill(%B) : (memref<72x72xf64>) -> ()
  func.call @fill(%C) : (memref<72x72xf64>) -> ()
  func.call @streams(%B, %C) : (memref<72x72xf64>, memref<72x72xf64>) -> ()
  func.call @sum(%B) : (memref<72x72xf64>) -> ()
  memref.dealloc %A : memref<72x72xf64>
  memref.dealloc %B : memref<72x72xf64>
  memref.dealloc %C : memref<72x72xf64>
  return
}
