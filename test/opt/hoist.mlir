// Operands of a register tile that do not change from one block of the
// vector loop to the next (gemm's alpha * A[i][k], which depends on i and k
// only) are computed once per block row, by a loop over k before the loop
// over the blocks, into a buffer on the stack (private to each iteration of
// the parallel loop around it); the blocks read them from there. The
// results must be identical, digit for digit (parallel loops on 2 threads),
// with full and partial blocks, with and without parallel loops.
//
// The structure is checked with tiles of 32 for k (the default 64 would
// cover the whole loop, and its slot index k mod 64 fold to k), without
// packing B (test/opt/pack.mlir); the results with it.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} pack=false register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} hoist=false pack=false register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} pack=false parallel=false register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' 2>&1 | FileCheck %s --check-prefix=SEQ
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' | %polyrs-runner --threads=2 - > %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=2,4 profitability=false' | %polyrs-runner --threads=2 - > %t.default
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=3,5 tile-sizes=30 profitability=false' | %polyrs-runner --threads=2 - > %t.partial
// RUN: %polyrs-opt %s --poly-opt='%{avx512} parallel=false register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false' | %polyrs-runner --threads=2 - > %t.seq
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.default
// RUN: diff %t.before %t.partial
// RUN: diff %t.before %t.seq
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS-COUNT-3: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}

// CHECK: hoist.mlir:60:3: remark: poly-opt: {{.*}}register tile 2x4; {{.*}}; block-invariant operands computed once per block row (1 loop); legality verified
// CHECK: hoist.mlir:92:3: remark: poly-opt: {{.*}}register tile 2x4; {{.*}}; block-invariant operands computed once per block row (1 loop); legality verified
// CHECK-NOT: block-invariant
// CHECK-LABEL: func.func @gemm
// The buffer, two rows of the block by 32 values of k, in the parallel body:
// CHECK:      affine.parallel
// CHECK-NEXT: %[[BUF:.*]] = memref.alloca() : memref<32x2xf64>
// The fill, before the loop over the blocks of j, for the block's two rows:
// CHECK:      %[[A0:.*]] = affine.load %arg0[%[[I:.*]] * 2, %[[K1:.*]]]
// CHECK-NEXT: %[[S0:.*]] = arith.mulf %arg3, %[[A0]] : f64
// CHECK-NEXT: affine.store %[[S0]], %[[BUF]][%[[K1]] mod 32, 0]
// CHECK-NEXT: %[[A1:.*]] = affine.load %arg0[%[[I]] * 2 + 1, %[[K1]]]
// CHECK-NEXT: %[[S1:.*]] = arith.mulf %arg3, %[[A1]] : f64
// CHECK-NEXT: affine.store %[[S1]], %[[BUF]][%[[K1]] mod 32, 1]
// CHECK-NEXT: }
// The blocks: alpha * A[i][k] read from the buffer, A not read at all.
// CHECK-NEXT: affine.for %[[J:.*]] =
// CHECK:      affine.for %[[K2:.*]] = {{.*}} iter_args(
// CHECK-NOT:  %arg0
// CHECK:      %[[T:.*]] = affine.load %[[BUF]][%[[K2]] mod 32, 0]
// CHECK-NEXT: %[[B:.*]] = affine.load %arg1[%[[K2]], %[[J]] * 4]
// CHECK-NEXT: arith.mulf %[[T]], %[[B]] : f64
// CHECK-NOT:  %arg0
// CHECK:      affine.yield
// Without a parallel loop the buffer goes to the function's entry.
// SEQ-LABEL: func.func @gemm
// SEQ-NEXT:  memref.alloca() : memref<32x2xf64>
// OFF-LABEL: func.func @gemm
// OFF-NOT:   memref.alloca
// OFF:       arith.mulf %arg3
// OFF-LABEL: func.func @written
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

// A is written in the SCoP, but after the product, by a nest of its own:
// no statement inside the loops over the blocks writes it, so alpha * A[i][k]
// computed before them is the value the blocks would compute.
// CHECK-LABEL: func.func @written
// CHECK:       %[[WBUF:.*]] = memref.alloca() : memref<32x2xf64>
// CHECK:       affine.load %arg0[
// CHECK:       affine.store %{{.*}}, %[[WBUF]][
// CHECK:       iter_args(
// CHECK-NOT:   %arg0[
// CHECK:       affine.load %[[WBUF]][
// CHECK-NOT:   %arg0[
// CHECK:       affine.yield
// The later nest writes A:
// CHECK:       affine.store %{{.*}}, %arg0[
// CHECK:       return
func.func @written(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>, %alpha: f64) {
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
  affine.for %i = 0 to 64 {
    affine.for %k = 0 to 64 {
      %a = affine.load %A[%i, %k] : memref<64x64xf64>
      %d = arith.addf %a, %alpha : f64
      affine.store %d, %A[%i, %k] : memref<64x64xf64>
    }
  }
  return
}

// alpha * B[k][j] changes with j: it stays in the blocks.
// CHECK-LABEL: func.func @per_column
// CHECK-NOT:   memref.alloca
// CHECK:       return
func.func @per_column(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>, %alpha: f64) {
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
  func.call @written(%A, %B, %C, %alpha) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>, f64) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  func.call @per_column(%A, %B, %C, %alpha) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>, f64) -> ()
  func.call @sum(%C) : (memref<64x64xf64>) -> ()
  memref.dealloc %A : memref<64x64xf64>
  memref.dealloc %B : memref<64x64xf64>
  memref.dealloc %C : memref<64x64xf64>
  return
}

// The decision, in the loop tree after the buffers stage (at the end of the
// file, so that the remarks' line numbers above stay): in @gemm the loop
// over the blocks of j (t4) gets a buffer of 2 slots, alpha * A[i][k] of the
// tile's 2 rows ("hoist t5: 2 slots"), which the loop over k (t5) inside
// reads ("reads t4's hoisted"); in @per_column, alpha * B[k][j] changes
// from block to block: the loop is marked, but no slot, no buffer.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} pack=false register-tile-sizes=2,4 tile-sizes=32,256,32 profitability=false print-stages=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// TREE:      hoist.mlir:60:3: remark: poly-opt loop tree after the buffers stage (1 loop marked):
// TREE:      for t4 = max(0) to min(15) [hoist t5: 2 slots]
// TREE-NEXT:   for t5 = max(32*t2) to min(32*t2+31) [carry 8 cells, reads t4's hoisted]
// TREE:      hoist.mlir:120:3: remark: poly-opt loop tree after the buffers stage (1 loop marked):
// TREE:      for t4 = max(0) to min(15) [hoist t5]{{$}}
// TREE-NEXT:   for t5 = max(32*t2) to min(32*t2+31) [carry 8 cells]{{$}}
