// reassociate=true on a triangular solve cut into steps (`steps`):
// trisolv's `x[i] -= L[i][j] * x[j]` is a reduction into `x[i]` along `j`
// even though the statement reads other cells of `x` (`x[j]`, `j < i`:
// never its own cell in one instance), and its pieces (`S1_lt`, the
// columns before the step; `S1_eq`, `S1_gt`, the step's own triangle) are
// each a chain of it. The columns before the step then run as gemv's rows
// do: 8 rows at a time, each row's chain in vector lanes along its row
// (`fastmath<reassoc>`), whole rows streamed, the rows in parallel
// (1100 rows: eight steps of 128 and a partial one).
// @self_solve reads its own cell (`j <= i`: `y[i]` at `j = i`): no
// reduction, no flag, its order kept. Off by default: the 8 rows in the
// lanes of one vector, each chain in order (test/opt/steps.mlir).
// The values are dyadic with small denominators (L's entries 0 and 1, a
// diagonal of 2): every order of the terms gives the same sums, so the
// results must be identical before and after.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true profitability=false' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 reassociate=true profitability=false' | %polyrs-runner --threads=3 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true fuse=no tile-sizes=16 profitability=false' | %polyrs-runner --threads=2 - > %t.fuseno
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.fuseno
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>&1 | FileCheck %s --check-prefix=OFF
//
// The sums' bits (as 64-bit integers), and the solutions' sums as numbers.
// SUMS-COUNT-4: {{^-?[0-9]+$}}
// SUMS-NEXT: 0.464567
// SUMS-NEXT: 1.86003e+09
// SUMS-NOT: {{.}}
//
// REMARK: reassociate-solve.mlir:64:3: remark: poly-opt: {{.*}}cut into steps of 128{{.*}}rows' chains along φ3 (run in vector lanes along it) taken 8 rows at a time{{.*}}tile loop of φ2 parallel for S0, S1_lt only{{.*}}reductions S1_lt (subf along i1), S1_eq (subf along i1), S1_gt (subf along i1) reassociated
// REMARK-NOT: reassociated
// REMARK: reassociate-solve.mlir:86:3: remark: poly-opt: {{.*}}cut into steps of 128{{.*}}fused (the same tiles, the same cells){{[^;]*}}; legality verified; target
//
// The full steps (the first and the last, partial, are peeled): the
// columns before the step, 8 rows' chains carried along the row (each a
// row of L: `L[8t][j]`), in parallel over the step's blocks of rows.
// CHECK-LABEL: func.func @solve(
// CHECK: affine.for %[[Q:.*]] = 1 to 8 {
// CHECK-NEXT: affine.parallel (%{{.*}}) = (%[[Q]] * 8) to (%[[Q]] * 8 + 8) {
// CHECK: affine.for %[[J:.*]] = {{.*}} iter_args({{.*}}) -> (f64, f64, f64, f64, f64, f64, f64, f64) {
// CHECK-NEXT: affine.load %{{.*}}[%{{.*}} * 8, %[[J]]] : memref<1100x1100xf64>
// CHECK-NEXT: affine.load
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.subf {{.*}} fastmath<reassoc> : f64
// CHECK-LABEL: func.func @self_solve(
// CHECK-NOT: fastmath<reassoc>
// CHECK-LABEL: func.func @fill(
//
// OFF: reassociate-solve.mlir:64:3: remark: poly-opt: {{.*}}rows' reductions along φ3 run 8 at a time, one per vector lane
// OFF-NOT: reassociated
// OFF-NOT: fastmath<reassoc>

func.func private @printF64(f64)
func.func private @printI64(i64)
func.func private @printNewline()

func.func @solve(%L: memref<1100x1100xf64>, %x: memref<1100xf64>, %b: memref<1100xf64>) {
  affine.for %i = 0 to 1100 {
    %bi = affine.load %b[%i] : memref<1100xf64>
    affine.store %bi, %x[%i] : memref<1100xf64>
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %xi = affine.load %x[%i] : memref<1100xf64>
      %l = affine.load %L[%i, %j] : memref<1100x1100xf64>
      %xj = affine.load %x[%j] : memref<1100xf64>
      %m = arith.mulf %l, %xj : f64
      %s = arith.subf %xi, %m : f64
      affine.store %s, %x[%i] : memref<1100xf64>
    }
    %v = affine.load %x[%i] : memref<1100xf64>
    %d = affine.load %L[%i, %i] : memref<1100x1100xf64>
    %q = arith.divf %v, %d : f64
    affine.store %q, %x[%i] : memref<1100xf64>
  }
  return
}

