// A backward row sweep (a recurrence along j through ym[i][0], i
// independent) and a consumer of its result in a second nest.
//
// Smart fusion puts the two 2-D nests in one group at the first cut; the
// reversed sweep and the consumer share no j hyperplane, so a later cut
// would take them apart between i and j: a scalar dimension for every
// statement, which would end the sweep's (i, j) band after i (no tiles).
// The scheduler then schedules again with the consumer in a nest of its
// own: the sweep keeps its tiled (i, j) band.
//
// Inside the sweep's tiles, the innermost point loop j carries the
// recurrence and no loop has stride-1 accesses that is parallel: the
// independent point loop i goes innermost (independent chains), and the
// i tiles run in parallel. Its accesses are strided along i: on Zen 4
// (%{avx512}) it runs scalar (test/opt/scalar-strided.mlir).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false prevector=false' 2>&1 | FileCheck %s --check-prefix=NOVEC
// RUN: %polyrs-opt %s --poly-print-schedule 2>&1 >/dev/null | FileCheck %s --check-prefix=SCHED

// CHECK: remark: poly-opt: 4 statements, {{.*}}; point loop φ1 moved innermost (independent iterations across a recurrence); band of 2 loops tiled 32x32 / 32x256; tile loops of S0, S1, S2 fused (the same tiles, the same cells); innermost loops across a recurrence run scalar: vectorized, their strided accesses would be slow gathers and scatters (1 loop); legality verified
// CHECK-LABEL: func.func @sweep
// The initialization of ym and the sweep share the parallel loop over
// i tiles (tile fusion: both touch ym[i][0]): in each tile, the
// initialization, then the sweep's j tiles, j points, then i points
// innermost.
// CHECK: affine.parallel (%[[TI:.*]]) = (0) to (2) {
// CHECK: affine.store %cst, %arg2[
// CHECK: affine.for %[[TJ:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[J:.*]] = #map(%[[TJ]]) to min
// CHECK-NEXT: affine.for %[[I:.*]] = #map(%[[TI]]) to #map1(%[[TI]]) {
// CHECK: affine.store %{{.*}}, %arg1[%[[I]], -%[[J]] + 47]
// The consumer, in a nest of its own after the sweep.
// CHECK: affine.parallel
// CHECK: affine.store %{{.*}}, %arg3[

// NOVEC: remark: poly-opt: 4 statements, {{.*}}band of 2 loops tiled 32x32; tile loops of S0, S1, S2 fused (the same tiles, the same cells); legality verified
// NOVEC-NOT: moved innermost

// SCHED: { S1[i0, i1] -> [1, i0, i1, 1] }
// SCHED: { S3[i0, i1] -> [2, i0, i1, 3] }
// SCHED: dims: [scalar, band0 parallel, band0, scalar]

func.func @sweep(%in: memref<64x48xf64>, %y: memref<64x48xf64>, %ym: memref<64x1xf64>, %out: memref<64x48xf64>, %a: f64, %b: f64) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to 64 {
    affine.store %z, %ym[%i, 0] : memref<64x1xf64>
    affine.for %jr = 0 to 48 {
      %x = affine.load %in[%i, 47 - %jr] : memref<64x48xf64>
      %m = affine.load %ym[%i, 0] : memref<64x1xf64>
      %p = arith.mulf %a, %x : f64
      %q = arith.mulf %b, %m : f64
      %r = arith.addf %p, %q : f64
      affine.store %r, %y[%i, 47 - %jr] : memref<64x48xf64>
      affine.store %r, %ym[%i, 0] : memref<64x1xf64>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      %v = affine.load %y[%i, %j] : memref<64x48xf64>
      %w = arith.mulf %a, %v : f64
      affine.store %w, %out[%i, %j] : memref<64x48xf64>
    }
  }
  return
}
