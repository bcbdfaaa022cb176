// affine.parallel with `reduce` (the form upstream's affine-parallelize
// writes with parallel-reductions=true) is modeled (passes/opt/demote.rs):
// a nest of affine.for loops with the same bounds, a cell per reduced
// value started at the kind's identity as upstream's lower-affine starts
// it, updated at the end of the body. The input allows any order of the
// terms, so floating-point sums and products get fastmath<reassoc>, which
// lets them be split into blocks per thread and run in vector lanes under
// the default options. The values are small integers (sums below 2^24,
// products powers of two or three), so every grouping gives the same
// results: they are identical to the input's, and to the values worked
// out separately (in Python) below.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 >/dev/null | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' > %t.opt.mlir
// RUN: FileCheck %s --input-file=%t.opt.mlir --check-prefix=IR
// The input runs without OpenMP: MLIR 22's convert-scf-to-openmp cannot
// lower a maximumf reduction, and the runner says so.
// RUN: %polyrs-runner --threads=2 %s > %t.before 2> %t.warnings
// RUN: FileCheck %s --input-file=%t.warnings --check-prefix=WARN
// WARN: parallel-reduce.mlir:83:10: warning: a parallel loop reduces with 'arith.maximumf', which convert-scf-to-openmp cannot lower: the module's parallel loops run in order, without OpenMP
// RUN: %polyrs-runner --threads=2 %t.opt.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: %polyrs-opt %s --poly-opt='%{avx512} iter-args=false' 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF
// SUMS: 2399877
// SUMS-NEXT: 2002
// SUMS-NEXT: 2001
// SUMS-NEXT: 1572863
// SUMS-NEXT: 256
// SUMS-NEXT: 3
// SUMS-NEXT: -3
// SUMS-NEXT: 5767163
// SUMS-NEXT: 6561
// SUMS-NEXT: 8
// SUMS-NEXT: 15
// SUMS-NEXT: 7979
// SUMS-NEXT: 2000000
// SUMS-NOT: {{.}}

// The terms of a sum: a dot product written as upstream's affine-parallelize
// (parallel-reductions=true) writes it.
// CHECK: parallel-reduce.mlir:[[@LINE+3]]:8: remark: poly-opt: {{.*}}(1 parallel){{.*}}'affine.parallel' reduction (addf) carried in a cell, 1 loop in its place (fastmath<reassoc>: its terms in any order, as the input allows); the reduction into alloca (addf) over the whole nest split into 2 blocks of 50000
// OFF: parallel-reduce.mlir:[[@LINE+2]]:8: remark: poly-opt: loop nest not optimized: it is not a static control part: 'affine.parallel' has reductions (not modeled)
func.func @dot(%x: memref<100000xf64>, %z: memref<100000xf64>, %out: memref<f64>) {
  %s = affine.parallel (%j) = (0) to (100000) reduce ("addf") -> (f64) {
    %a = affine.load %x[%j] : memref<100000xf64>
    %b = affine.load %z[%j] : memref<100000xf64>
    %m = arith.mulf %a, %b : f64
    affine.yield %m : f64
  }
  affine.store %s, %out[] : memref<f64>
  return
}

// A matrix-vector product, each row's sum reduced by an inner
// affine.parallel: the rows in parallel (the cell privatized per row), each
// row's chain reassociated (vector lanes).
// CHECK: parallel-reduce.mlir:[[@LINE+3]]:3: remark: poly-opt: {{.*}}(1 parallel){{.*}}'affine.parallel' reduction (addf) carried in a cell, 1 loop in its place (fastmath<reassoc>{{.*}}privatized
// IR-LABEL: func.func @gemv(
func.func @gemv(%A: memref<1000x1000xf64>, %x: memref<1000xf64>, %y: memref<1000xf64>) {
  affine.parallel (%i) = (0) to (1000) {
    %s = affine.parallel (%j) = (0) to (1000) reduce ("addf") -> (f64) {
      %a = affine.load %A[%i, %j] : memref<1000x1000xf64>
      %b = affine.load %x[%j] : memref<1000xf64>
      %m = arith.mulf %a, %b : f64
      affine.yield %m : f64
    }
    affine.store %s, %y[%i] : memref<1000xf64>
  }
  return
}
// IR: affine.parallel
// IR-NOT: reduce
// IR: arith.addf {{.*}} fastmath<reassoc> : f64
// IR-LABEL: func.func @kinds_f32(

