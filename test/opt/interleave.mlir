// Interleaved tiles (transform/interleave.rs): bicg's two nests, split
// apart by the scheduler (they read A in transposed orders), run as a
// column stream (s[j] += r[i] * A[i][j]: its 900 columns in one tile per
// thread, the rows sequential) and as rows (q[i] += A[i][j] * p[j]: tiles
// of 32 rows in parallel). Interleaved, they share one parallel loop over
// the 2 threads, with a sequential loop over tiles of 64 rows inside:
// each thread runs its s columns of the 64 rows, then q over its 32 of
// them (rows 64r + 32t ... 64r + 32t + 31), which both threads have just
// read. Each s[j] and q[i] still takes its terms in the input's order, so
// the results must be identical, digit for digit, to the untransformed
// program's (2 OpenMP threads), apart (fuse-tiles=false), on AVX2,
// whose 512 KiB L2 deals q's rows 16 at a time, and on 3 threads. In
// @joined, q's rows read s (q[i] += A[i][j] * s[j]): a dependence joins
// the nests, and they are not interleaved.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.interleaved
// RUN: %polyrs-opt %s --poly-opt='%{avx512} fuse-tiles=false' 2> %t.remarks-off | %polyrs-runner --threads=2 - > %t.off
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2' 2> %t.remarks-avx2 | %polyrs-runner --threads=2 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=3 l2-cache=512' 2> %t.remarks-3 | %polyrs-runner --threads=3 - > %t.three
// RUN: diff %t.before %t.interleaved
// RUN: diff %t.before %t.three
// RUN: diff %t.before %t.off
// RUN: diff %t.before %t.avx2
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks-off --check-prefix=OFF
// RUN: FileCheck %s --input-file=%t.remarks-avx2 --check-prefix=AVX2
// RUN: FileCheck %s --input-file=%t.remarks-3 --check-prefix=THREE
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>/dev/null | FileCheck %s
//
// SUMS-COUNT-4: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: interleave.mlir:{{.*}} remark: poly-opt: 4 statements, {{.*}}; S2's column tiles and S3's rows interleaved: one parallel loop over 2 threads, tiles of 64 rows inside, S3's rows dealt 32 at a time (L2 budget of one thread's share: 512 KiB); legality verified
// REMARK: remark: poly-opt: 4 statements,
// REMARK-NOT: interleaved
// OFF-NOT: interleaved
// AVX2: S2's column tiles and S3's rows interleaved: one parallel loop over 2 threads, tiles of 32 rows inside, S3's rows dealt 16 at a time (L2 budget of one thread's share: 256 KiB)
// Three threads and a 512 KiB L2: tiles of 48 rows, which cut the column
// stream's tiles of 32 rows in two (its blocks of 16 rows stay whole).
// THREE: S2's column tiles and S3's rows interleaved: one parallel loop over 3 threads, tiles of 48 rows inside, S3's rows dealt 16 at a time (L2 budget of one thread's share: 256 KiB)
//
// Thread t's blocks of 16 of q's rows: 2t + 4r and the next, in tile r.
// CHECK: #[[LO:map[0-9]*]] = affine_map<(d0, d1) -> (d0 * 2 + d1 * 4)>
// CHECK-LABEL: func.func @bicg(
// CHECK: affine.parallel
// CHECK: affine.parallel
// CHECK: affine.parallel (%[[T:.*]]) = (0) to (2) {
// CHECK-NEXT: affine.for %[[R:.*]] = #{{.*}}(%[[T]]) to 16 {
// CHECK: affine.store %{{.*}}, %arg1[
// CHECK-NOT: affine.parallel
// CHECK: affine.for %[[B:.*]] = #[[LO]](%[[T]], %[[R]]) to min #{{.*}}(%[[T]], %[[R]]) {
// CHECK: affine.for %{{.*}} = 0 to 896 step 8 iter_args(
// CHECK: affine.store %{{.*}}, %arg2[%[[B]] * 16]
// CHECK-NOT: affine.parallel
// CHECK-LABEL: func.func @joined(

func.func private @printI64(i64)
func.func private @printNewline()

func.func @bicg(%A: memref<1000x900xf64>, %s: memref<900xf64>, %q: memref<1000xf64>, %p: memref<900xf64>, %r: memref<1000xf64>) {
  %zero = arith.constant 0.0 : f64
  affine.for %j = 0 to 900 {
    affine.store %zero, %s[%j] : memref<900xf64>
  }
  affine.for %i = 0 to 1000 {
    affine.store %zero, %q[%i] : memref<1000xf64>
    affine.for %j = 0 to 900 {
      %sj = affine.load %s[%j] : memref<900xf64>
      %ri = affine.load %r[%i] : memref<1000xf64>
      %a = affine.load %A[%i, %j] : memref<1000x900xf64>
      %m = arith.mulf %ri, %a : f64
      %n = arith.addf %sj, %m : f64
      affine.store %n, %s[%j] : memref<900xf64>
      %qi = affine.load %q[%i] : memref<1000xf64>
      %pj = affine.load %p[%j] : memref<900xf64>
      %b = affine.load %A[%i, %j] : memref<1000x900xf64>
      %o = arith.mulf %b, %pj : f64
      %t = arith.addf %qi, %o : f64
      affine.store %t, %q[%i] : memref<1000xf64>
    }
  }
  return
}

