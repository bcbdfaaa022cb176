// Loop separation inside a launch: two statements of one nest over arrays
// of different widths (as PolyBench's init functions) cut the tile loops
// and point loops into pieces with different statements.
// - @narrow (70 and 50 columns): the point loop along x is cut at column
//   50 inside the tiles; each piece maps to the same x threads under its
//   own guard, inside the y threads' guard (block 32x8; before, the pieces
//   ran in order inside each thread, block 8).
// - @wide (130 and 50 columns): the tile loop along x is itself cut (tiles
//   0-1 have both statements, tiles 2-4 only the first); the tile loops
//   around the cut are distributed over its pieces, one launch each
//   (before, the pieces ran inside each block's single thread, block 1).
// Expected sums worked out by a Python loop: i + j over 40 x 70 is 151200,
// i + 2j over 40 x 50 is 137000, i + j over 40 x 130 is 436800.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.mlir | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-block=7,3' -o %t.b73.mlir 2>/dev/null
// RUN: %polyrs-runner --gpu=emulate %t.b73.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
//
// REMARK: pieces.mlir:36:3: remark: poly-opt: 2 statements
// REMARK-SAME: 1 kernel: grid over 2 tile loops, block 32x8;
// REMARK: pieces.mlir:54:3: remark: poly-opt: 2 statements
// REMARK-SAME: 2 kernels: grid over 2 tile loops, block 32x8, grid over 2 tile loops, block 32x8;
//
// CHECK: 151200
// CHECK-NEXT: 137000
// CHECK-NEXT: 436800
// CHECK-NEXT: 137000

func.func private @printI64(i64)
func.func private @printNewline()

func.func @narrow(%A: memref<40x70xf64>, %B: memref<40x50xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 70 {
      %s = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%i, %j)
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %A[%i, %j] : memref<40x70xf64>
    }
    affine.for %j = 0 to 50 {
      %s = affine.apply affine_map<(d0, d1) -> (d0 + d1 * 2)>(%i, %j)
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %B[%i, %j] : memref<40x50xf64>
    }
  }
  return
}

func.func @wide(%A: memref<40x130xf64>, %B: memref<40x50xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 130 {
      %s = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%i, %j)
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %A[%i, %j] : memref<40x130xf64>
    }
    affine.for %j = 0 to 50 {
      %s = affine.apply affine_map<(d0, d1) -> (d0 + d1 * 2)>(%i, %j)
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %B[%i, %j] : memref<40x50xf64>
    }
  }
  return
}

func.func @sum2(%A: memref<?x?xf64>) {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %A, %c0 : memref<?x?xf64>
  %m = memref.dim %A, %c1 : memref<?x?xf64>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %r = scf.for %j = %c0 to %m step %c1 iter_args(%acc2 = %acc) -> (f64) {
      %x = memref.load %A[%i, %j] : memref<?x?xf64>
      %s = arith.addf %acc2, %x : f64
      scf.yield %s : f64
    }
    scf.yield %r : f64
  }
  %r = arith.fptosi %sum : f64 to i64
  func.call @printI64(%r) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<40x70xf64>
  %B = memref.alloc() : memref<40x50xf64>
  %W = memref.alloc() : memref<40x130xf64>
  %C = memref.alloc() : memref<40x50xf64>
  func.call @narrow(%A, %B) : (memref<40x70xf64>, memref<40x50xf64>) -> ()
  func.call @wide(%W, %C) : (memref<40x130xf64>, memref<40x50xf64>) -> ()
  %a = memref.cast %A : memref<40x70xf64> to memref<?x?xf64>
  %b = memref.cast %B : memref<40x50xf64> to memref<?x?xf64>
  %w = memref.cast %W : memref<40x130xf64> to memref<?x?xf64>
  %c = memref.cast %C : memref<40x50xf64> to memref<?x?xf64>
  func.call @sum2(%a) : (memref<?x?xf64>) -> ()
  func.call @sum2(%b) : (memref<?x?xf64>) -> ()
  func.call @sum2(%w) : (memref<?x?xf64>) -> ()
  func.call @sum2(%c) : (memref<?x?xf64>) -> ()
  return
}
