// Array reductions split per thread with private copies
// (passes/opt/partials.rs): atax's `y[j] += A[i][j] * tmp[i]` sums along
// the row loop `i`, and the same loop carries the row's dot product
// `tmp[i]`, which the update reads. Without copies, the dot products run
// in parallel along `i` and the update along `j`: two passes over `A`.
// With reassociate=true (floating point) or by default (integers: exact
// in any grouping) and a copy of `y` small enough (half the target's L2),
// `i` is split into one block per thread, each summing into its own copy
// of `y`, and the copies are added to `y` in block order after them: one
// parallel pass. The blocks' rows are a multiple of the vector lanes (504
// and 496 rows with 8 lanes), so that rows jammed by the lanes fill whole
// blocks (test/opt/row-jam.mlir). So does bicg's `s[j] += r[i] * A[i][j]`
// beside `q[i] += A[i][j] * p[j]`, which writes cells along `i` and reads
// the same cells of `A` (otherwise the two run in transposed parallel
// loops): both statements keep the same hyperplanes, and each block's rows
// are taken 8 at a time along whole rows. A transposed matrix-vector
// product alone keeps its plan. The values are small integers: every grouping gives the same
// sums (expected values worked out separately, not by polyrs).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true l2-cache=16' 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' | %polyrs-runner --threads=2 - > %t.default
// RUN: diff %t.before %t.default
// RUN: %polyrs-opt %s --poly-opt='cpu=haswell threads=2 reassociate=true' | %polyrs-runner --threads=2 - > %t.avx2
// RUN: diff %t.before %t.avx2
//
// atax's y, tmp; the integer atax's y; bicg's s, q; the transposed product.
// SUMS: 23011200000
// SUMS-NEXT: 9592800
// SUMS-NEXT: 23011200000
// SUMS-NEXT: 14382000
// SUMS-NEXT: 19186800
// SUMS-NEXT: 23931594
//
// One parallel pass: the block loop, and in it the rows of the block.
// CHECK: remark: poly-opt: 6 statements, {{.*}}(4 parallel){{.*}}the reduction into arg2 (addf, a private copy of 10 KB per block) over its outer loop split into 2 blocks of 504 iterations of its outer loop, with partial results combined in order after them
// CHECK: remark: poly-opt: 6 statements, {{.*}}(4 parallel){{.*}}the reduction into arg2 (addi, a private copy of 5 KB per block) over its outer loop split into 2 blocks of 504
// CHECK-NOT: private copy
// CHECK: remark: poly-opt: 6 statements, {{.*}}the reduction into arg3 (addf, a private copy of 10 KB per block) over its outer loop split into 2 blocks of 504 iterations{{.*}}; rows of each block along φ2 taken 8 at a time, each step of φ3 (not cut into tiles) reading their 8 cells once for every statement;{{.*}} band of 3 loops tiled {{.*}}x1200;
// CHECK-NOT: private copy
// CHECK-LABEL: func.func @atax(
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x1200xf64>
// CHECK: affine.parallel (%[[T:.*]]) = (0) to (2)
// CHECK: affine.store %{{.*}}, %[[P]][%[[T]], %{{.*}}] : memref<2x1200xf64>
// CHECK: affine.parallel (%[[B:.*]]) = (0) to (2)
// CHECK: affine.load %[[P]][%{{.*}}, %{{.*}}] : memref<2x1200xf64>
// CHECK: affine.store %{{.*}}, %[[P]][%{{.*}}, %{{.*}}] : memref<2x1200xf64>
// CHECK: affine.load %[[P]][0, %{{.*}}] : memref<2x1200xf64>
// CHECK: affine.load %[[P]][1, %{{.*}}] : memref<2x1200xf64>
// CHECK: memref.dealloc %[[P]] : memref<2x1200xf64>
// CHECK-NEXT: return
// bicg: in each block, 8 rows along whole rows, both sums at each j (the
// 8 rows' sums carried across j), the copy's cell loaded and stored once.
// CHECK-LABEL: func.func @bicg(
// CHECK: %[[Q:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x1200xf64>
// CHECK: affine.for %[[J:.*]] = 0 to 1200 iter_args({{.*}}) -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
// CHECK-NEXT: affine.load %[[Q]][%{{.*}}, %[[J]]] : memref<2x1200xf64>
// CHECK-COUNT-8: affine.load %arg0[%{{.*}}, %[[J]]] : memref<1000x1200xf64>
// CHECK-NOT: affine.load %[[Q]]
// CHECK: affine.store %{{.*}}, %[[Q]][%{{.*}}, %[[J]]] : memref<2x1200xf64>
// CHECK-NOT: affine.store
// CHECK: affine.yield
//
// DEFAULT: remark: poly-opt: {{.*}}statements distributed for parallel loops
// DEFAULT: remark: poly-opt: 6 statements, {{.*}}(4 parallel){{.*}}the reduction into arg2 (addi, a private copy of 5 KB per block)
// DEFAULT-NOT: private copy
// DEFAULT-LABEL: func.func @atax(
// DEFAULT-NOT: memref.alloc
// DEFAULT-LABEL: func.func @iatax(
//
// An L2 of 16 KiB: the float copy (9.4 KiB) is over half of it, the
// integer one (4.7 KiB) is not.
// SMALL-NOT: private copy
// SMALL: remark: poly-opt: {{.*}}(addi, a private copy of 5 KB per block)
// SMALL-NOT: private copy

