// Operands transposed ahead (`layout`, src/rewrite/layout.rs): a read-only
// operand strided along the loop the written cells are contiguous along,
// whose register tile reduces over a loop after its band (no packing
// there), is copied once before the SCoP into a buffer with that dimension
// last, and the statement reads the buffer. The results must be identical,
// digit for digit (2 threads), to the input's; with `layout=false`, or
// where the plan of the transposed SCoP has no register tile (the copy is
// then taken back), the output is the one without the stage.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks > %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false contract=true' | %polyrs-runner --threads=2 - > %t.contract
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS-COUNT-3: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// Taken back: without register tiles, the transposed SCoP's plan has none
// either; the output is the one without the stage, byte for byte.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false register-tile=false' > %t.rt-off 2>&1
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false register-tile=false layout=false' > %t.rt-off-layout-off 2>&1
// RUN: diff %t.rt-off %t.rt-off-layout-off
// RUN: FileCheck %s --input-file=%t.rt-off --check-prefix=BACK
// BACK-NOT: memref.alloc() {alignment = 64
// BACK-NOT: transposed

// B[d][b][c] becomes B'[d][c][b], filled before the loops and freed after.
// CHECK-LABEL: func.func @tc(
// CHECK: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x8x32xf64>
// CHECK-NEXT: affine.for %[[D:.*]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[C:.*]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[B:.*]] = 0 to 32 {
// CHECK-NEXT: %[[V:.*]] = affine.load %arg1[%[[D]], %[[B]], %[[C]]] : memref<8x32x8xf64>
// CHECK-NEXT: affine.store %[[V]], %[[BUF]][%[[D]], %[[C]], %[[B]]] : memref<8x8x32xf64>
// CHECK: affine.parallel
// CHECK-NOT: affine.load %arg1
// CHECK: affine.load %[[BUF]]
// CHECK-NOT: affine.load %arg1
// CHECK: memref.dealloc %[[BUF]] : memref<8x8x32xf64>
// CHECK-NEXT: return
// REMARK: layout.mlir:{{.*}}operand arg1 (dimensions 0, 2, 1) transposed ahead (copied once, contiguous along the written rows){{.*}}register tile {{[0-9]+x[0-9]+}} around the 1 loop after the band
//
// Read 8 times per cell: not worth the copy.
// CHECK-LABEL: func.func @few(
// CHECK-NOT: memref.alloc
// CHECK: return
// REMARK-NOT: transposed
// REMARK: register tile {{[0-9]+x[0-9]+}} around the 1 loop after the band
//
// B[j][k] of C[i][j] += A[i][k] * B[j][k]: the register tile reduces over
// `k` inside its band, and packs B's rows itself.
// CHECK-LABEL: func.func @bt(
// CHECK-NOT: memref.alloc()
// CHECK: return
// REMARK-NOT: transposed
// REMARK: register tile {{[0-9]+x[0-9]+}}; band of 3 loops
// C[a,b] += A[a,c,d] * B[d,b,c]: B strided along b, C's stride-1 loop.
func.func @tc(%A: memref<32x8x8xf64>, %B: memref<8x32x8xf64>, %C: memref<32x32xf64>) {
  affine.for %a = 0 to 32 {
    affine.for %b = 0 to 32 {
      affine.for %c = 0 to 8 {
        affine.for %d = 0 to 8 {
          %0 = affine.load %A[%a, %c, %d] : memref<32x8x8xf64>
          %1 = affine.load %B[%d, %b, %c] : memref<8x32x8xf64>
          %2 = affine.load %C[%a, %b] : memref<32x32xf64>
          %3 = arith.mulf %0, %1 : f64
          %4 = arith.addf %2, %3 : f64
          affine.store %4, %C[%a, %b] : memref<32x32xf64>
        }
      }
    }
  }
  return
}

