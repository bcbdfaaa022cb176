// print-stages prints the plan after tiling and after each stage of the plan
// that changed it, in print-plan's form: stage-level output. Worked out by
// hand for gemm (512^3, C[i][j] += A[i][k] * B[k][j]) on the AVX-512 preset
// (32 registers of 8 doubles; its 512-bit broadcasts taken as fast), 2
// threads:
//  - tile: one band of the three loops, tiled by the base size 32 each;
//  - parallel: i and j carry no dependence; the first one, i's tile loop,
//    becomes the parallel loop (the k loop carries the reduction);
//  - point order: j, the loop with stride-1 accesses (B[k][j], C[i][j]),
//    moves innermost, its tile the vector tile, 32 vectors of 8 = 256;
//  - register tile: C[i][j] stays on one cell along k, so k goes inside
//    blocks of 8 i x 16 j (half the 32 registers hold accumulators: 8 rows
//    of two vectors), unrolled; the cache tiles become 512 / 2 threads = 256
//    along i (one tile per thread), the whole 512 along the vector loop
//    (under 1024), and 64 along k (a 32 KiB L1 and 16-wide blocks);
//  - unroll-and-jam and gather change nothing: not printed.
// Then the loop tree after each stage of code generation (codegen/tree/),
// each printing its decisions after a loop's bounds:
//  - carry: the loop inside the register tile (t5 = k, its body the
//    unrolled blocks) keeps the tile's 8 x 16 = 128 accumulators C[i][j]
//    in registers ("carry 128 cells"); it is the only sequential loop
//    without a loop inside;
//  - buffers: the loop over blocks of the vector loop (t4) is marked for
//    k's block-invariant operands ("hoist t5"), but gemm's only one, A[i][k],
//    is a plain load, no arithmetic to compute ahead: no slots, no buffer;
//    the loop over block rows (t3) packs the operands of t4's blocks that
//    do not change from row to row, the 16 values B[k][j] of a block's
//    columns, once, before it ("pack t4 t5 ...: 16 slots"), its fill loops
//    sized by the target's 32 registers of 8 doubles, and the loop over k
//    (t5) reads them ("reads t3's packed");
//  - lanes and scalar: no row blocks, no statement kept scalar: nothing.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} print-stages=true' -o /dev/null 2>&1 | FileCheck %s --implicit-check-not='after the unroll-and-jam stage' --implicit-check-not='after the gather stage'
//
// Without print-stages, no stage is printed.
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: after the
//
// CHECK: remark: poly-opt plan after the tile stage:
// CHECK-NEXT: t0: tile of φ0
// CHECK-NEXT: t1: tile of φ1
// CHECK-NEXT: t2: tile of φ2
// CHECK-NEXT: t3: point φ0
// CHECK-NEXT: t4: point φ1
// CHECK-NEXT: t5: point φ2
// CHECK-NEXT: S0[i0, i1, i2] -> [e0, e1, e2, i0, i1, i2] : i0 - 32e0 >= 0 and -i0 + 32e0 + 31 >= 0 and i1 - 32e1 >= 0 and -i1 + 32e1 + 31 >= 0 and i2 - 32e2 >= 0 and -i2 + 32e2 + 31 >= 0
//
// CHECK: remark: poly-opt plan after the parallel stage:
// CHECK-NEXT: t0: tile of φ0 [parallel]
// CHECK-NEXT: t1: tile of φ1
// CHECK-NEXT: t2: tile of φ2
//
// CHECK: remark: poly-opt plan after the point order stage:
// CHECK-NEXT: t0: tile of φ0 [parallel]
// CHECK-NEXT: t1: tile of φ1
// CHECK-NEXT: t2: tile of φ2
// CHECK-NEXT: t3: point φ0
// CHECK-NEXT: t4: point φ2
// CHECK-NEXT: t5: point φ1
// CHECK-NEXT: S0[i0, i1, i2] -> [e0, e1, e2, i0, i2, i1] : i0 - 32e0 >= 0 and -i0 + 32e0 + 31 >= 0 and i1 - 256e1 >= 0 and -i1 + 256e1 + 255 >= 0 and i2 - 32e2 >= 0 and -i2 + 32e2 + 31 >= 0
//
// CHECK: remark: poly-opt plan after the register tile stage:
// CHECK-NEXT: t0: tile of φ0 [parallel]
// CHECK-NEXT: t1: tile of φ1
// CHECK-NEXT: t2: tile of φ2
// CHECK-NEXT: t3: register blocks (point loop 0 of the band)
// CHECK-NEXT: t4: register blocks of the vector loop (point loop 1 of the band)
// CHECK-NEXT: t5: loop inside the register tile (point loop 2 of the band)
// CHECK-NEXT: t6: unrolled register tile [unrolled]
// CHECK-NEXT: t7: unrolled register tile (vector) [unrolled]
// CHECK-NEXT: S0[i0, i1, i2] -> [e0, e1, e2, e3, e4, i2, i0, i1] : i0 - 256e0 >= 0 and -i0 + 256e0 + 255 >= 0 and i1 - 512e1 >= 0 and -i1 + 512e1 + 511 >= 0 and i2 - 64e2 >= 0 and -i2 + 64e2 + 63 >= 0 and i0 - 8e3 >= 0 and -i0 + 8e3 + 7 >= 0 and i1 - 16e4 >= 0 and -i1 + 16e4 + 15 >= 0
// CHECK-NEXT: register tiles: t6 x t7: 8x16
//
// CHECK:      remark: poly-opt loop tree after the carry stage (1 loop marked):
// CHECK-NEXT: parfor t0 = max(0) to min(1)
// CHECK-NEXT:   let t1 = 0
// CHECK-NEXT:     for t2 = max(0) to min(7){{$}}
// CHECK-NEXT:       for t3 = max(32*t0) to min(32*t0+31){{$}}
// CHECK-NEXT:         for t4 = max(0) to min(31){{$}}
// CHECK-NEXT:           for t5 = max(64*t2) to min(64*t2+63) [carry 128 cells]
// CHECK:      remark: poly-opt loop tree after the buffers stage (2 loops marked):
// CHECK:            for t3 = max(32*t0) to min(32*t0+31) [pack t4 t5 (fill 32/8): 16 slots]
// CHECK-NEXT:         for t4 = max(0) to min(31) [hoist t5]{{$}}
// CHECK-NEXT:           for t5 = max(64*t2) to min(64*t2+63) [carry 128 cells, reads t3's packed]
// CHECK:      remark: poly-opt loop tree after the lanes stage (0 loops marked):
// CHECK:      remark: poly-opt loop tree after the scalar stage (0 loops marked):
func.func @gemm(%A: memref<512x512xf64>, %B: memref<512x512xf64>, %C: memref<512x512xf64>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      affine.for %k = 0 to 512 {
        %a = affine.load %A[%i, %k] : memref<512x512xf64>
        %b = affine.load %B[%k, %j] : memref<512x512xf64>
        %c = affine.load %C[%i, %j] : memref<512x512xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<512x512xf64>
      }
    }
  }
  return
}
