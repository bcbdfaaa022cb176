// Reductions over a whole loop nest (one cell for every instance: a dot
// product, a sum, a maximum) split into blocks with partial results, one
// block per thread, combined in order after them (passes/opt/partials.rs):
// the block loop runs in parallel. Floating-point sums only with
// reassociate=true (the dot below is left unchanged without it); integer
// reductions and IEEE maxima give the same bits in any grouping and are
// split by default. The values below are small integers, so every grouping
// of the terms gives the same sums: the results are identical.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true threads=1' 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' | %polyrs-runner --threads=2 - > %t.default
// RUN: diff %t.before %t.default
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS: 2399877
// SUMS-NEXT: 599982
// SUMS-NEXT: -599982
// SUMS-NEXT: 2048
// SUMS-NEXT: 9999991
// SUMS-NEXT: 59995
// SUMS-NEXT: 199999
//
// CHECK: partials.mlir:77:3: remark: poly-opt: {{.*}}(1 parallel){{.*}}the reduction into arg2 (addf) over the whole nest split into 2 blocks of 50000 iterations of its outer loop, with partial results combined in order after them
// CHECK: partials.mlir:91:8: remark: poly-opt: {{.*}}(1 parallel){{.*}}the reduction into alloca (addf) over the whole nest split into 2 blocks of 50000
// CHECK: partials.mlir:104:8: remark: poly-opt: {{.*}}(1 parallel){{.*}}the reduction into alloca (addf) over the whole nest split into 2 blocks of 200
// CHECK: partials.mlir:118:3: remark: poly-opt: {{.*}}(1 parallel){{.*}}the reduction into arg1 (subf) over the whole nest split into 2 blocks of 50000
// CHECK: partials.mlir:128:3: remark: poly-opt: {{.*}}(1 parallel){{.*}}the reduction into arg1 (maximumf) over the whole nest split into 2 blocks of 1024
// CHECK: partials.mlir:140:3: remark: poly-opt: {{.*}}(1 parallel){{.*}}the reduction into arg1 (addi) over the whole nest split into 2 blocks of 1000000
// Too few terms for two blocks: not split.
// CHECK: partials.mlir:150:3: remark: poly-opt: SCoP left unchanged
// CHECK-LABEL: func.func @dot(
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<2x8xf64>
// CHECK: arith.constant -0.000000e+00 : f64
// CHECK: affine.parallel
// CHECK: fastmath<reassoc>
// CHECK: affine.for {{.*}} = 0 to 2 iter_args
// CHECK-LABEL: func.func @carried_sum(
// CHECK: affine.parallel
// CHECK-LABEL: func.func @carried_matrix(
// CHECK: affine.parallel
// CHECK-LABEL: func.func @minus(
// CHECK: affine.parallel
// CHECK: affine.for {{.*}} = 0 to 2 iter_args
// CHECK: arith.addf
// CHECK-LABEL: func.func @maximum(
// CHECK: memref<2x16xf32>
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: affine.parallel
// CHECK-LABEL: func.func @isum(
// CHECK: memref<2x16xi32>
// CHECK: affine.parallel
// CHECK-LABEL: func.func @small(
// CHECK-NOT: affine.parallel
// CHECK-LABEL: func.func @main(
//
// DEFAULT: partials.mlir:77:3: remark: poly-opt: SCoP left unchanged: no profitable transformation
// DEFAULT-NOT: split into
// DEFAULT: the reduction into arg1 (maximumf) over the whole nest split into 2 blocks
// DEFAULT: the reduction into arg1 (addi) over the whole nest split into 2 blocks
// DEFAULT-NOT: split into
// DEFAULT-LABEL: func.func @dot(
// DEFAULT-NOT: memref.alloca
// DEFAULT-LABEL: func.func @carried_sum(
//
// One thread: no blocks; the chain reassociated (reassociate.mlir).
// ONE-NOT: split into
// ONE: partials.mlir:77:3: remark: poly-opt: 1 statement, 1 loop (0 parallel), 0 guards; reduction S0 (addf along i0) reassociated
// ONE-NOT: split into
// ONE-NOT: affine.parallel
// ONE-LABEL: func.func @main(

func.func @dot(%x: memref<100000xf64>, %z: memref<100000xf64>, %out: memref<f64>) {
  affine.for %j = 0 to 100000 {
    %a = affine.load %x[%j] : memref<100000xf64>
    %b = affine.load %z[%j] : memref<100000xf64>
    %m = arith.mulf %a, %b : f64
    %o = affine.load %out[] : memref<f64>
    %n = arith.addf %o, %m : f64
    affine.store %n, %out[] : memref<f64>
  }
  return
}

// A sum carried through iter_args (demoted into a cell).
func.func @carried_sum(%x: memref<100000xf64>, %out: memref<2xf64>) {
  %z = arith.constant 0.0 : f64
  %s = affine.for %j = 0 to 100000 iter_args(%acc = %z) -> (f64) {
    %a = affine.load %x[%j] : memref<100000xf64>
    %n = arith.addf %acc, %a : f64
    affine.yield %n : f64
  }
  affine.store %s, %out[1] : memref<2xf64>
  return
}

// A sum over a matrix carried through iter_args at both levels: one cell
// for both loops (demote::share_cells), a reduction of the whole nest.
func.func @carried_matrix(%B: memref<400x500xf64>, %out: memref<f64>) {
  %z = arith.constant 0.0 : f64
  %s = affine.for %i = 0 to 400 iter_args(%acc = %z) -> (f64) {
    %r = affine.for %j = 0 to 500 iter_args(%a2 = %acc) -> (f64) {
      %a = affine.load %B[%i, %j] : memref<400x500xf64>
      %n = arith.addf %a2, %a : f64
      affine.yield %n : f64
    }
    affine.yield %r : f64
  }
  affine.store %s, %out[] : memref<f64>
  return
}