// atax (PolyBench), small integers.
func.func @atax(%A: memref<1000x1200xf64>, %x: memref<1200xf64>, %y: memref<1200xf64>, %tmp: memref<1000xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %j = 0 to 1200 {
    affine.store %z, %y[%j] : memref<1200xf64>
  }
  affine.for %i = 0 to 1000 {
    affine.store %z, %tmp[%i] : memref<1000xf64>
    affine.for %j = 0 to 1200 {
      %t = affine.load %tmp[%i] : memref<1000xf64>
      %a = affine.load %A[%i, %j] : memref<1000x1200xf64>
      %b = affine.load %x[%j] : memref<1200xf64>
      %m = arith.mulf %a, %b : f64
      %s = arith.addf %t, %m : f64
      affine.store %s, %tmp[%i] : memref<1000xf64>
    }
    affine.for %j = 0 to 1200 {
      %o = affine.load %y[%j] : memref<1200xf64>
      %a = affine.load %A[%i, %j] : memref<1000x1200xf64>
      %t = affine.load %tmp[%i] : memref<1000xf64>
      %m = arith.mulf %a, %t : f64
      %s = arith.addf %o, %m : f64
      affine.store %s, %y[%j] : memref<1200xf64>
    }
  }
  return
}

// the same in integers
func.func @iatax(%A: memref<1000x1200xi32>, %x: memref<1200xi32>, %y: memref<1200xi32>, %tmp: memref<1000xi32>) {
  %z = arith.constant 0 : i32
  affine.for %j = 0 to 1200 {
    affine.store %z, %y[%j] : memref<1200xi32>
  }
  affine.for %i = 0 to 1000 {
    affine.store %z, %tmp[%i] : memref<1000xi32>
    affine.for %j = 0 to 1200 {
      %t = affine.load %tmp[%i] : memref<1000xi32>
      %a = affine.load %A[%i, %j] : memref<1000x1200xi32>
      %b = affine.load %x[%j] : memref<1200xi32>
      %m = arith.muli %a, %b : i32
      %s = arith.addi %t, %m : i32
      affine.store %s, %tmp[%i] : memref<1000xi32>
    }
    affine.for %j = 0 to 1200 {
      %o = affine.load %y[%j] : memref<1200xi32>
      %a = affine.load %A[%i, %j] : memref<1000x1200xi32>
      %t = affine.load %tmp[%i] : memref<1000xi32>
      %m = arith.muli %a, %t : i32
      %s = arith.addi %o, %m : i32
      affine.store %s, %y[%j] : memref<1200xi32>
    }
  }
  return
}

// bicg's two sums in one loop: s[j] along i beside q[i] along j, both
// reading A[i][j]: split (reassociate=true), the blocks' rows 8 at a time.
func.func @bicg(%A: memref<1000x1200xf64>, %r: memref<1000xf64>, %p: memref<1200xf64>, %s: memref<1200xf64>, %q: memref<1000xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %j = 0 to 1200 {
    affine.store %z, %s[%j] : memref<1200xf64>
  }
  affine.for %i = 0 to 1000 {
    affine.store %z, %q[%i] : memref<1000xf64>
    affine.for %j = 0 to 1200 {
      %o = affine.load %s[%j] : memref<1200xf64>
      %ri = affine.load %r[%i] : memref<1000xf64>
      %a = affine.load %A[%i, %j] : memref<1000x1200xf64>
      %m = arith.mulf %ri, %a : f64
      %n = arith.addf %o, %m : f64
      affine.store %n, %s[%j] : memref<1200xf64>
      %t = affine.load %q[%i] : memref<1000xf64>
      %pj = affine.load %p[%j] : memref<1200xf64>
      %m2 = arith.mulf %a, %pj : f64
      %n2 = arith.addf %t, %m2 : f64
      affine.store %n2, %q[%i] : memref<1000xf64>
    }
  }
  return
}

// A transposed matrix-vector product alone: its loop j stays parallel.
func.func @gemvt(%A: memref<1000x1200xf64>, %x: memref<1000xf64>, %y: memref<1200xf64>) {
  affine.for %i = 0 to 1000 {
    affine.for %j = 0 to 1200 {
      %o = affine.load %y[%j] : memref<1200xf64>
      %a = affine.load %A[%i, %j] : memref<1000x1200xf64>
      %b = affine.load %x[%i] : memref<1000xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %o, %m : f64
      affine.store %n, %y[%j] : memref<1200xf64>
    }
  }
  return
}

