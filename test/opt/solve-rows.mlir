// Row blocks in a triangular solve: @trisolv's rows `x[i] -= L[i][j] *
// x[j]` read what earlier rows wrote, so the band's first hyperplane is
// not parallel (its tiles run as a wavefront), yet its rows are unrolled
// and jammed by a vector's lanes, and code generation runs them in lanes
// in the blocks strictly below the diagonal (every `x[j]` there is proven
// off the block's rows), the diagonal's blocks, with `x[i] /= L[i][i]`,
// as scalar copies in order. @unitsolve has no division (ludcmp's first
// solve). 100 rows: partial tiles and blocks.
// (steps=false: by default the band is cut into steps, see steps.mlir; the
// other runs below take them.)
// The results must be identical, digit for digit, before and after (2
// and 3 OpenMP threads), with AVX-512 and AVX2 sizes, tiles of 16 and no
// wavefront.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} steps=false profitability=false' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' | %polyrs-runner --threads=3 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=16 profitability=false' | %polyrs-runner --threads=3 - > %t.t16
// RUN: %polyrs-opt %s --poly-opt='%{avx512} wavefront=false profitability=false' | %polyrs-runner --threads=2 - > %t.nowave
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.t16
// RUN: diff %t.before %t.nowave
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=LANES
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: solve-rows.mlir:[[@LINE+15]]:3: remark: poly-opt: {{.*}}rows' reductions along φ2 run 8 at a time, one per vector lane where code generation proves the rows independent (a triangular solve's blocks below the diagonal){{.*}}tiles run as a parallel wavefront; legality verified
// REMARK: solve-rows.mlir:[[@LINE+36]]:3: remark: poly-opt: {{.*}}rows' reductions along φ2 run 16 at a time, one per vector lane (2 vectors) where code generation proves the rows independent{{.*}}legality verified
//
// The rows' sums in lanes: 8 rows of L loaded as vectors and transposed.
// LANES-LABEL: func.func @trisolv
// LANES: affine.parallel
// LANES: affine.vector_load %{{.*}} : memref<100x100xf64>, vector<8xf64>
// LANES: vector.shuffle
// LANES-LABEL: func.func @unitsolve
// LANES: affine.vector_load %{{.*}} : memref<100x100xf64>, vector<8xf64>
// LANES: vector.shuffle
// LANES-LABEL: func.func @fill

// x[i] = (b[i] - sum_{j < i} L[i][j] x[j]) / L[i][i], as PolyBench's trisolv.
func.func @trisolv(%L: memref<100x100xf64>, %x: memref<100xf64>, %b: memref<100xf64>) {
  affine.for %i = 0 to 100 {
    %bi = affine.load %b[%i] : memref<100xf64>
    affine.store %bi, %x[%i] : memref<100xf64>
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %l = affine.load %L[%i, %j] : memref<100x100xf64>
      %xj = affine.load %x[%j] : memref<100xf64>
      %xi = affine.load %x[%i] : memref<100xf64>
      %p = arith.mulf %l, %xj : f64
      %d = arith.subf %xi, %p : f64
      affine.store %d, %x[%i] : memref<100xf64>
    }
    %xi = affine.load %x[%i] : memref<100xf64>
    %lii = affine.load %L[%i, %i] : memref<100x100xf64>
    %q = arith.divf %xi, %lii : f64
    affine.store %q, %x[%i] : memref<100xf64>
  }
  return
}

// The unit lower triangle (ludcmp's first solve): y[i] = b[i] -
// sum_{j < i} L[i][j] y[j], no division.
func.func @unitsolve(%L: memref<100x100xf64>, %y: memref<100xf64>, %b: memref<100xf64>) {
  affine.for %i = 0 to 100 {
    %bi = affine.load %b[%i] : memref<100xf64>
    affine.store %bi, %y[%i] : memref<100xf64>
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %l = affine.load %L[%i, %j] : memref<100x100xf64>
      %yj = affine.load %y[%j] : memref<100xf64>
      %yi = affine.load %y[%i] : memref<100xf64>
      %p = arith.mulf %l, %yj : f64
      %d = arith.subf %yi, %p : f64
      affine.store %d, %y[%i] : memref<100xf64>
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// A[i][j] = ((7i + 3j) mod 11) / 7, plus 100 on the diagonal; v[i] =
// (i mod 5) - 2.
func.func @fill(%A: memref<100x100xf64>, %v: memref<100xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %c7 = arith.constant 7.0 : f64
  %big = arith.constant 100.0 : f64
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %c100 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %w0 = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %wi = arith.index_cast %w0 : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %w = arith.divf %wf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<100x100xf64>
    }
    %a = memref.load %A[%i, %i] : memref<100x100xf64>
    %a2 = arith.addf %a, %big : f64
    memref.store %a2, %A[%i, %i] : memref<100x100xf64>
    %m = affine.apply affine_map<(d0) -> (d0 mod 5)>(%i)
    %mi = arith.index_cast %m : index to i64
    %mf = arith.sitofp %mi : i64 to f64
    %e = arith.subf %mf, %two : f64
    memref.store %e, %v[%i] : memref<100xf64>
  }
  return
}

// Prints the bits of the sum of x[i] * (1 + i mod 7).
func.func @sum(%x: memref<100xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c100 step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %x[%i] : memref<100xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%i)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %p = arith.mulf %v, %wf : f64
    %n = arith.addf %acc, %p : f64
    scf.yield %n : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<100x100xf64>
  %b = memref.alloc() : memref<100xf64>
  %x = memref.alloc() : memref<100xf64>
  func.call @fill(%A, %b) : (memref<100x100xf64>, memref<100xf64>) -> ()
  func.call @trisolv(%A, %x, %b) : (memref<100x100xf64>, memref<100xf64>, memref<100xf64>) -> ()
  func.call @sum(%x) : (memref<100xf64>) -> ()
  func.call @unitsolve(%A, %x, %b) : (memref<100x100xf64>, memref<100xf64>, memref<100xf64>) -> ()
  func.call @sum(%x) : (memref<100xf64>) -> ()
  memref.dealloc %A : memref<100x100xf64>
  memref.dealloc %b : memref<100xf64>
  memref.dealloc %x : memref<100xf64>
  return
}
