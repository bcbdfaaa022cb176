// A SCoP whose sizes are arguments may be small at run time, where the
// profitability rules would have left it unchanged had its sizes been
// constants (fewer than 1,000,000 statement instances). Where its plan
// forks parallel loops inside a sequential loop, the forks then cost more
// than the work they share (doitgen at PolyBench's SMALL size with
// symbolic bounds: 119 µs as its input, 2367 µs transformed). The input
// stays beside the new code, in the `else` branch of an `scf.if` whose
// condition counts the statement instances from the parameters at run
// time: per statement, the box around its domain, widths and sums clamped
// at the least count so that nothing overflows
// (`profitability::input_when_small`, `analysis/work.rs`,
// `codegen/emit/size_test.rs`).
//
// The kernel, doitgen's shape with its sizes as arguments (no
// privatization of `sum` under parameters: its `p` loops run in parallel
// inside `r` and `q`), runs twice: at 5 x 4 x 6 (20 * (6 + 36 + 6) = 960
// counted: the input runs) and at 30 x 20 x 45 (600 * (45 + 2025 + 45) =
// 1,269,000: the new code runs). Both print the sums of the input's run,
// digit for digit.
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
// RUN: sed -e 's/%buf: memref<?xf64>, %nr: index, %nq: index, %np: index/%buf: memref<?xf64>, %u0: index, %v0: index, %w0: index/' -e 's/^func.func @doitgen.*/&\n  %nr = arith.constant 30 : index\n  %nq = arith.constant 20 : index\n  %np = arith.constant 45 : index/' %s | %polyrs-opt --poly-opt='cpu=znver4 threads=2' 2>&1 >/dev/null | FileCheck %s --check-prefix=CONST
//
// A plan whose parallel loops are all outermost forks once per run and
// gains even at small sizes (gemm 33 -> 20 µs at SMALL): no test.
// RUN: %polyrs-opt %S/symbolic-gemm.mlir --poly-opt='cpu=znver4 threads=2' 2>&1 >/dev/null | FileCheck %s --check-prefix=OUTERMOST
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: 3 statements, {{.*}}; input kept for small sizes: it runs when the statement instances, counted from the parameters at run time, are fewer than 1000000;
// CONST-NOT: input kept
// CONST: remark: poly-opt:
// CONST-NOT: input kept
// OUTERMOST-NOT: input kept
// OUTERMOST: remark: poly-opt: 2 statements
// OUTERMOST-NOT: input kept
//
// The count: the boxes nr x nq x np (twice: the two statements of the
// `p` loops, counted once and doubled) and nr x nq x np x np; the widths
// clamped to [0, 1000000].
// CHECK: #[[R:map[0-9]*]] = affine_map<()[s0, s1, s2] -> (s0)>
// CHECK: #[[Q:map[0-9]*]] = affine_map<()[s0, s1, s2] -> (s1)>
// CHECK: #[[P:map[0-9]*]] = affine_map<()[s0, s1, s2] -> (s2)>
// CHECK-LABEL: func.func @doitgen(
// CHECK: %[[LEAST:.*]] = arith.constant 1000000 : index
// CHECK: %[[WR:.*]] = affine.apply #[[R]]()[%arg3, %arg4, %arg5]
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: arith.maxsi %[[WR]], %[[ZERO]] : index
// CHECK: affine.apply #[[Q]]()[%arg3, %arg4, %arg5]
// CHECK: affine.apply #[[P]]()[%arg3, %arg4, %arg5]
// CHECK: arith.constant 2 : index
// CHECK: %[[BIG:.*]] = arith.cmpi sge, %{{.*}}, %[[LEAST]] : index
// CHECK: scf.if %[[BIG]] {
// CHECK: affine.parallel
// CHECK: } else {
// CHECK-NOT: affine.parallel
// The input, as it was.
// CHECK: affine.for %[[R0:.*]] = 0 to %arg3 {
// CHECK-NEXT: affine.for %[[Q0:.*]] = 0 to %arg4 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to %arg5 {
// CHECK-NOT: affine.parallel
// CHECK: return
//
// NOTEST-LABEL: func.func @doitgen(
// NOTEST-NOT: scf.if
// NOTEST: return

func.func private @printI64(i64)
func.func private @printNewline()

