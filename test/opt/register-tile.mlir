// Register tiles: in a tiled band of three loops, the loop along which the
// writes stay on one cell (k for C[i][j]) goes inside blocks of the other
// two point loops (i, and the vector loop j), which are unrolled; the cells
// the block writes are loaded before the k loop, carried through its
// iter_args, and stored after it. Each accumulation chain keeps its order
// (k ascending per C element), so the results are bit-identical
// (test/opt/semantics.mlir runs them). B is read in place here (pack=false;
// test/opt/pack.mlir).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} pack=false register-tile-sizes=2,4 profitability=false' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=3,5 tile-sizes=30 profitability=false' 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile=false scalar-replace=false profitability=false' 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: not %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=17' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %polyrs-opt %s --poly-opt='cpu=pentium-9' 2>&1 | FileCheck %s --check-prefix=BADCPU
// RUN: not %polyrs-opt %s --poly-opt='vector-bits=300' 2>&1 | FileCheck %s --check-prefix=BADBITS

// CHECK: remark: poly-opt: 1 statement, {{.*}}register tile 2x4; band of 3 loops tiled 32x64x64; legality verified
// CHECK-LABEL: func.func @gemm
// The 2x4 block of C: eight loads before the k loop ...
// CHECK:      %[[C0:.*]] = affine.load %arg2[%[[I:arg[0-9]+]] * 2, %[[J:arg[0-9]+]] * 4]
// CHECK-NEXT: affine.load %arg2[%[[I]] * 2, %[[J]] * 4 + 1]
// CHECK-NEXT: affine.load %arg2[%[[I]] * 2, %[[J]] * 4 + 2]
// CHECK-NEXT: affine.load %arg2[%[[I]] * 2, %[[J]] * 4 + 3]
// CHECK-NEXT: affine.load %arg2[%[[I]] * 2 + 1, %[[J]] * 4]
// CHECK-NEXT: affine.load %arg2[%[[I]] * 2 + 1, %[[J]] * 4 + 1]
// CHECK-NEXT: affine.load %arg2[%[[I]] * 2 + 1, %[[J]] * 4 + 2]
// CHECK-NEXT: affine.load %arg2[%[[I]] * 2 + 1, %[[J]] * 4 + 3]
// ... carried through the k loop, which touches C only through them ...
// CHECK-NEXT: %[[R:.*]]:8 = affine.for %[[K:arg[0-9]+]] = {{.*}} iter_args(%[[X0:arg[0-9]+]] = %[[C0]], {{.*}}) -> (f64, f64, f64, f64, f64, f64, f64, f64) {
// CHECK-NOT:  %arg2
// CHECK:      affine.load %arg0[%[[I]] * 2, %[[K]]]
// CHECK-NEXT: affine.load %arg1[%[[K]], %[[J]] * 4]
// CHECK-NEXT: %[[P:.*]] = arith.mulf
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[X0]], %[[P]] : f64
// CHECK-NOT:  %arg2
// CHECK:      affine.yield %[[S0]], {{.*}} : f64, f64, f64, f64, f64, f64, f64, f64
// CHECK-NEXT: }
// ... and stored after it.
// CHECK-NEXT: affine.store %[[R]]#0, %arg2[%[[I]] * 2, %[[J]] * 4]
// CHECK:      affine.store %[[R]]#7, %arg2[%[[I]] * 2 + 1, %[[J]] * 4 + 3]
// CHECK-NOT:  affine.if
// CHECK:      return

// Blocks of 3x5 in tiles of 30 run past the array's end (64): the full blocks
// are carried, the partial ones keep their loops.
// PARTIAL: remark: poly-opt: {{.*}}register tile 3x5; band of 3 loops tiled 30x30x30
// PARTIAL-LABEL: func.func @gemm
// PARTIAL: affine.for {{.*}} iter_args({{.*}}) -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {

// OFF-NOT: register tile
// OFF-NOT: iter_args

// BAD: error: {{.*}}register-tile-sizes{{.*}}register tile sizes must be between 1 and 16
// BADCPU: error: {{.*}}cpu{{.*}}unknown CPU 'pentium-9' (known: host, x86-64, haswell, znver3
// BADBITS: error: poly-opt: invalid value '300' for option 'vector-bits': vector registers are 64, 128, 256, 512 or 1024 bits wide
func.func @gemm(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>) {
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
  return
}

