// The two textbook 2-D stencils of the seed notes, in place:
//   diagonal:      A[i][j] = 0.5 * A[i-1][j-1]   (dependence distance (1, 1))
//   anti-diagonal: A[i][j] = 0.5 * A[i-1][j+1]   (dependence distance (1, -1))
// The first band (i, j) is permutable and its inner loop is parallel, but
// once tiled a dependence crosses the tiles of j inside one tile of i: the
// tile loop of j must not be parallel (the plan ran it in parallel and the
// checker refused it: an internal error). The second needs the skewed band
// (i + j, i): Pluto's independence constraint on the second row excludes
// it (the first row i + j leaves (-1, 1) to be positive along), and the
// scheduler gave up. Both are transformed now, with the same results.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.default
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=7 profitability=false' | %polyrs-runner --threads=2 - > %t.seven
// RUN: %polyrs-opt %s --poly-opt='%{avx512} nested-parallel=true tile-sizes=4,9 profitability=false' | %polyrs-runner --threads=2 - > %t.nested
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile=false nested-parallel=true profitability=false' | %polyrs-runner --threads=2 - > %t.untiled
// RUN: diff %t.before %t.default
// RUN: diff %t.before %t.seven
// RUN: diff %t.before %t.nested
// RUN: diff %t.before %t.untiled
// RUN: FileCheck %s --input-file=%t.remarks
// RUN: %polyrs-opt %s --mlir-disable-threading --poly-print-schedule 2>&1 | FileCheck %s --check-prefix=SCHED
//
// CHECK-NOT: internal error
// CHECK: skew.mlir:{{[0-9]+}}:3: remark: poly-opt: 1 statement, {{.*}} (1 parallel){{.*}}tiles run as a parallel wavefront; legality verified
// CHECK: skew.mlir:{{[0-9]+}}:3: remark: poly-opt: 1 statement, {{.*}} (1 parallel){{.*}}legality verified
// CHECK-NOT: left unchanged
//
// SCHED: { S0[i0, i1] -> [i0, i1] }
// SCHED: { S0[i0, i1] -> [i0 + i1, i0] }
// SCHED-NEXT: dims: [band0 parallel, band0]

func.func @diagonal(%A: memref<1100x1100xf64>) {
  %h = arith.constant 0.5 : f64
  affine.for %i = 1 to 1100 {
    affine.for %j = 1 to 1100 {
      %v = affine.load %A[%i - 1, %j - 1] : memref<1100x1100xf64>
      %w = arith.mulf %h, %v : f64
      affine.store %w, %A[%i, %j] : memref<1100x1100xf64>
    }
  }
  return
}

func.func @antidiagonal(%A: memref<1100x1100xf64>) {
  %h = arith.constant 0.5 : f64
  affine.for %i = 1 to 1100 {
    affine.for %j = 0 to 1099 {
      %v = affine.load %A[%i - 1, %j + 1] : memref<1100x1100xf64>
      %w = arith.mulf %h, %v : f64
      affine.store %w, %A[%i, %j] : memref<1100x1100xf64>
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// Fills A[i][j] = 1 + (7i + 3j) mod 11 / 8, runs one kernel, prints the bits
// of the sum of A[i][j] * (1 + (i + 2j) mod 5).
func.func @check(%A: memref<1100x1100xf64>, %which: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1100 : index
  %one = arith.constant 1.0 : f64
  %c8 = arith.constant 8.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c8 : f64
      %x = arith.addf %w, %one : f64
      memref.store %x, %A[%i, %j] : memref<1100x1100xf64>
    }
  }
  %is0 = arith.cmpi eq, %which, %c0 : index
  scf.if %is0 {
    func.call @diagonal(%A) : (memref<1100x1100xf64>) -> ()
  } else {
    func.call @antidiagonal(%A) : (memref<1100x1100xf64>) -> ()
  }
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<1100x1100xf64>
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
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %A = memref.alloc() : memref<1100x1100xf64>
  func.call @check(%A, %c0) : (memref<1100x1100xf64>, index) -> ()
  func.call @check(%A, %c1) : (memref<1100x1100xf64>, index) -> ()
  memref.dealloc %A : memref<1100x1100xf64>
  return
}