// A[r][q][p] = sum_s A[r][q][s] C4[s][p], through sum[p].
func.func @doitgen(%A: memref<?x?x?xf64>, %C4: memref<?x?xf64>, %buf: memref<?xf64>, %nr: index, %nq: index, %np: index) {
  %zero = arith.constant 0.0 : f64
  affine.for %r = 0 to %nr {
    affine.for %q = 0 to %nq {
      affine.for %p = 0 to %np {
        affine.store %zero, %buf[%p] : memref<?xf64>
        affine.for %s = 0 to %np {
          %acc = affine.load %buf[%p] : memref<?xf64>
          %a = affine.load %A[%r, %q, %s] : memref<?x?x?xf64>
          %c = affine.load %C4[%s, %p] : memref<?x?xf64>
          %m = arith.mulf %a, %c : f64
          %n = arith.addf %acc, %m : f64
          affine.store %n, %buf[%p] : memref<?xf64>
        }
      }
      affine.for %p = 0 to %np {
        %v = affine.load %buf[%p] : memref<?xf64>
        affine.store %v, %A[%r, %q, %p] : memref<?x?x?xf64>
      }
    }
  }
  return
}

// w(i, j) = ((i + 3 j) mod 13) / 4 - 1.
func.func @value(%i: index, %j: index) -> f64 {
  %four = arith.constant 4.0 : f64
  %one = arith.constant 1.0 : f64
  %w0 = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 3) mod 13)>(%i, %j)
  %wi = arith.index_cast %w0 : index to i64
  %wf = arith.sitofp %wi : i64 to f64
  %w = arith.divf %wf, %four : f64
  %v = arith.subf %w, %one : f64
  return %v : f64
}

// doitgen at nr x nq x np, then the bits of the sum of A[r][q][p] * (1 +
// (r + q + 2 p) mod 5).
func.func @run(%nr: index, %nq: index, %np: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %A = memref.alloc(%nr, %nq, %np) : memref<?x?x?xf64>
  %C4 = memref.alloc(%np, %np) : memref<?x?xf64>
  %buf = memref.alloc(%np) : memref<?xf64>
  scf.for %r = %c0 to %nr step %c1 {
    scf.for %q = %c0 to %nq step %c1 {
      scf.for %p = %c0 to %np step %c1 {
        %rq = affine.apply affine_map<(d0, d1) -> (d0 * 7 + d1)>(%r, %q)
        %v = func.call @value(%rq, %p) : (index, index) -> f64
        memref.store %v, %A[%r, %q, %p] : memref<?x?x?xf64>
      }
    }
  }
  scf.for %s = %c0 to %np step %c1 {
    scf.for %p = %c0 to %np step %c1 {
      %s5 = affine.apply affine_map<(d0) -> (d0 * 5)>(%s)
      %v = func.call @value(%s5, %p) : (index, index) -> f64
      memref.store %v, %C4[%s, %p] : memref<?x?xf64>
    }
  }
  func.call @doitgen(%A, %C4, %buf, %nr, %nq, %np) : (memref<?x?x?xf64>, memref<?x?xf64>, memref<?xf64>, index, index, index) -> ()
  %t = scf.for %r = %c0 to %nr step %c1 iter_args(%a0 = %z) -> (f64) {
    %t1 = scf.for %q = %c0 to %nq step %c1 iter_args(%a1 = %a0) -> (f64) {
      %t2 = scf.for %p = %c0 to %np step %c1 iter_args(%a2 = %a1) -> (f64) {
        %v = memref.load %A[%r, %q, %p] : memref<?x?x?xf64>
        %w = affine.apply affine_map<(d0, d1, d2) -> ((d0 + d1 + d2 * 2) mod 5 + 1)>(%r, %q, %p)
        %wi = arith.index_cast %w : index to i64
        %wf = arith.sitofp %wi : i64 to f64
        %x = arith.mulf %v, %wf : f64
        %y = arith.addf %a2, %x : f64
        scf.yield %y : f64
      }
      scf.yield %t2 : f64
    }
    scf.yield %t1 : f64
  }
  %bits = arith.bitcast %t : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %A : memref<?x?x?xf64>
  memref.dealloc %C4 : memref<?x?xf64>
  memref.dealloc %buf : memref<?xf64>
  return
}

func.func @main() {
  %c5 = arith.constant 5 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c30 = arith.constant 30 : index
  %c20 = arith.constant 20 : index
  %c45 = arith.constant 45 : index
  func.call @run(%c5, %c4, %c6) : (index, index, index) -> ()
  func.call @run(%c30, %c20, %c45) : (index, index, index) -> ()
  return
}
