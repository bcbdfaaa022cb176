// Column streams: sums across the rows into cells along the vector loop
// (bicg's s[j] += r[i] * A[i][j], j innermost) take a block of rows at a
// time: the rows' loop is unrolled and jammed by a vector's lanes (8 on
// AVX-512, 4 on AVX2, 2 on SSE2), and inside the jammed body each cell is
// loaded once, passed from row to row, and stored once (the forwarding of
// codegen/emit/forward.rs), and each row of A is loaded once although
// both statements read it. Each cell still takes its rows' terms in the
// input's order, so the results must be identical, digit for digit, to
// the untransformed program's. 37 rows leave a partial block of 5 rows
// (unrolled too), 29 columns need no remainder (the vector loop is not
// cut). @cs's two cells s[0][j] and s[2][j] of one array never meet (their
// first subscripts differ by 2), so both are forwarded; @pair's second
// statement reads the cell t[1][j] the first one just wrote.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.avx512
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' 2>/dev/null | %polyrs-runner --threads=2 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='cpu=x86-64 threads=2 profitability=false' 2>/dev/null | %polyrs-runner --threads=2 - > %t.sse
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false row-blocks=false' 2> %t.remarks-off | %polyrs-runner --threads=2 - > %t.off
// RUN: diff %t.before %t.avx512
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.sse
// RUN: diff %t.before %t.off
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks-off --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' 2>/dev/null | FileCheck %s --check-prefix=AVX2
//
// SUMS-COUNT-3: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK-COUNT-2: remark: poly-opt: {{.*}}sums across rows along φ{{[0-9]}} taken 8 rows at a time; 1 point loop unrolled and jammed by 8;{{.*}}legality verified
// OFF-NOT: sums across rows
//
// Full blocks of 8 rows, then the columns; in each column's body, the two
// cells loaded once, the 8 rows of A once each, the two cells stored once.
// CHECK-LABEL: func.func @cs(
// CHECK: affine.for %[[B:.*]] = 0 to 4 {
// CHECK: affine.for %[[J:.*]] = 0 to 29 iter_args(
// CHECK-NEXT: affine.load %arg2[0, %[[J]]] : memref<3x29xf64>
// CHECK-NEXT: affine.load %arg1[%[[B]] * 8, %[[J]]] : memref<37x29xf64>
// CHECK-NOT: %arg2[
// CHECK: affine.load %arg2[2, %[[J]]] : memref<3x29xf64>
// CHECK-NOT: %arg2[
// CHECK: affine.load %arg1[%[[B]] * 8 + 1, %[[J]]]
// CHECK-NOT: %arg2[
// CHECK: affine.load %arg1[%[[B]] * 8 + 7, %[[J]]]
// CHECK-NOT: %arg1[
// CHECK-NOT: %arg2[
// CHECK: affine.store %{{.*}}, %arg2[0, %[[J]]] : memref<3x29xf64>
// CHECK-NOT: affine.
// CHECK: affine.store %{{.*}}, %arg2[2, %[[J]]] : memref<3x29xf64>
// CHECK-NEXT: affine.yield
// The last 5 rows, unrolled.
// CHECK: affine.for %[[J2:.*]] = 0 to 29 iter_args(
// CHECK: affine.load %arg1[32, %[[J2]]]
// CHECK: affine.load %arg1[36, %[[J2]]]
// CHECK-NOT: %arg1[
// CHECK: affine.store %{{.*}}, %arg2[0, %[[J2]]]
// CHECK-NOT: affine.
// CHECK: affine.store %{{.*}}, %arg2[2, %[[J2]]]
// CHECK-NEXT: affine.yield
// CHECK-LABEL: func.func @pair(
// CHECK: affine.for %[[J3:.*]] = 0 to 29 {
// CHECK-NEXT: affine.load %arg1[1, %[[J3]]]
// CHECK-NOT: %arg1[
// CHECK: affine.store %{{.*}}, %arg1[1, %[[J3]]]
// CHECK-NOT: %arg1[
// CHECK: affine.store %{{.*}}, %arg2[1, %[[J3]]]
// CHECK-NEXT: }
//
// On AVX2, blocks of 4 rows: 8 in the first tile of 32 rows, one in the
// last tile (rows 32 to 35), then row 36 alone.
// AVX2-LABEL: func.func @cs(
// AVX2: affine.for %[[B:.*]] = 0 to 8 {
// AVX2: affine.for %[[J:.*]] = 0 to 29 iter_args(
// AVX2: affine.load %arg1[%[[B]] * 4 + 3, %[[J]]]
// AVX2-NOT: %arg1[
// AVX2: affine.store
// AVX2: affine.load %arg1[32, %{{.*}}]
// AVX2: affine.load %arg1[35, %{{.*}}]
// AVX2-NOT: %arg1[
// AVX2: affine.yield
// AVX2: affine.for
// AVX2-NEXT: affine.load %arg2[0, %{{.*}}]
// AVX2-NEXT: affine.load %arg1[36, %{{.*}}]
// AVX2-NOT: %arg1[
// AVX2-LABEL: func.func @pair(

