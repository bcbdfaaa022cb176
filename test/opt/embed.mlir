// Embedding (scop/embed.rs), retiming (sched/retime.rs) and point-loop
// sinking (transform/sink_point.rs) on modified Gram-Schmidt. The column
// norm and the normalization of column k (loops over i of their own,
// beside the loop over the columns j > k) are embedded at j = k, the
// column they touch; then k and j form one permutable band, tiled and run
// as a wavefront of tiles (several steps k applied to a block of columns
// while it is in cache). The column update A[i][j] -= Q[i][k] * R[k][j]
// needs all of step k's sums R[k][j] and feeds step k + 1's: retimed by one
// step, it runs in the same sweep of the rows as step k + 1's sums, row by
// row (one sweep per step instead of two); its instances that update
// column k + 1, which step k + 1's norm reads first, are split off and
// keep their step. Inside a tile, the rows' loops come first and j
// innermost (stride-1 along the rows of A), the rows 8 at a time on
// AVX-512 (4 on AVX2), unrolled inside j. Every column takes the steps
// k < j in order and every sum its rows in order: the results must be
// identical, digit for digit, to the untransformed program's. 45 rows
// leave a partial block of rows; 37 columns a partial tile of columns.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.avx512
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' 2> %t.remarks-avx2 | %polyrs-runner --threads=2 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=5,7 profitability=false' 2>/dev/null | %polyrs-runner --threads=3 - > %t.odd
// RUN: %polyrs-opt %s --poly-opt='%{avx512} embed=false profitability=false' 2> %t.remarks-off | %polyrs-runner --threads=2 - > %t.off
// RUN: diff %t.before %t.avx512
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.odd
// RUN: diff %t.before %t.off
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks-avx2 --check-prefix=AVX2
// RUN: FileCheck %s --input-file=%t.remarks-off --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s
//
// SUMS-COUNT-3: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: {{.*}}S1 at i1 = i0, S3 at i1 = i0 embedded (the loops around them tiled together); S6_gt retimed by one step and fused with S5 (one sweep per step); band of 2 loops tiled{{.*}}tiles run as a parallel wavefront; φ2 moved below the statements' own loops (stride-1 accesses); φ4 unrolled and jammed by 8 inside it; legality verified
// AVX2: remark: poly-opt: {{.*}}embedded{{.*}}retimed{{.*}}φ4 unrolled and jammed by 4 inside it; legality verified
// OFF-NOT: embedded
// OFF: remark: poly-opt: {{.*}}legality verified
//
// The wavefront over tiles of (k, j); inside a tile, for each k, the rows
// in blocks of 8 around the columns: Q[i][k - 1] and Q[i][k] of the
// block's rows loaded before the loop over the columns; in it, each row's
// A[i][j] updated with step k - 1's R[k - 1][j] (loaded once), stored,
// and, still in a register, added into step k's R[k][j] (loaded once per
// block, the 8 rows' terms in order, stored once).
// CHECK-LABEL: func.func @mgs(
// CHECK: affine.parallel
// CHECK: affine.load %arg2[%[[B:[^ ]*]] * 8 + 7, %[[K:[^ ]*]] - 1] : memref<45x37xf64>
// CHECK-NEXT: affine.load %arg2[%[[B]] * 8 + 7, %[[K]]] : memref<45x37xf64>
// CHECK-NEXT: affine.for %[[J:[^ ]*]] = {{.*}} iter_args(
// CHECK-NEXT: affine.load %arg0[%[[B]] * 8, %[[J]]] : memref<45x37xf64>
// CHECK-NEXT: affine.load %arg1[%[[K]] - 1, %[[J]]] : memref<37x37xf64>
// CHECK: affine.store %[[A0:[^ ]*]], %arg0[%[[B]] * 8, %[[J]]] : memref<45x37xf64>
// CHECK-NEXT: affine.load %arg1[%[[K]], %[[J]]] : memref<37x37xf64>
// CHECK-NEXT: arith.mulf %{{.*}}, %[[A0]] : f64
// CHECK-NOT: %arg1[
// CHECK: affine.store %{{.*}}, %arg0[%[[B]] * 8 + 7, %[[J]]] : memref<45x37xf64>
// CHECK-NOT: %arg1[
// CHECK: affine.store %{{.*}}, %arg1[%[[K]], %[[J]]] : memref<37x37xf64>
// CHECK-NEXT: affine.yield

