// Steps of a wavefront: a triangular solve's band (i, j) has no parallel
// loop, and its tiles would run as a wavefront, each row of L read in
// pieces of one tile. Cut into steps of 128 rows (`steps`: the target's
// model balances a step's synchronization against its own triangle,
// `target::cpu::solve_step`; 403 rows: three steps and a partial one),
// run in order, with each row's terms split at the step's first column:
// the terms of the columns before the step (solved in earlier steps) run
// in parallel, 8 rows at a time in vector lanes, whole rows streamed; the
// step's own triangle runs in order. @stencil's band is a wavefront too, but the rows
// of one step read each other: its steps would have no parallel loop, and
// it keeps the wavefront.
// The results must be identical, digit for digit, before and after (2, 3
// and 4 OpenMP threads), with AVX-512 and AVX2 sizes, tiles of 8, plans for
// 4 threads, and without steps.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: %polyrs-runner --threads=3 %t.mlir > %t.three
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' | %polyrs-runner --threads=2 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=4 tile-sizes=8 profitability=false' 2> %t.t8.remarks | %polyrs-runner --threads=4 - > %t.t8
// RUN: %polyrs-opt %s --poly-opt='%{avx512} steps=false profitability=false' 2> %t.nosteps.remarks | %polyrs-runner --threads=2 - > %t.nosteps
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.three
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.t8
// RUN: diff %t.before %t.nosteps
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.t8.remarks --check-prefix=T8
// RUN: FileCheck %s --input-file=%t.nosteps.remarks --check-prefix=NOSTEPS
// RUN: FileCheck %s --input-file=%t.mlir
//
// SUMS-COUNT-4: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: steps.mlir:66:3: remark: poly-opt: 6 statements, {{.*}}; the outer band's first loop cut into steps of 128, run in order (φ0); S1 split at the step's start along the second loop (its part before the step in parallel, the step's own part in order); S3 not in steps (no dependence joins it to them: at step 0);{{.*}}rows' reductions along φ3 run 8 at a time, one per vector lane{{.*}}tile loop of φ2 parallel for S0, S1_lt, S3 only{{.*}}tile loops of S0, S1_lt fused (the same tiles, the same cells){{.*}}legality verified
// REMARK-NOT: steps of
// REMARK: steps.mlir:97:3: remark: poly-opt: 1 statement, {{.*}}tiles run as a parallel wavefront; legality verified
// Four threads, tiles of 8 given: steps of one tile, at least 32 rows (4
// threads, a vector's lanes each), dealt 8 rows to a thread.
// T8: remark: poly-opt: 6 statements, {{.*}}cut into steps of 32{{.*}}band of 2 loops tiled 8x8
// NOSTEPS: steps.mlir:66:3: remark: poly-opt: 4 statements, {{.*}}tiles run as a parallel wavefront; legality verified
//
// In each step, one parallel loop over the step's rows (`x[i] = b[i]` and
// the terms of earlier columns fused in it), 8 rows of L loaded as vectors
// and transposed, then the step's own rows in order.
// CHECK-LABEL: func.func @trisolv
// CHECK: affine.for %[[Q:.*]] = 0 to
// CHECK-NEXT: affine.parallel ({{.*}}) = (%[[Q]] * 2) to
// CHECK: affine.vector_load %{{.*}} : memref<?x?xf64>, vector<8xf64>
// CHECK: vector.shuffle
// W = 1.5 L, at step 0 only: its rows in parallel, with no step in its
// bounds.
// CHECK: affine.parallel
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : f64
// CHECK-LABEL: func.func @stencil

func.func private @printI64(i64)
func.func private @printNewline()