// The terms run up to the diagonal: at `j = i` the statement reads its
// own cell (`y[i]`, half updated), so the chain is no reduction.
func.func @self_solve(%L: memref<1100x1100xf64>, %y: memref<1100xf64>, %b: memref<1100xf64>) {
  affine.for %i = 0 to 1100 {
    %bi = affine.load %b[%i] : memref<1100xf64>
    affine.store %bi, %y[%i] : memref<1100xf64>
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      %yi = affine.load %y[%i] : memref<1100xf64>
      %l = affine.load %L[%i, %j] : memref<1100x1100xf64>
      %yj = affine.load %y[%j] : memref<1100xf64>
      %m = arith.mulf %l, %yj : f64
      %s = arith.subf %yi, %m : f64
      affine.store %s, %y[%i] : memref<1100xf64>
    }
  }
  return
}

// L[i][j] = 1 where i - j is a positive multiple of 37, 2 on the
// diagonal, 0 elsewhere; b[i] = (i mod 7) - 3.
func.func @fill(%L: memref<1100x1100xf64>, %b: memref<1100xf64>) {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %c37 = arith.constant 37 : index
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %c3 = arith.constant 3 : i64
  affine.for %i = 0 to 1100 {
    affine.for %j = 0 to 1100 {
      %d = arith.subi %i, %j : index
      %r = arith.remsi %d, %c37 : index
      %multiple = arith.cmpi eq, %r, %c0 : index
      %below = arith.cmpi sgt, %d, %c0 : index
      %on = arith.andi %multiple, %below : i1
      %diag = arith.cmpi eq, %d, %c0 : index
      %v0 = arith.select %on, %one, %zero : f64
      %v = arith.select %diag, %two, %v0 : f64
      memref.store %v, %L[%i, %j] : memref<1100x1100xf64>
    }
    %m = arith.remsi %i, %c7 : index
    %mi = arith.index_cast %m : index to i64
    %bi = arith.subi %mi, %c3 : i64
    %bf = arith.sitofp %bi : i64 to f64
    memref.store %bf, %b[%i] : memref<1100xf64>
  }
  return
}

// The sum of the solution and its sum weighted by the row's number, as
// bits.
func.func @sums(%x: memref<1100xf64>) {
  %zero = arith.constant 0.0 : f64
  %s:2 = affine.for %i = 0 to 1100 iter_args(%a = %zero, %w = %zero) -> (f64, f64) {
    %v = affine.load %x[%i] : memref<1100xf64>
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    %fv = arith.mulf %f, %v : f64
    %na = arith.addf %a, %v : f64
    %nw = arith.addf %w, %fv : f64
    affine.yield %na, %nw : f64, f64
  }
  %b0 = arith.bitcast %s#0 : f64 to i64
  %b1 = arith.bitcast %s#1 : f64 to i64
  func.call @printI64(%b0) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%b1) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @value(%x: memref<1100xf64>) {
  %zero = arith.constant 0.0 : f64
  %s = affine.for %i = 0 to 1100 iter_args(%a = %zero) -> (f64) {
    %v = affine.load %x[%i] : memref<1100xf64>
    %na = arith.addf %a, %v : f64
    affine.yield %na : f64
  }
  func.call @printF64(%s) : (f64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %L = memref.alloc() : memref<1100x1100xf64>
  %b = memref.alloc() : memref<1100xf64>
  %x = memref.alloc() : memref<1100xf64>
  %y = memref.alloc() : memref<1100xf64>
  func.call @fill(%L, %b) : (memref<1100x1100xf64>, memref<1100xf64>) -> ()
  func.call @solve(%L, %x, %b) : (memref<1100x1100xf64>, memref<1100xf64>, memref<1100xf64>) -> ()
  func.call @self_solve(%L, %y, %b) : (memref<1100x1100xf64>, memref<1100xf64>, memref<1100xf64>) -> ()
  func.call @sums(%x) : (memref<1100xf64>) -> ()
  func.call @sums(%y) : (memref<1100xf64>) -> ()
  func.call @value(%x) : (memref<1100xf64>) -> ()
  func.call @value(%y) : (memref<1100xf64>) -> ()
  memref.dealloc %L : memref<1100x1100xf64>
  memref.dealloc %b : memref<1100xf64>
  memref.dealloc %x : memref<1100xf64>
  memref.dealloc %y : memref<1100xf64>
  return
}