func.func private @printI64(i64)
func.func private @printNewline()

// for k: nrm = sum_i A[i][k]^2; R[k][k] = sqrt(nrm); Q[i][k] = A[i][k] / R[k][k];
//        for j > k: R[k][j] = sum_i Q[i][k] * A[i][j]; A[i][j] -= Q[i][k] * R[k][j]
func.func @mgs(%A: memref<45x37xf64>, %R: memref<37x37xf64>, %Q: memref<45x37xf64>, %nrm: memref<1xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %k = 0 to 37 {
    affine.store %z, %nrm[0] : memref<1xf64>
    affine.for %i = 0 to 45 {
      %n0 = affine.load %nrm[0] : memref<1xf64>
      %a = affine.load %A[%i, %k] : memref<45x37xf64>
      %p = arith.mulf %a, %a : f64
      %n1 = arith.addf %n0, %p : f64
      affine.store %n1, %nrm[0] : memref<1xf64>
    }
    %n = affine.load %nrm[0] : memref<1xf64>
    %s = math.sqrt %n : f64
    affine.store %s, %R[%k, %k] : memref<37x37xf64>
    affine.for %i = 0 to 45 {
      %a = affine.load %A[%i, %k] : memref<45x37xf64>
      %r = affine.load %R[%k, %k] : memref<37x37xf64>
      %q = arith.divf %a, %r : f64
      affine.store %q, %Q[%i, %k] : memref<45x37xf64>
    }
    affine.for %j = affine_map<(d0) -> (d0 + 1)>(%k) to 37 {
      affine.store %z, %R[%k, %j] : memref<37x37xf64>
      affine.for %i = 0 to 45 {
        %r0 = affine.load %R[%k, %j] : memref<37x37xf64>
        %q = affine.load %Q[%i, %k] : memref<45x37xf64>
        %a = affine.load %A[%i, %j] : memref<45x37xf64>
        %p = arith.mulf %q, %a : f64
        %r1 = arith.addf %r0, %p : f64
        affine.store %r1, %R[%k, %j] : memref<37x37xf64>
      }
      affine.for %i = 0 to 45 {
        %a = affine.load %A[%i, %j] : memref<45x37xf64>
        %q = affine.load %Q[%i, %k] : memref<45x37xf64>
        %r = affine.load %R[%k, %j] : memref<37x37xf64>
        %p = arith.mulf %q, %r : f64
        %d = arith.subf %a, %p : f64
        affine.store %d, %A[%i, %j] : memref<45x37xf64>
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
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11 + (d0 * 5 + d1) mod 3)>(%i, %j)
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
  %c37 = arith.constant 37 : index
  %c45 = arith.constant 45 : index
  %A = memref.alloc() : memref<45x37xf64>
  %R = memref.alloc() : memref<37x37xf64>
  %Q = memref.alloc() : memref<45x37xf64>
  %nrm = memref.alloc() : memref<1xf64>
  %Ad = memref.cast %A : memref<45x37xf64> to memref<?x?xf64>
  %Rd = memref.cast %R : memref<37x37xf64> to memref<?x?xf64>
  %Qd = memref.cast %Q : memref<45x37xf64> to memref<?x?xf64>
  func.call @fill(%Ad, %c45, %c37) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Rd, %c37, %c37) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Qd, %c45, %c37) : (memref<?x?xf64>, index, index) -> ()
  func.call @mgs(%A, %R, %Q, %nrm) : (memref<45x37xf64>, memref<37x37xf64>, memref<45x37xf64>, memref<1xf64>) -> ()
  func.call @sum(%Ad, %c45, %c37) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%Rd, %c37, %c37) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%Qd, %c45, %c37) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %A : memref<45x37xf64>
  memref.dealloc %R : memref<37x37xf64>
  memref.dealloc %Q : memref<45x37xf64>
  memref.dealloc %nrm : memref<1xf64>
  return
}
