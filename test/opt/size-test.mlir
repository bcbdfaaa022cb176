// A SCoP whose sizes are arguments may be small at run time, where the
// profitability rules would have left it unchanged had its sizes been
// constants (fewer than 1,000,000 statement instances: tiles and forks
// cost more than they gain; doitgen at PolyBench's SMALL size with
// symbolic bounds ran 7x slower than its input). The input stays beside
// the new code, in the `else` branch of an `scf.if` whose condition counts
// the statement instances from the parameters at run time: per statement,
// the box around its domain (a triangle's box counts it twice), widths
// and sums clamped at the least count so that nothing overflows
// (`profitability::input_when_small`, `analysis/work.rs`,
// `codegen/emit/size_test.rs`).
//
// The kernel, syrk's shape (C[i][j] for j <= i, k < m), runs twice: at
// 20 x 30 (20 * 20 + 20 * 20 * 30 = 12,400 counted: the input runs) and at
// 150 x 60 (1,372,500: the new code runs). Both print the sums of the
// input's run, digit for digit.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir
//
// Through the stock mlir-opt with the plugin: the same code.
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(poly-opt{cpu=znver4 threads=2}))' %s 2>/dev/null | %polyrs-runner --threads=2 - > %t.plugin
// RUN: diff %t.before %t.plugin
//
// Without the profitability rules, or with constant sizes, no test.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' 2>/dev/null | FileCheck %s --check-prefix=NOTEST
// RUN: sed -e 's/%alpha: f64, %n: index, %m: index/%alpha: f64, %n0: index, %m0: index/' -e 's/^func.func @syrk.*/&\n  %n = arith.constant 150 : index\n  %m = arith.constant 60 : index/' %s | %polyrs-opt --poly-opt='cpu=znver4 threads=2' 2>&1 >/dev/null | FileCheck %s --check-prefix=CONST
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: 2 statements, {{.*}}; input kept for small sizes: it runs when the statement instances, counted from the parameters at run time, are fewer than 1000000;
// CONST-NOT: input kept
// CONST: remark: poly-opt: 2 statements
// CONST-NOT: input kept
//
// The count: C[i][j]'s box is n x n, the update's n x n x m; the widths
// clamped to [0, 1000000].
// CHECK: #[[N:map[0-9]*]] = affine_map<()[s0, s1] -> (s0)>
// CHECK: #[[M:map[0-9]*]] = affine_map<()[s0, s1] -> (s1)>
// CHECK-LABEL: func.func @syrk(
// CHECK: %[[LEAST:.*]] = arith.constant 1000000 : index
// CHECK: %[[WN:.*]] = affine.apply #[[N]]()[%arg3, %arg4]
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: arith.maxsi %[[WN]], %[[ZERO]] : index
// CHECK: affine.apply #[[M]]()[%arg3, %arg4]
// CHECK: %[[BIG:.*]] = arith.cmpi sge, %{{.*}}, %[[LEAST]] : index
// CHECK: scf.if %[[BIG]] {
// CHECK: affine.parallel
// CHECK: } else {
// CHECK-NOT: affine.parallel
// The input, as it was.
// CHECK: affine.for %[[I:.*]] = 0 to %arg3 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to #{{map[0-9]*}}(%[[I]]) {
// CHECK: affine.for %{{.*}} = 0 to %arg4 {
// CHECK-NOT: affine.parallel
// CHECK: return
//
// NOTEST-LABEL: func.func @syrk(
// NOTEST-NOT: scf.if
// NOTEST: return

func.func private @printI64(i64)
func.func private @printNewline()

// C[i][j] = beta C[i][j] + alpha sum_k A[i][k] A[j][k], j <= i.
func.func @syrk(%C: memref<?x?xf64>, %A: memref<?x?xf64>, %alpha: f64, %n: index, %m: index) {
  %beta = arith.constant 1.25 : f64
  affine.for %i = 0 to %n {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      %c = affine.load %C[%i, %j] : memref<?x?xf64>
      %c2 = arith.mulf %c, %beta : f64
      affine.store %c2, %C[%i, %j] : memref<?x?xf64>
    }
    affine.for %k = 0 to %m {
      affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
        %a = affine.load %A[%i, %k] : memref<?x?xf64>
        %aa = arith.mulf %alpha, %a : f64
        %b = affine.load %A[%j, %k] : memref<?x?xf64>
        %ab = arith.mulf %aa, %b : f64
        %c = affine.load %C[%i, %j] : memref<?x?xf64>
        %s = arith.addf %c, %ab : f64
        affine.store %s, %C[%i, %j] : memref<?x?xf64>
      }
    }
  }
  return
}

// X[i][j] = ((a i + 3 j) mod 13) / 4 - 1.
func.func @fill(%X: memref<?x?xf64>, %r: index, %c: index, %a: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %four = arith.constant 4.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %r step %c1 {
    scf.for %j = %c0 to %c step %c1 {
      %ai = arith.muli %a, %i : index
      %w0 = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 3) mod 13)>(%ai, %j)
      %wi = arith.index_cast %w0 : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %w = arith.divf %wf, %four : f64
      %v = arith.subf %w, %one : f64
      memref.store %v, %X[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Prints the bits of the sum of X[i][j] * (1 + (i + 2j) mod 5).
func.func @sum(%X: memref<?x?xf64>, %r: index, %c: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %t = scf.for %i = %c0 to %r step %c1 iter_args(%acc = %z) -> (f64) {
    %s = scf.for %j = %c0 to %c step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %X[%i, %j] : memref<?x?xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %q = arith.mulf %v, %wf : f64
      %r2 = arith.addf %a2, %q : f64
      scf.yield %r2 : f64
    }
    scf.yield %s : f64
  }
  %bits = arith.bitcast %t : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

// syrk at n x m, then the sum of C.
func.func @run(%n: index, %m: index) {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %alpha = arith.constant 1.5 : f64
  %C = memref.alloc(%n, %n) : memref<?x?xf64>
  %A = memref.alloc(%n, %m) : memref<?x?xf64>
  func.call @fill(%C, %n, %n, %c3) : (memref<?x?xf64>, index, index, index) -> ()
  func.call @fill(%A, %n, %m, %c5) : (memref<?x?xf64>, index, index, index) -> ()
  func.call @syrk(%C, %A, %alpha, %n, %m) : (memref<?x?xf64>, memref<?x?xf64>, f64, index, index) -> ()
  func.call @sum(%C, %n, %n) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %C : memref<?x?xf64>
  memref.dealloc %A : memref<?x?xf64>
  return
}

func.func @main() {
  %n0 = arith.constant 20 : index
  %m0 = arith.constant 30 : index
  %n1 = arith.constant 150 : index
  %m1 = arith.constant 60 : index
  func.call @run(%n0, %m0) : (index, index) -> ()
  func.call @run(%n1, %m1) : (index, index) -> ()
  return
}