func.func @joined(%A: memref<1000x900xf64>, %s: memref<900xf64>, %q: memref<1000xf64>, %p: memref<900xf64>, %r: memref<1000xf64>) {
  %zero = arith.constant 0.0 : f64
  affine.for %j = 0 to 900 {
    affine.store %zero, %s[%j] : memref<900xf64>
  }
  affine.for %i = 0 to 1000 {
    affine.store %zero, %q[%i] : memref<1000xf64>
    affine.for %j = 0 to 900 {
      %sj = affine.load %s[%j] : memref<900xf64>
      %ri = affine.load %r[%i] : memref<1000xf64>
      %a = affine.load %A[%i, %j] : memref<1000x900xf64>
      %m = arith.mulf %ri, %a : f64
      %n = arith.addf %sj, %m : f64
      affine.store %n, %s[%j] : memref<900xf64>
      %qi = affine.load %q[%i] : memref<1000xf64>
      %pj = affine.load %s[%j] : memref<900xf64>
      %b = affine.load %A[%i, %j] : memref<1000x900xf64>
      %o = arith.mulf %b, %pj : f64
      %t = arith.addf %qi, %o : f64
      affine.store %t, %q[%i] : memref<1000xf64>
    }
  }
  return
}

func.func @fill(%A: memref<?xf64>, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    %v = affine.apply affine_map<(d0)[s0] -> ((d0 * 7 + s0 * 3) mod 11)>(%i)[%k]
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    %q = arith.divf %vf, %c7 : f64
    %x = arith.addf %q, %one : f64
    memref.store %x, %A[%i] : memref<?xf64>
  }
  return
}

// Prints the bits of the sum of A[i] * (1 + i mod 5).
func.func @sum(%A: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %A[%i] : memref<?xf64>
    %m = affine.apply affine_map<(d0) -> (d0 mod 5 + 1)>(%i)
    %mi = arith.index_cast %m : index to i64
    %mf = arith.sitofp %mi : i64 to f64
    %p = arith.mulf %v, %mf : f64
    %n2 = arith.addf %acc, %p : f64
    scf.yield %n2 : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c900 = arith.constant 900 : index
  %c1000 = arith.constant 1000 : index
  %c900000 = arith.constant 900000 : index
  %Af = memref.alloc() : memref<900000xf64>
  %s = memref.alloc() : memref<900xf64>
  %q = memref.alloc() : memref<1000xf64>
  %p = memref.alloc() : memref<900xf64>
  %r = memref.alloc() : memref<1000xf64>
  %Afd = memref.cast %Af : memref<900000xf64> to memref<?xf64>
  %sd = memref.cast %s : memref<900xf64> to memref<?xf64>
  %qd = memref.cast %q : memref<1000xf64> to memref<?xf64>
  %pd = memref.cast %p : memref<900xf64> to memref<?xf64>
  %rd = memref.cast %r : memref<1000xf64> to memref<?xf64>
  func.call @fill(%Afd, %c900000, %c0) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%pd, %c900, %c1) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%rd, %c1000, %c2) : (memref<?xf64>, index, index) -> ()
  %A = memref.expand_shape %Af [[0, 1]] output_shape [1000, 900] : memref<900000xf64> into memref<1000x900xf64>
  func.call @bicg(%A, %s, %q, %p, %r) : (memref<1000x900xf64>, memref<900xf64>, memref<1000xf64>, memref<900xf64>, memref<1000xf64>) -> ()
  func.call @sum(%sd, %c900) : (memref<?xf64>, index) -> ()
  func.call @sum(%qd, %c1000) : (memref<?xf64>, index) -> ()
  func.call @joined(%A, %s, %q, %p, %r) : (memref<1000x900xf64>, memref<900xf64>, memref<1000xf64>, memref<900xf64>, memref<1000xf64>) -> ()
  func.call @sum(%sd, %c900) : (memref<?xf64>, index) -> ()
  func.call @sum(%qd, %c1000) : (memref<?xf64>, index) -> ()
  memref.dealloc %Af : memref<900000xf64>
  memref.dealloc %s : memref<900xf64>
  memref.dealloc %q : memref<1000xf64>
  memref.dealloc %p : memref<900xf64>
  memref.dealloc %r : memref<1000xf64>
  return
}