// Every floating-point kind, over two dimensions whose bounds are groups
// of the maps' results (a maximum, a minimum): one cell each, started at
// the kind's identity (0.0, 1.0, -inf, +inf); only the sum and the product
// marked reassoc.
// CHECK: parallel-reduce.mlir:[[@LINE+2]]:10: remark: poly-opt: {{.*}}'affine.parallel' reductions (addf, mulf, maximumf, minimumf) carried in a cell, 2 loops in its place (fastmath<reassoc>
func.func @kinds_f32(%out: memref<4xf32>) {
  %r:4 = affine.parallel (%i, %j) = (0, max(0, 0)) to (512, min(1024, 1030)) reduce ("addf", "mulf", "maximumf", "minimumf") -> (f32, f32, f32, f32) {
    %v = affine.apply affine_map<(d0, d1) -> ((d0 * 3 + d1 * 5) mod 7)>(%i, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %three = arith.constant 3.0 : f32
    %c = arith.subf %vf, %three : f32
    %k = affine.apply affine_map<(d0, d1) -> ((d0 * 1024 + d1) mod 65536)>(%i, %j)
    %ki = arith.index_cast %k : index to i32
    %zero = arith.constant 0 : i32
    %is0 = arith.cmpi eq, %ki, %zero : i32
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %p = arith.select %is0, %two, %one : f32
    affine.yield %vf, %p, %c, %c : f32, f32, f32, f32
  }
  affine.store %r#0, %out[0] : memref<4xf32>
  affine.store %r#1, %out[1] : memref<4xf32>
  affine.store %r#2, %out[2] : memref<4xf32>
  affine.store %r#3, %out[3] : memref<4xf32>
  return
}
// IR: arith.constant 0xFF800000 : f32
// IR: arith.constant 0x7F800000 : f32
// IR: arith.constant 1.000000e+00 : f32
// IR: arith.constant 0.000000e+00 : f32
// IR-LABEL: func.func @kinds_i32(

// Every integer kind (exact in any grouping).
// CHECK: parallel-reduce.mlir:[[@LINE+2]]:10: remark: poly-opt: {{.*}}'affine.parallel' reductions (addi, muli, andi, ori) carried in a cell, 2 loops in its place;
func.func @kinds_i32(%out: memref<4xi32>) {
  %r:4 = affine.parallel (%i, %j) = (0, 0) to (512, 1024) reduce ("addi", "muli", "andi", "ori") -> (i32, i32, i32, i32) {
    %v = affine.apply affine_map<(d0, d1) -> ((d0 + d1) mod 7 + 8)>(%i, %j)
    %w = arith.index_cast %v : index to i32
    %k = affine.apply affine_map<(d0, d1) -> ((d0 * 1024 + d1) mod 65536)>(%i, %j)
    %ki = arith.index_cast %k : index to i32
    %zero = arith.constant 0 : i32
    %is0 = arith.cmpi eq, %ki, %zero : i32
    %three = arith.constant 3 : i32
    %one = arith.constant 1 : i32
    %m = arith.select %is0, %three, %one : i32
    affine.yield %w, %m, %w, %w : i32, i32, i32, i32
  }
  affine.store %r#0, %out[0] : memref<4xi32>
  affine.store %r#1, %out[1] : memref<4xi32>
  affine.store %r#2, %out[2] : memref<4xi32>
  affine.store %r#3, %out[3] : memref<4xi32>
  return
}
// IR-LABEL: func.func @small(

// Too little work: the input comes back as it was, its reduction kept.
// CHECK: parallel-reduce.mlir:[[@LINE+4]]:8: remark: poly-opt: SCoP left unchanged: no profitable transformation
// IR: affine.parallel (%{{.*}}) = (0) to (1000) reduce ("addi") -> (i32)
// IR-LABEL: func.func @marked(
func.func @small(%out: memref<i32>) {
  %s = affine.parallel (%j) = (0) to (1000) reduce ("addi") -> (i32) {
    %v = affine.apply affine_map<(d0) -> (d0 mod 17)>(%j)
    %w = arith.index_cast %v : index to i32
    affine.yield %w : i32
  }
  affine.store %s, %out[] : memref<i32>
  return
}

// A sum the input itself marks fastmath<reassoc>: its terms are regrouped
// without reassociate=true, as LLVM may regroup them.
// CHECK: parallel-reduce.mlir:[[@LINE+2]]:3: remark: poly-opt: {{.*}}(1 parallel){{.*}}the reduction into arg2 (addf) over the whole nest split into 2 blocks of 100000
func.func @marked(%x: memref<200000xf64>, %z: memref<200000xf64>, %out: memref<f64>) {
  affine.for %j = 0 to 200000 {
    %a = affine.load %x[%j] : memref<200000xf64>
    %b = affine.load %z[%j] : memref<200000xf64>
    %m = arith.mulf %a, %b : f64
    %o = affine.load %out[] : memref<f64>
    %n = arith.addf %o, %m fastmath<reassoc> : f64
    affine.store %n, %out[] : memref<f64>
  }
  return
}
// IR: affine.parallel

func.func private @printI64(i64)
func.func private @printNewline()

func.func @show_f(%v: f64) {
  %i = arith.fptosi %v : f64 to i64
  func.call @printI64(%i) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @show_i(%v: i32) {
  %i = arith.extsi %v : i32 to i64
  func.call @printI64(%i) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %x = memref.alloc() : memref<100000xf64>
  %z = memref.alloc() : memref<100000xf64>
  %out = memref.alloc() : memref<f64>
  %A = memref.alloc() : memref<1000x1000xf64>
  %xv = memref.alloc() : memref<1000xf64>
  %y = memref.alloc() : memref<1000xf64>
  %f = memref.alloc() : memref<4xf32>
  %n = memref.alloc() : memref<4xi32>
  %ms = memref.alloc() : memref<i32>
  %ux = memref.alloc() : memref<200000xf64>
  %uz = memref.alloc() : memref<200000xf64>
  %uo = memref.alloc() : memref<f64>
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
  affine.for %i = 0 to 1000 {
    affine.for %j = 0 to 1000 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 + d1) mod 3)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      affine.store %vf, %A[%i, %j] : memref<1000x1000xf64>
    }
    %w = affine.apply affine_map<(d0) -> (d0 mod 5)>(%i)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    affine.store %wf, %xv[%i] : memref<1000xf64>
  }
  affine.for %k = 0 to 200000 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 11)>(%k)
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    affine.store %vf, %ux[%k] : memref<200000xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 5)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    affine.store %wf, %uz[%k] : memref<200000xf64>
  }
  %c0 = arith.constant 0.0 : f64
  affine.store %c0, %uo[] : memref<f64>
  func.call @dot(%x, %z, %out) : (memref<100000xf64>, memref<100000xf64>, memref<f64>) -> ()
  func.call @gemv(%A, %xv, %y) : (memref<1000x1000xf64>, memref<1000xf64>, memref<1000xf64>) -> ()
  func.call @kinds_f32(%f) : (memref<4xf32>) -> ()
  func.call @kinds_i32(%n) : (memref<4xi32>) -> ()
  func.call @small(%ms) : (memref<i32>) -> ()
  func.call @marked(%ux, %uz, %uo) : (memref<200000xf64>, memref<200000xf64>, memref<f64>) -> ()
  %d = affine.load %out[] : memref<f64>
  func.call @show_f(%d) : (f64) -> ()
  %y7 = affine.load %y[7] : memref<1000xf64>
  func.call @show_f(%y7) : (f64) -> ()
  %y998 = affine.load %y[998] : memref<1000xf64>
  func.call @show_f(%y998) : (f64) -> ()
  affine.for %k = 0 to 4 {
    %v = affine.load %f[%k] : memref<4xf32>
    %e = arith.extf %v : f32 to f64
    func.call @show_f(%e) : (f64) -> ()
  }
  affine.for %k = 0 to 4 {
    %v = affine.load %n[%k] : memref<4xi32>
    func.call @show_i(%v) : (i32) -> ()
  }
  %m = affine.load %ms[] : memref<i32>
  func.call @show_i(%m) : (i32) -> ()
  %u = affine.load %uo[] : memref<f64>
  func.call @show_f(%u) : (f64) -> ()
  return
}