// sum of v[k] * (k mod 7 + 1), as an integer.
func.func @check1200(%v: memref<1200xf64>) -> i64 {
  %z = arith.constant 0.0 : f64
  %s = affine.for %k = 0 to 1200 iter_args(%acc = %z) -> (f64) {
    %a = affine.load %v[%k] : memref<1200xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %m = arith.mulf %a, %wf : f64
    %n = arith.addf %acc, %m : f64
    affine.yield %n : f64
  }
  %r = arith.fptosi %s : f64 to i64
  return %r : i64
}

func.func @check1000(%v: memref<1000xf64>) -> i64 {
  %z = arith.constant 0.0 : f64
  %s = affine.for %k = 0 to 1000 iter_args(%acc = %z) -> (f64) {
    %a = affine.load %v[%k] : memref<1000xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %m = arith.mulf %a, %wf : f64
    %n = arith.addf %acc, %m : f64
    affine.yield %n : f64
  }
  %r = arith.fptosi %s : f64 to i64
  return %r : i64
}

func.func @icheck1200(%v: memref<1200xi32>) -> i64 {
  %z = arith.constant 0 : i64
  %s = affine.for %k = 0 to 1200 iter_args(%acc = %z) -> (i64) {
    %a = affine.load %v[%k] : memref<1200xi32>
    %ai = arith.extsi %a : i32 to i64
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %m = arith.muli %ai, %wi : i64
    %n = arith.addi %acc, %m : i64
    affine.yield %n : i64
  }
  return %s : i64
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @print(%v: i64) {
  func.call @printI64(%v) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<1000x1200xf64>
  %Ai = memref.alloc() : memref<1000x1200xi32>
  %x = memref.alloc() : memref<1200xf64>
  %xi = memref.alloc() : memref<1200xi32>
  %p = memref.alloc() : memref<1200xf64>
  %r = memref.alloc() : memref<1000xf64>
  %x2 = memref.alloc() : memref<1000xf64>
  %y = memref.alloc() : memref<1200xf64>
  %yi = memref.alloc() : memref<1200xi32>
  %s = memref.alloc() : memref<1200xf64>
  %y2 = memref.alloc() : memref<1200xf64>
  %tmp = memref.alloc() : memref<1000xf64>
  %tmpi = memref.alloc() : memref<1000xi32>
  %q = memref.alloc() : memref<1000xf64>
  affine.for %i = 0 to 1000 {
    affine.for %j = 0 to 1200 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5)>(%i, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f64
      affine.store %vf, %A[%i, %j] : memref<1000x1200xf64>
      affine.store %vi, %Ai[%i, %j] : memref<1000x1200xi32>
    }
  }
  %z = arith.constant 0.0 : f64
  affine.for %j = 0 to 1200 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 3)>(%j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f64
    affine.store %vf, %x[%j] : memref<1200xf64>
    affine.store %vi, %xi[%j] : memref<1200xi32>
    %w = affine.apply affine_map<(d0) -> (d0 mod 5)>(%j)
    %wi = arith.index_cast %w : index to i32
    %wf = arith.sitofp %wi : i32 to f64
    affine.store %wf, %p[%j] : memref<1200xf64>
    affine.store %z, %y2[%j] : memref<1200xf64>
  }
  affine.for %i = 0 to 1000 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 4)>(%i)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f64
    affine.store %vf, %r[%i] : memref<1000xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 6)>(%i)
    %wi = arith.index_cast %w : index to i32
    %wf = arith.sitofp %wi : i32 to f64
    affine.store %wf, %x2[%i] : memref<1000xf64>
  }
  func.call @atax(%A, %x, %y, %tmp) : (memref<1000x1200xf64>, memref<1200xf64>, memref<1200xf64>, memref<1000xf64>) -> ()
  func.call @iatax(%Ai, %xi, %yi, %tmpi) : (memref<1000x1200xi32>, memref<1200xi32>, memref<1200xi32>, memref<1000xi32>) -> ()
  func.call @bicg(%A, %r, %p, %s, %q) : (memref<1000x1200xf64>, memref<1000xf64>, memref<1200xf64>, memref<1200xf64>, memref<1000xf64>) -> ()
  func.call @gemvt(%A, %x2, %y2) : (memref<1000x1200xf64>, memref<1000xf64>, memref<1200xf64>) -> ()
  %c0 = func.call @check1200(%y) : (memref<1200xf64>) -> i64
  func.call @print(%c0) : (i64) -> ()
  %c1 = func.call @check1000(%tmp) : (memref<1000xf64>) -> i64
  func.call @print(%c1) : (i64) -> ()
  %c2 = func.call @icheck1200(%yi) : (memref<1200xi32>) -> i64
  func.call @print(%c2) : (i64) -> ()
  %c3 = func.call @check1200(%s) : (memref<1200xf64>) -> i64
  func.call @print(%c3) : (i64) -> ()
  %c4 = func.call @check1000(%q) : (memref<1000xf64>) -> i64
  func.call @print(%c4) : (i64) -> ()
  %c5 = func.call @check1200(%y2) : (memref<1200xf64>) -> i64
  func.call @print(%c5) : (i64) -> ()
  return
}