// x[i] = (b[i] - sum_{j < i} L[i][j] x[j]) / L[i][i], symbolic size;
// then W = 1.5 L, a nest that no dependence joins to the solve: it is not
// cut into steps.
func.func @trisolv(%L: memref<?x?xf64>, %x: memref<?xf64>, %b: memref<?xf64>, %W: memref<?x?xf64>, %n: index) {
  affine.for %i = 0 to %n {
    %bi = affine.load %b[%i] : memref<?xf64>
    affine.store %bi, %x[%i] : memref<?xf64>
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %l = affine.load %L[%i, %j] : memref<?x?xf64>
      %xj = affine.load %x[%j] : memref<?xf64>
      %xi = affine.load %x[%i] : memref<?xf64>
      %p = arith.mulf %l, %xj : f64
      %d = arith.subf %xi, %p : f64
      affine.store %d, %x[%i] : memref<?xf64>
    }
    %xi = affine.load %x[%i] : memref<?xf64>
    %lii = affine.load %L[%i, %i] : memref<?x?xf64>
    %q = arith.divf %xi, %lii : f64
    affine.store %q, %x[%i] : memref<?xf64>
  }
  %k = arith.constant 1.5 : f64
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %n {
      %l = affine.load %L[%i, %j] : memref<?x?xf64>
      %w = arith.mulf %l, %k : f64
      affine.store %w, %W[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Cell (i, j) from its neighbours above and to the left: a wavefront
// whose rows of one step depend on each other.
func.func @stencil(%A: memref<?x?xf64>, %n: index) {
  %h = arith.constant 0.5 : f64
  affine.for %i = 1 to %n {
    affine.for %j = 1 to %n {
      %a = affine.load %A[%i - 1, %j] : memref<?x?xf64>
      %c = affine.load %A[%i, %j - 1] : memref<?x?xf64>
      %s = arith.addf %a, %c : f64
      %m = arith.mulf %s, %h : f64
      affine.store %m, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// A[i][j] = ((7i + 3j) mod 11) / 7, plus 100 on the diagonal; v[i] =
// (i mod 5) - 2.
func.func @fill(%A: memref<?x?xf64>, %v: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  %big = arith.constant 100.0 : f64
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %w0 = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %wi = arith.index_cast %w0 : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %w = arith.divf %wf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<?x?xf64>
    }
    %a = memref.load %A[%i, %i] : memref<?x?xf64>
    %a2 = arith.addf %a, %big : f64
    memref.store %a2, %A[%i, %i] : memref<?x?xf64>
    %m = affine.apply affine_map<(d0) -> (d0 mod 5)>(%i)
    %mi = arith.index_cast %m : index to i64
    %mf = arith.sitofp %mi : i64 to f64
    %e = arith.subf %mf, %two : f64
    memref.store %e, %v[%i] : memref<?xf64>
  }
  return
}

// Prints the bits of the sum of x[i] * (1 + i mod 7) and of the sum of
// A[i][j] * (1 + (i + 2j) mod 5).
func.func @sums(%x: memref<?xf64>, %A: memref<?x?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%i)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %p = arith.mulf %v, %wf : f64
    %r = arith.addf %acc, %p : f64
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %t = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<?x?xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %p = arith.mulf %v, %wf : f64
      %r2 = arith.addf %a2, %p : f64
      scf.yield %r2 : f64
    }
    scf.yield %r : f64
  }
  %tbits = arith.bitcast %t : f64 to i64
  func.call @printI64(%tbits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

// 203 rows: partial steps, tiles and blocks of lanes.
func.func @main() {
  %n = arith.constant 403 : index
  %A = memref.alloc(%n, %n) : memref<?x?xf64>
  %b = memref.alloc(%n) : memref<?xf64>
  %x = memref.alloc(%n) : memref<?xf64>
  %W = memref.alloc(%n, %n) : memref<?x?xf64>
  func.call @fill(%A, %b, %n) : (memref<?x?xf64>, memref<?xf64>, index) -> ()
  func.call @trisolv(%A, %x, %b, %W, %n) : (memref<?x?xf64>, memref<?xf64>, memref<?xf64>, memref<?x?xf64>, index) -> ()
  func.call @stencil(%A, %n) : (memref<?x?xf64>, index) -> ()
  func.call @sums(%x, %A, %n) : (memref<?xf64>, memref<?x?xf64>, index) -> ()
  func.call @sums(%x, %W, %n) : (memref<?xf64>, memref<?x?xf64>, index) -> ()
  memref.dealloc %A : memref<?x?xf64>
  memref.dealloc %b : memref<?xf64>
  memref.dealloc %x : memref<?xf64>
  memref.dealloc %W : memref<?x?xf64>
  return
}