// trmm: B[i][j] += A[k][i] * B[k][j] with k > i. B is read at [k][j]
// beside the cells the block writes, B[i][j]; the domain keeps the two apart
// (k >= i + 1), so k is the loop inside the register tile. The blocks that
// the triangle k > i cuts (k < 2*t3 + 2 for rows 2*t3 and 2*t3 + 1) run
// first, point by point; in the full blocks (k >= 2*t3 + 2, every row of the
// block below k) the loop's bounds prove B[k][j] off the block's cells, so
// the cells are carried through the k loop and B[k][j] is read from memory.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=2,4 profitability=false' 2>&1 | FileCheck %s --check-prefix=TRMM
// TRMM: register-tile.mlir:[[@LINE+22]]:3: remark: poly-opt: 1 statement, {{.*}} 0 guards; point loop φ0 moved innermost (stride-1 accesses); register tile 2x4; band of 3 loops tiled 32x32x64; legality verified
// TRMM-LABEL: func.func @trmm_like
// The cut blocks: row 2*t3 at k = 2*t3 + 1, through memory.
// TRMM:      affine.load %arg1[%[[U:arg[0-9]+]] * 2 + 1, %[[V:arg[0-9]+]] * 4]
// TRMM-NEXT: affine.load %arg1[%[[U]] * 2, %[[V]] * 4]
// TRMM:      affine.store {{.*}}, %arg1[%[[U]] * 2, %[[V]] * 4]
// The full blocks: the 2x4 cells loaded, carried from k = 2*t3 + 2 ...
// TRMM:      %[[C0:.*]] = affine.load %arg1[%[[U]] * 2, %[[V]] * 4]
// TRMM:      affine.load %arg1[%[[U]] * 2 + 1, %[[V]] * 4 + 3]
// TRMM-NEXT: %[[R:.*]]:8 = affine.for %[[K:arg[0-9]+]] = #{{.*}}(%[[U]]) to 64 iter_args(%[[X0:arg[0-9]+]] = %[[C0]], {{.*}}) -> (f64, f64, f64, f64, f64, f64, f64, f64) {
// ... reading B[k][j] from memory and no cell of the block ...
// TRMM-NOT:  affine.load %arg1[%[[U]]
// TRMM:      affine.load %arg1[%[[K]], %[[V]] * 4]
// TRMM-NOT:  affine.load %arg1[%[[U]]
// TRMM-NOT:  affine.store
// TRMM:      affine.yield
// TRMM-NEXT: }
// ... and stored after it.
// TRMM-NEXT: affine.store %[[R]]#0, %arg1[%[[U]] * 2, %[[V]] * 4]
// TRMM:      affine.store %[[R]]#7, %arg1[%[[U]] * 2 + 1, %[[V]] * 4 + 3]
// TRMM-LABEL: func.func @trmm_diagonal
func.func @trmm_like(%A: memref<64x64xf64>, %B: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = affine_map<(d0) -> (d0 + 1)>(%i) to 64 {
        %a = affine.load %A[%k, %i] : memref<64x64xf64>
        %b = affine.load %B[%k, %j] : memref<64x64xf64>
        %c = affine.load %B[%i, %j] : memref<64x64xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %B[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}

// With k >= i, B[k][j] at k = i is the cell being written: nothing keeps
// the read off the block's cells, so no register tile.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=2,4 profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// DIAG: register-tile.mlir:[[@LINE+2]]:3: remark: poly-opt: 1 statement, {{.*}} 0 guards; point loop φ0 moved innermost (stride-1 accesses); band of 3 loops tiled 32x32x32; legality verified
func.func @trmm_diagonal(%A: memref<64x64xf64>, %B: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = affine_map<(d0) -> (d0)>(%i) to 64 {
        %a = affine.load %A[%k, %i] : memref<64x64xf64>
        %b = affine.load %B[%k, %j] : memref<64x64xf64>
        %c = affine.load %B[%i, %j] : memref<64x64xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %B[%i, %j] : memref<64x64xf64>
      }
    }
  }
  return
}
