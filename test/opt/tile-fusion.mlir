// Tile fusion: gramschmidt's `R[k][j] += Q[i][k] * A[i][j]` and
// `A[i][j] -= Q[i][k] * R[k][j]`, cut apart by the scheduler (the second
// needs every i of the first), each get a band (j, i) with parallel tiles
// of j. Fused at that tile loop, each tile runs the first update's points,
// then the second's, in one parallel loop per step of k. The results must
// be identical, digit for digit, to the untransformed program's (parallel
// loops on 2 OpenMP threads): with the default tiles, with tiles shrunk to
// a tiny L2 (8 columns: a cache line of doubles), with the user's odd
// tiles (kept: tile-sizes=7), and with fusion off. @gs_cross reads
// R[k][j - 1] in the second update: a dependence from one tile of j to the
// next, which a fused parallel loop would race on; its nests stay apart.
// The first update sums across the rows i into R[k][j] along the vector
// loop j: a column stream, its rows jammed by 8 (the band's first
// hyperplane is sequential for the norm's statement, which the jam inside
// the permutable band does not need): 37 rows, 4 full blocks, then 5.
//
// With embed=false throughout: embedded (test/opt/embed.mlir), the norm and
// the division would join k and j in one tiled band instead.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false embed=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.fused
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false embed=false l2-cache=4' 2> %t.remarks-small | %polyrs-runner --threads=2 - > %t.small
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false embed=false tile-sizes=7' 2> %t.remarks-seven | %polyrs-runner --threads=2 - > %t.seven
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false embed=false fuse-tiles=false' 2> %t.remarks-off | %polyrs-runner --threads=2 - > %t.off
// RUN: diff %t.before %t.fused
// RUN: diff %t.before %t.small
// RUN: diff %t.before %t.seven
// RUN: diff %t.before %t.off
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks-small --check-prefix=SMALL
// RUN: FileCheck %s --input-file=%t.remarks-seven --check-prefix=SEVEN
// RUN: FileCheck %s --input-file=%t.remarks-off --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false embed=false' 2>/dev/null | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false embed=false fuse-tiles=false' 2>/dev/null | FileCheck %s --check-prefix=APART
//
// SUMS-COUNT-6: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: 7 statements, {{.*}}; sums across rows along φ5 taken 8 rows at a time;{{.*}}; tile loops of S5, S6 fused (the same tiles, the same cells);{{.*}}legality verified
// REMARK: remark: poly-opt: 7 statements,
// REMARK-NOT: fused
// REMARK-SAME: legality verified
//
// SMALL: tile loops of S5, S6 fused (the same tiles, the same cells), in tiles of 8 (L2 budget of one tile: 1 KiB);
// SEVEN: band of 2 loops tiled 7x7; tile loops of S5, S6 fused (the same tiles, the same cells);
// OFF-NOT: fused
//
// Inside the k loop of @gs: the norm's tiles in order, the division over
// parallel tiles, then one parallel loop over tiles of j whose body runs
// the first update (its store to R) and then the second (its store to A).
// CHECK-LABEL: func.func @gs(
// CHECK: affine.for %{{.*}} = 0 to 44 {
// CHECK: affine.for %{{.*}} = 0 to 44 {
// CHECK: affine.store %{{.*}}, %arg3[0]
// CHECK: affine.parallel
// CHECK: affine.store %{{.*}}, %arg2[
// CHECK: affine.parallel
// CHECK-NOT: affine.parallel
// CHECK: affine.store %{{.*}}, %arg1[
// CHECK-NOT: affine.parallel
// CHECK: affine.store %{{.*}}, %arg0[
// CHECK-LABEL: func.func @gs_cross(
// CHECK: affine.store %{{.*}}, %arg2[
// CHECK: affine.parallel
// CHECK: affine.store %{{.*}}, %arg1[
// CHECK: affine.parallel
// CHECK: affine.store %{{.*}}, %arg0[
//
// Apart, the updates have a parallel loop each.
// APART-LABEL: func.func @gs(
// APART: affine.for %{{.*}} = 0 to 44 {
// APART: affine.for %{{.*}} = 0 to 44 {
// APART: affine.store %{{.*}}, %arg2[
// APART: affine.parallel
// APART: affine.store %{{.*}}, %arg1[
// APART: affine.parallel
// APART: affine.store %{{.*}}, %arg0[

func.func private @printI64(i64)
func.func private @printNewline()