func.func private @printI64(i64)
func.func private @printNewline()

func.func @cs(%r: memref<2x37xf64>, %A: memref<37x29xf64>, %s: memref<3x29xf64>) {
  affine.for %i = 0 to 37 {
    affine.for %j = 0 to 29 {
      %s0 = affine.load %s[0, %j] : memref<3x29xf64>
      %ri = affine.load %r[0, %i] : memref<2x37xf64>
      %a = affine.load %A[%i, %j] : memref<37x29xf64>
      %p = arith.mulf %ri, %a : f64
      %s1 = arith.addf %s0, %p : f64
      affine.store %s1, %s[0, %j] : memref<3x29xf64>
      %y0 = affine.load %s[2, %j] : memref<3x29xf64>
      %q = affine.load %r[1, %i] : memref<2x37xf64>
      %d = arith.divf %a, %q : f64
      %y1 = arith.subf %y0, %d : f64
      affine.store %y1, %s[2, %j] : memref<3x29xf64>
    }
  }
  return
}

func.func @pair(%A: memref<37x29xf64>, %t: memref<3x29xf64>, %u: memref<3x29xf64>) {
  affine.for %i = 0 to 37 {
    affine.for %j = 0 to 29 {
      %t0 = affine.load %t[1, %j] : memref<3x29xf64>
      %a = affine.load %A[%i, %j] : memref<37x29xf64>
      %t1 = arith.addf %t0, %a : f64
      affine.store %t1, %t[1, %j] : memref<3x29xf64>
      %t2 = affine.load %t[1, %j] : memref<3x29xf64>
      %u0 = affine.load %u[1, %j] : memref<3x29xf64>
      %u1 = arith.mulf %u0, %t2 : f64
      affine.store %u1, %u[1, %j] : memref<3x29xf64>
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
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c29 = arith.constant 29 : index
  %c37 = arith.constant 37 : index
  %r = memref.alloc() : memref<2x37xf64>
  %A = memref.alloc() : memref<37x29xf64>
  %s = memref.alloc() : memref<3x29xf64>
  %u = memref.alloc() : memref<3x29xf64>
  %rd = memref.cast %r : memref<2x37xf64> to memref<?x?xf64>
  %Ad = memref.cast %A : memref<37x29xf64> to memref<?x?xf64>
  %sd = memref.cast %s : memref<3x29xf64> to memref<?x?xf64>
  %ud = memref.cast %u : memref<3x29xf64> to memref<?x?xf64>
  func.call @fill(%rd, %c2, %c37) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Ad, %c37, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%sd, %c3, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%ud, %c3, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @cs(%r, %A, %s) : (memref<2x37xf64>, memref<37x29xf64>, memref<3x29xf64>) -> ()
  func.call @sum(%sd, %c3, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @pair(%A, %s, %u) : (memref<37x29xf64>, memref<3x29xf64>, memref<3x29xf64>) -> ()
  func.call @sum(%sd, %c3, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%ud, %c3, %c29) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %r : memref<2x37xf64>
  memref.dealloc %A : memref<37x29xf64>
  memref.dealloc %s : memref<3x29xf64>
  memref.dealloc %u : memref<3x29xf64>
  return
}