// out[0] - x[0] - x[1] - ...: the blocks' partial results are added.
func.func @minus(%x: memref<100000xf64>, %out: memref<2xf64>) {
  affine.for %j = 0 to 100000 {
    %a = affine.load %x[%j] : memref<100000xf64>
    %o = affine.load %out[0] : memref<2xf64>
    %n = arith.subf %o, %a : f64
    affine.store %n, %out[0] : memref<2xf64>
  }
  return
}

func.func @maximum(%A: memref<2048x2048xf32>, %out: memref<f32>) {
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 2048 {
      %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
      %o = affine.load %out[] : memref<f32>
      %n = arith.maximumf %o, %a : f32
      affine.store %n, %out[] : memref<f32>
    }
  }
  return
}

func.func @isum(%x: memref<2000000xi32>, %out: memref<i32>) {
  affine.for %j = 0 to 2000000 {
    %a = affine.load %x[%j] : memref<2000000xi32>
    %o = affine.load %out[] : memref<i32>
    %n = arith.addi %o, %a : i32
    affine.store %n, %out[] : memref<i32>
  }
  return
}

func.func @small(%x: memref<12000xi32>, %out: memref<i32>) {
  affine.for %j = 0 to 12000 {
    %a = affine.load %x[%j] : memref<12000xi32>
    %o = affine.load %out[] : memref<i32>
    %n = arith.addi %o, %a : i32
    affine.store %n, %out[] : memref<i32>
  }
  return
}

func.func private @printF64(f64)
func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() {
  %x = memref.alloc() : memref<100000xf64>
  %z = memref.alloc() : memref<100000xf64>
  %out = memref.alloc() : memref<f64>
  %B = memref.alloc() : memref<400x500xf64>
  %mo = memref.alloc() : memref<f64>
  %two = memref.alloc() : memref<2xf64>
  %A = memref.alloc() : memref<2048x2048xf32>
  %mx = memref.alloc() : memref<f32>
  %xi = memref.alloc() : memref<2000000xi32>
  %si = memref.alloc() : memref<i32>
  %xs = memref.alloc() : memref<12000xi32>
  %ss = memref.alloc() : memref<i32>
  affine.for %k = 0 to 100000 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 13)>(%k)
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    affine.store %vf, %x[%k] : memref<100000xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    affine.store %wf, %z[%k] : memref<100000xf64>
  }
  affine.for %i = 0 to 400 {
    affine.for %j = 0 to 500 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 + d1) mod 3)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      affine.store %vf, %B[%i, %j] : memref<400x500xf64>
    }
  }
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 2048 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 3 + d1 * 5) mod 2049)>(%i, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      affine.store %vf, %A[%i, %j] : memref<2048x2048xf32>
    }
  }
  affine.for %k = 0 to 2000000 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 11)>(%k)
    %vi = arith.index_cast %v : index to i32
    affine.store %vi, %xi[%k] : memref<2000000xi32>
  }
  affine.for %k = 0 to 12000 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 11)>(%k)
    %vi = arith.index_cast %v : index to i32
    affine.store %vi, %xs[%k] : memref<12000xi32>
  }
  %c0 = arith.constant 0.0 : f64
  affine.store %c0, %out[] : memref<f64>
  affine.store %c0, %two[0] : memref<2xf64>
  %ninf = arith.constant 0xFF800000 : f32
  affine.store %ninf, %mx[] : memref<f32>
  %i0 = arith.constant 0 : i32
  affine.store %i0, %si[] : memref<i32>
  affine.store %i0, %ss[] : memref<i32>
  func.call @dot(%x, %z, %out) : (memref<100000xf64>, memref<100000xf64>, memref<f64>) -> ()
  func.call @carried_sum(%x, %two) : (memref<100000xf64>, memref<2xf64>) -> ()
  func.call @carried_matrix(%B, %mo) : (memref<400x500xf64>, memref<f64>) -> ()
  func.call @minus(%x, %two) : (memref<100000xf64>, memref<2xf64>) -> ()
  func.call @maximum(%A, %mx) : (memref<2048x2048xf32>, memref<f32>) -> ()
  func.call @isum(%xi, %si) : (memref<2000000xi32>, memref<i32>) -> ()
  func.call @small(%xs, %ss) : (memref<12000xi32>, memref<i32>) -> ()
  %d = affine.load %out[] : memref<f64>
  %c = affine.load %two[1] : memref<2xf64>
  %m = affine.load %two[0] : memref<2xf64>
  %x0 = affine.load %mx[] : memref<f32>
  %s0 = affine.load %si[] : memref<i32>
  %s1 = affine.load %ss[] : memref<i32>
  %di = arith.fptosi %d : f64 to i64
  %ci = arith.fptosi %c : f64 to i64
  %mi = arith.fptosi %m : f64 to i64
  %xx = arith.fptosi %x0 : f32 to i64
  %s0i = arith.extsi %s0 : i32 to i64
  %s1i = arith.extsi %s1 : i32 to i64
  func.call @printI64(%di) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%ci) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%mi) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%xx) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%s0i) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%s1i) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %mof = affine.load %mo[] : memref<f64>
  %moi = arith.fptosi %mof : f64 to i64
  func.call @printI64(%moi) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