func.func @gs(%A: memref<37x45xf64>, %R: memref<45x45xf64>, %Q: memref<37x45xf64>, %nrm: memref<1xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %k = 0 to 45 {
    affine.store %z, %nrm[0] : memref<1xf64>
    affine.for %i = 0 to 37 {
      %a = affine.load %nrm[0] : memref<1xf64>
      %b = affine.load %A[%i, %k] : memref<37x45xf64>
      %c = arith.mulf %b, %b : f64
      %d = arith.addf %a, %c : f64
      affine.store %d, %nrm[0] : memref<1xf64>
    }
    %e = affine.load %nrm[0] : memref<1xf64>
    %f = math.sqrt %e : f64
    affine.store %f, %R[%k, %k] : memref<45x45xf64>
    affine.for %i = 0 to 37 {
      %g = affine.load %A[%i, %k] : memref<37x45xf64>
      %h = affine.load %R[%k, %k] : memref<45x45xf64>
      %q = arith.divf %g, %h : f64
      affine.store %q, %Q[%i, %k] : memref<37x45xf64>
    }
    affine.for %j = affine_map<(d0) -> (d0 + 1)>(%k) to 45 {
      affine.store %z, %R[%k, %j] : memref<45x45xf64>
      affine.for %i = 0 to 37 {
        %r = affine.load %R[%k, %j] : memref<45x45xf64>
        %s = affine.load %Q[%i, %k] : memref<37x45xf64>
        %t = affine.load %A[%i, %j] : memref<37x45xf64>
        %u = arith.mulf %s, %t : f64
        %v = arith.addf %r, %u : f64
        affine.store %v, %R[%k, %j] : memref<45x45xf64>
      }
      affine.for %i = 0 to 37 {
        %w = affine.load %A[%i, %j] : memref<37x45xf64>
        %x = affine.load %Q[%i, %k] : memref<37x45xf64>
        %y = affine.load %R[%k, %j] : memref<45x45xf64>
        %m = arith.mulf %x, %y : f64
        %n = arith.subf %w, %m : f64
        affine.store %n, %A[%i, %j] : memref<37x45xf64>
      }
    }
  }
  return
}

func.func @gs_cross(%A: memref<37x45xf64>, %R: memref<45x45xf64>, %Q: memref<37x45xf64>, %nrm: memref<1xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %k = 0 to 45 {
    affine.store %z, %nrm[0] : memref<1xf64>
    affine.for %i = 0 to 37 {
      %a = affine.load %nrm[0] : memref<1xf64>
      %b = affine.load %A[%i, %k] : memref<37x45xf64>
      %c = arith.mulf %b, %b : f64
      %d = arith.addf %a, %c : f64
      affine.store %d, %nrm[0] : memref<1xf64>
    }
    %e = affine.load %nrm[0] : memref<1xf64>
    %f = math.sqrt %e : f64
    affine.store %f, %R[%k, %k] : memref<45x45xf64>
    affine.for %i = 0 to 37 {
      %g = affine.load %A[%i, %k] : memref<37x45xf64>
      %h = affine.load %R[%k, %k] : memref<45x45xf64>
      %q = arith.divf %g, %h : f64
      affine.store %q, %Q[%i, %k] : memref<37x45xf64>
    }
    affine.for %j = affine_map<(d0) -> (d0 + 2)>(%k) to 45 {
      affine.store %z, %R[%k, %j] : memref<45x45xf64>
      affine.for %i = 0 to 37 {
        %r = affine.load %R[%k, %j] : memref<45x45xf64>
        %s = affine.load %Q[%i, %k] : memref<37x45xf64>
        %t = affine.load %A[%i, %j] : memref<37x45xf64>
        %u = arith.mulf %s, %t : f64
        %v = arith.addf %r, %u : f64
        affine.store %v, %R[%k, %j] : memref<45x45xf64>
      }
      %jm = affine.apply affine_map<(d0) -> (d0 - 1)>(%j)
      affine.for %i = 0 to 37 {
        %w = affine.load %A[%i, %j] : memref<37x45xf64>
        %x = affine.load %Q[%i, %k] : memref<37x45xf64>
        %y = affine.load %R[%k, %jm] : memref<45x45xf64>
        %m = arith.mulf %x, %y : f64
        %n = arith.subf %w, %m : f64
        affine.store %n, %A[%i, %j] : memref<37x45xf64>
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
  %c1 = arith.constant 1 : index
  %c37 = arith.constant 37 : index
  %c45 = arith.constant 45 : index
  %A = memref.alloc() : memref<37x45xf64>
  %R = memref.alloc() : memref<45x45xf64>
  %Q = memref.alloc() : memref<37x45xf64>
  %nrm = memref.alloc() : memref<1xf64>
  %Ad = memref.cast %A : memref<37x45xf64> to memref<?x?xf64>
  %Rd = memref.cast %R : memref<45x45xf64> to memref<?x?xf64>
  %Qd = memref.cast %Q : memref<37x45xf64> to memref<?x?xf64>
  func.call @fill(%Ad, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Rd, %c45, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Qd, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @gs(%A, %R, %Q, %nrm) : (memref<37x45xf64>, memref<45x45xf64>, memref<37x45xf64>, memref<1xf64>) -> ()
  func.call @sum(%Ad, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%Rd, %c45, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%Qd, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Ad, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Rd, %c45, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Qd, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @gs_cross(%A, %R, %Q, %nrm) : (memref<37x45xf64>, memref<45x45xf64>, memref<37x45xf64>, memref<1xf64>) -> ()
  func.call @sum(%Ad, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%Rd, %c45, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%Qd, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %A : memref<37x45xf64>
  memref.dealloc %R : memref<45x45xf64>
  memref.dealloc %Q : memref<37x45xf64>
  memref.dealloc %nrm : memref<1xf64>
  return
}