// The same with 8 rows a: B read 8 times per cell, too few for the copy.
func.func @few(%A: memref<32x8x8xf64>, %B: memref<8x32x8xf64>, %C: memref<32x32xf64>) {
  affine.for %a = 0 to 8 {
    affine.for %b = 0 to 32 {
      affine.for %c = 0 to 8 {
        affine.for %d = 0 to 8 {
          %0 = affine.load %A[%a, %c, %d] : memref<32x8x8xf64>
          %1 = affine.load %B[%d, %b, %c] : memref<8x32x8xf64>
          %2 = affine.load %C[%a, %b] : memref<32x32xf64>
          %3 = arith.mulf %0, %1 : f64
          %4 = arith.addf %2, %3 : f64
          affine.store %4, %C[%a, %b] : memref<32x32xf64>
        }
      }
    }
  }
  return
}

// C[i,j] += A[i,k] * B[j,k] (B transposed): the register tile reduces
// over a loop of its band and packs B's rows itself.
func.func @bt(%A: memref<32x32xf64>, %B: memref<32x32xf64>, %C: memref<32x32xf64>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      affine.for %k = 0 to 32 {
        %0 = affine.load %A[%i, %k] : memref<32x32xf64>
        %1 = affine.load %B[%j, %k] : memref<32x32xf64>
        %2 = affine.load %C[%i, %j] : memref<32x32xf64>
        %3 = arith.mulf %0, %1 : f64
        %4 = arith.addf %2, %3 : f64
        affine.store %4, %C[%i, %j] : memref<32x32xf64>
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// Fills a memref of any shape (through its flat view) with
// ((k * 7 + seed) mod 11) / 7 at flat position k.
func.func @fill(%A: memref<?xf64>, %n: index, %seed: index) {
  %c7 = arith.constant 7.0 : f64
  affine.for %k = 0 to %n {
    %v = affine.apply affine_map<(d0)[s0] -> ((d0 * 7 + s0) mod 11)>(%k)[%seed]
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    %w = arith.divf %vf, %c7 : f64
    memref.store %w, %A[%k] : memref<?xf64>
  }
  return
}

// Prints the bits of Σ C[i][j] · (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<32x32xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c32 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<32x32xf64>
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
  %n3 = arith.constant 2048 : index
  %n2 = arith.constant 1024 : index
  %A = memref.alloc() : memref<32x8x8xf64>
  %B = memref.alloc() : memref<8x32x8xf64>
  %C = memref.alloc() : memref<32x32xf64>
  %P = memref.alloc() : memref<32x32xf64>
  %fa = memref.reinterpret_cast %A to offset: [0], sizes: [2048], strides: [1] : memref<32x8x8xf64> to memref<2048xf64>
  %fb = memref.reinterpret_cast %B to offset: [0], sizes: [2048], strides: [1] : memref<8x32x8xf64> to memref<2048xf64>
  %fc = memref.reinterpret_cast %C to offset: [0], sizes: [1024], strides: [1] : memref<32x32xf64> to memref<1024xf64>
  %fp = memref.reinterpret_cast %P to offset: [0], sizes: [1024], strides: [1] : memref<32x32xf64> to memref<1024xf64>
  %da = memref.cast %fa : memref<2048xf64> to memref<?xf64>
  %db = memref.cast %fb : memref<2048xf64> to memref<?xf64>
  %dc = memref.cast %fc : memref<1024xf64> to memref<?xf64>
  %dp = memref.cast %fp : memref<1024xf64> to memref<?xf64>
  func.call @fill(%da, %n3, %c1) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%db, %n3, %c2) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%dp, %n2, %c2) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%dc, %n2, %c5) : (memref<?xf64>, index, index) -> ()
  func.call @tc(%A, %B, %C) : (memref<32x8x8xf64>, memref<8x32x8xf64>, memref<32x32xf64>) -> ()
  func.call @sum(%C) : (memref<32x32xf64>) -> ()
  func.call @few(%A, %B, %C) : (memref<32x8x8xf64>, memref<8x32x8xf64>, memref<32x32xf64>) -> ()
  func.call @sum(%C) : (memref<32x32xf64>) -> ()
  func.call @bt(%P, %P, %C) : (memref<32x32xf64>, memref<32x32xf64>, memref<32x32xf64>) -> ()
  func.call @sum(%C) : (memref<32x32xf64>) -> ()
  memref.dealloc %A : memref<32x8x8xf64>
  memref.dealloc %B : memref<8x32x8xf64>
  memref.dealloc %C : memref<32x32xf64>
  memref.dealloc %P : memref<32x32xf64>
  return
}
