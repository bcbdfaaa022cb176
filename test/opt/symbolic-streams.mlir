// A stream of reductions whose extent is symbolic runs whole. gesummv's
// rows (t[i] += A[i][j] * x[j] and y[i] += B[i][j] * x[j] along j, each
// row's cells fixed along j) with the sizes n x m as arguments: the rows'
// loop is cut into tiles of rows in parallel, and the columns' loop is not
// cut at all ("whole"), as it is not where m is a constant (its extent is
// then its tile size). Before, a symbolic m cut each row into pieces of 32
// columns, the rows' accumulators stored and loaded again at every piece,
// and the pieces' bounds (a `min` with m) kept the rows out of the vector
// lanes: at PolyBench's EXTRALARGE size (2800 x 2800, 2 threads, Zen 4)
// 14.7 ms against the input's 8.5 ms, and 4.4 ms now, as with m constant.
// Each lane adds its row's terms in the input's order, so the results are
// identical, digit for digit, to the untransformed program's: 37 rows (a
// partial block of 5 rows after four blocks of 8) and 53 columns (a
// remainder of 5 after six blocks of 8), with 8 lanes (AVX-512) and 4
// (AVX2), on 2 and 3 threads.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: %polyrs-runner --threads=3 %t.mlir > %t.three
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2' 2>/dev/null | %polyrs-runner --threads=2 - > %t.avx2
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.three
// RUN: diff %t.before %t.avx2
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: symbolic-streams.mlir:{{[0-9]+}}:3: remark: poly-opt: {{.*}}point loop φ{{[0-9]}} not cut into tiles (a stream of reductions); rows' reductions along φ{{[0-9]}} run 8 at a time, one per vector lane;{{.*}}band of 2 loops tiled {{[0-9]+}}x32 / 32xwhole;{{.*}}legality verified
//
// The rows' tiles in parallel; in each, per block of 8 rows, one loop over
// all the columns (no loop over column tiles around it, no `min` in its
// bound): from 0 in steps of 8, the rows' 8 accumulators in one vector
// per array, 8 rows of A loaded and transposed.
// CHECK-LABEL: func.func @gesummv(
// CHECK: affine.parallel
// CHECK-NOT: affine.for
// CHECK: affine.for %{{.*}} = {{.*}} {
// CHECK-NOT: affine.for
// CHECK: affine.for %[[R:.*]] = {{.*}} {
// CHECK-NOT: affine.for
// CHECK: affine.for %{{.*}} = 0 to #map{{[0-9]*}}()[%{{.*}}] step 8 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xf64>, vector<8xf64>) {
// CHECK-NEXT: affine.vector_load %arg2[%[[R]] * 8, %{{.*}}] : memref<?x?xf64>, vector<8xf64>
// CHECK-COUNT-7: affine.vector_load %arg2[%[[R]] * 8 + {{[1-7]}}, %{{.*}}] : memref<?x?xf64>, vector<8xf64>
// CHECK-COUNT-24: vector.shuffle

func.func private @printI64(i64)
func.func private @printNewline()

// t[i] = sum_j A[i][j] x[j]; y[i] = sum_j B[i][j] x[j];
// y[i] = alpha t[i] + beta y[i]: gesummv with n rows and m columns.
func.func @gesummv(%alpha: f64, %beta: f64, %A: memref<?x?xf64>, %B: memref<?x?xf64>, %t: memref<?xf64>, %x: memref<?xf64>, %y: memref<?xf64>, %n: index, %m: index) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to %n {
    affine.store %z, %t[%i] : memref<?xf64>
    affine.store %z, %y[%i] : memref<?xf64>
    affine.for %j = 0 to %m {
      %a = affine.load %A[%i, %j] : memref<?x?xf64>
      %xj = affine.load %x[%j] : memref<?xf64>
      %ti = affine.load %t[%i] : memref<?xf64>
      %p = arith.mulf %a, %xj : f64
      %s = arith.addf %p, %ti : f64
      affine.store %s, %t[%i] : memref<?xf64>
      %b = affine.load %B[%i, %j] : memref<?x?xf64>
      %yi = affine.load %y[%i] : memref<?xf64>
      %q = arith.mulf %b, %xj : f64
      %r = arith.addf %q, %yi : f64
      affine.store %r, %y[%i] : memref<?xf64>
    }
    %t2 = affine.load %t[%i] : memref<?xf64>
    %y2 = affine.load %y[%i] : memref<?xf64>
    %u = arith.mulf %alpha, %t2 : f64
    %v = arith.mulf %beta, %y2 : f64
    %w = arith.addf %u, %v : f64
    affine.store %w, %y[%i] : memref<?xf64>
  }
  return
}

// A[i][j] = ((7i + 3j) mod 11) / 7, B[i][j] = ((5i + j) mod 13) / 3,
// x[j] = (j mod 5) - 2.
func.func @fill(%A: memref<?x?xf64>, %B: memref<?x?xf64>, %x: memref<?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  %c3 = arith.constant 3.0 : f64
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %w0 = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %wi = arith.index_cast %w0 : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %w = arith.divf %wf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<?x?xf64>
      %v0 = affine.apply affine_map<(d0, d1) -> ((d0 * 5 + d1) mod 13)>(%i, %j)
      %vi = arith.index_cast %v0 : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %v = arith.divf %vf, %c3 : f64
      memref.store %v, %B[%i, %j] : memref<?x?xf64>
    }
  }
  scf.for %j = %c0 to %m step %c1 {
    %e0 = affine.apply affine_map<(d0) -> (d0 mod 5)>(%j)
    %ei = arith.index_cast %e0 : index to i64
    %ef = arith.sitofp %ei : i64 to f64
    %e = arith.subf %ef, %two : f64
    memref.store %e, %x[%j] : memref<?xf64>
  }
  return
}

// Prints the bits of the sum of v[i] * (1 + i mod 7).
func.func @sum(%v: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %e = memref.load %v[%i] : memref<?xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%i)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %p = arith.mulf %e, %wf : f64
    %r = arith.addf %acc, %p : f64
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %n = arith.constant 37 : index
  %m = arith.constant 53 : index
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  %A = memref.alloc(%n, %m) : memref<?x?xf64>
  %B = memref.alloc(%n, %m) : memref<?x?xf64>
  %x = memref.alloc(%m) : memref<?xf64>
  %t = memref.alloc(%n) : memref<?xf64>
  %y = memref.alloc(%n) : memref<?xf64>
  func.call @fill(%A, %B, %x, %n, %m) : (memref<?x?xf64>, memref<?x?xf64>, memref<?xf64>, index, index) -> ()
  func.call @gesummv(%alpha, %beta, %A, %B, %t, %x, %y, %n, %m) : (f64, f64, memref<?x?xf64>, memref<?x?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, index, index) -> ()
  func.call @sum(%t, %n) : (memref<?xf64>, index) -> ()
  func.call @sum(%y, %n) : (memref<?xf64>, index) -> ()
  memref.dealloc %A : memref<?x?xf64>
  memref.dealloc %B : memref<?x?xf64>
  memref.dealloc %x : memref<?xf64>
  memref.dealloc %t : memref<?xf64>
  memref.dealloc %y : memref<?xf64>
  return
}
