// A triangle of tiles (j <= i, as in syrk and syr2k): the bounds of the
// tile loop along j depend on the tile loop along i. The grid spans the
// bounding box of the tiles (here 4 x 13 blocks of 32x8 threads), and each
// block first checks its own tile's bounds, so the blocks above the
// diagonal do nothing. Before, each block ran all the tiles of its row in
// a single thread ("grid over 1 tile loop, block 1").
// Expected sum worked out by hand: 100 x 100 ones, plus i + 2j over
// j <= i < 100: sum of 2i(i + 1) = 666600; 676600 in all.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
//
// REMARK: triangle.mlir:31:3: remark: poly-opt: 1 statement
// REMARK-SAME: 1 kernel: grid over 2 tile loops (a triangle of tiles in its bounding box), block 32x8;
// REMARK-SAME: every block and thread loop verified
//
// IR: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads
// IR-NEXT: affine.if
// IR: affine.if
// IR: gpu.terminator
//
// CHECK: 676600

func.func private @printI64(i64)
func.func private @printNewline()

func.func @lower(%C: memref<100x100xf64>) {
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      %c = affine.load %C[%i, %j] : memref<100x100xf64>
      %s = affine.apply affine_map<(d0, d1) -> (d0 + d1 * 2)>(%i, %j)
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      %t = arith.addf %c, %f : f64
      affine.store %t, %C[%i, %j] : memref<100x100xf64>
    }
  }
  return
}

func.func @main() {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %C = memref.alloc() : memref<100x100xf64>
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 100 {
      affine.store %one, %C[%i, %j] : memref<100x100xf64>
    }
  }
  func.call @lower(%C) : (memref<100x100xf64>) -> ()
  %sum = affine.for %i = 0 to 100 iter_args(%acc = %zero) -> (f64) {
    %r = affine.for %j = 0 to 100 iter_args(%acc2 = %acc) -> (f64) {
      %x = affine.load %C[%i, %j] : memref<100x100xf64>
      %s = arith.addf %acc2, %x : f64
      affine.yield %s : f64
    }
    affine.yield %r : f64
  }
  %r = arith.fptosi %sum : f64 to i64
  func.call @printI64(%r) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
