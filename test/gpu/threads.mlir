// Thread loops that the code generator does not leave as one perfect chain
// under the block loops still map to the block's threads:
// * @pieces: loop separation cuts the thread loop of each launch in two
//   (a[i] for i < 300, b[j] for j < 200, fused), a sequence whose pieces
//   each get the same threads, under their own guards (blocks of 32
//   threads, one warp, for 300 points on 132 multiprocessors: the tile
//   loop is cut too, at the tile of j = 200, into 4 launches);
// * @small: a 20x20 array with blocks of 32x8 threads has a single tile
//   along x (the code generator's `let`, not a loop), computed inside the
//   kernel, so its threads are still mapped.
// Before, both ran every point of a tile in one thread ("block 1").
// Expected sums worked out by a Python loop: c[i][j] = i + 2j gives
// sum(a) + sum(b) = 41820000; 3 (i + j) over 20x20 sums to 22800.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
//
// REMARK: threads.mlir:32:3: remark: poly-opt: 4 statements
// REMARK-SAME: 4 kernels: grid over 1 tile loop, block 32, grid over 1 tile loop, block 32, grid over 1 tile loop, block 32, grid over 1 tile loop, block 32;
// REMARK: threads.mlir:55:3: remark: poly-opt: 1 statement
// REMARK-SAME: 1 kernel: grid over 1 tile loop, block 32x8;
//
// CHECK: 41820000
// CHECK: 22800

func.func private @printI64(i64)
func.func private @printNewline()

func.func @pieces(%a: memref<300xf64>, %b: memref<200xf64>, %c: memref<300x200xf64>) {
  affine.for %i = 0 to 300 {
    %z = arith.constant 0.0 : f64
    affine.store %z, %a[%i] : memref<300xf64>
  }
  affine.for %j = 0 to 200 {
    %z = arith.constant 0.0 : f64
    affine.store %z, %b[%j] : memref<200xf64>
  }
  affine.for %i = 0 to 300 {
    affine.for %j = 0 to 200 {
      %v = affine.load %c[%i, %j] : memref<300x200xf64>
      %x = affine.load %a[%i] : memref<300xf64>
      %s = arith.addf %x, %v : f64
      affine.store %s, %a[%i] : memref<300xf64>
      %y = affine.load %b[%j] : memref<200xf64>
      %t = arith.addf %y, %v : f64
      affine.store %t, %b[%j] : memref<200xf64>
    }
  }
  return
}

func.func @small(%A: memref<20x20xf64>, %B: memref<20x20xf64>) {
  affine.for %i = 0 to 20 {
    affine.for %j = 0 to 20 {
      %a = affine.load %A[%i, %j] : memref<20x20xf64>
      %two = arith.constant 2.0 : f64
      %d = arith.mulf %a, %two : f64
      %t = arith.addf %d, %a : f64
      affine.store %t, %B[%i, %j] : memref<20x20xf64>
    }
  }
  return
}

func.func @print(%x: f64) {
  %r = arith.fptosi %x : f64 to i64
  func.call @printI64(%r) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %zero = arith.constant 0.0 : f64
  %a = memref.alloc() : memref<300xf64>
  %b = memref.alloc() : memref<200xf64>
  %c = memref.alloc() : memref<300x200xf64>
  affine.for %i = 0 to 300 {
    affine.for %j = 0 to 200 {
      %s = affine.apply affine_map<(d0, d1) -> (d0 + d1 * 2)>(%i, %j)
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %c[%i, %j] : memref<300x200xf64>
    }
  }
  func.call @pieces(%a, %b, %c) : (memref<300xf64>, memref<200xf64>, memref<300x200xf64>) -> ()
  %sa = affine.for %i = 0 to 300 iter_args(%acc = %zero) -> (f64) {
    %x = affine.load %a[%i] : memref<300xf64>
    %s = arith.addf %acc, %x : f64
    affine.yield %s : f64
  }
  %sb = affine.for %j = 0 to 200 iter_args(%acc = %sa) -> (f64) {
    %x = affine.load %b[%j] : memref<200xf64>
    %s = arith.addf %acc, %x : f64
    affine.yield %s : f64
  }
  func.call @print(%sb) : (f64) -> ()
  %A = memref.alloc() : memref<20x20xf64>
  %B = memref.alloc() : memref<20x20xf64>
  affine.for %i = 0 to 20 {
    affine.for %j = 0 to 20 {
      %s = arith.addi %i, %j : index
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %A[%i, %j] : memref<20x20xf64>
    }
  }
  func.call @small(%A, %B) : (memref<20x20xf64>, memref<20x20xf64>) -> ()
  %sum = affine.for %i = 0 to 20 iter_args(%acc = %zero) -> (f64) {
    %r = affine.for %j = 0 to 20 iter_args(%acc2 = %acc) -> (f64) {
      %x = affine.load %B[%i, %j] : memref<20x20xf64>
      %s = arith.addf %acc2, %x : f64
      affine.yield %s : f64
    }
    affine.yield %r : f64
  }
  func.call @print(%sum) : (f64) -> ()
  return
}
