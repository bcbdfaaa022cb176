// reassociate=true: a floating-point sum or product into one cell
// (x = x + e, x - e, x * e) gets fastmath<reassoc> on its combining
// operation in the new code, so that LLVM runs a chain carried along the
// innermost loop in vector lanes; a SCoP whose only gain is such a chain
// is rewritten (the dot below, split into blocks too: partials.mlir).
// Minima, maxima and integer reductions are exact in any order and get no
// flag; a cell that is also read otherwise is no reduction. Off by default:
// no flag anywhere. The values below are small integers, so every order
// of the terms gives the same sums: the results are identical.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS: 2399877
// SUMS-NEXT: 2048
// CHECK: reassociate.mlir:45:3: remark: poly-opt: {{.*}}(1 parallel){{.*}}split into 2 blocks{{.*}}reassociated
// The cell's old value used twice: not a reduction.
// CHECK: reassociate.mlir:58:3: remark: poly-opt: SCoP left unchanged
// Row maxima through iter_args: exact, no flag; the rows in parallel.
// CHECK-NOT: reassociated
// CHECK: reassociate.mlir:73:3: remark: poly-opt: {{.*}}({{[1-9][0-9]*}} parallel)
// CHECK-NOT: reassociated
// A carried sum of each row: reassociated, the rows in parallel.
// CHECK: reassociate.mlir:87:3: remark: poly-opt: {{.*}}({{[1-9][0-9]*}} parallel){{.*}}reduction S1 (addf along i1) reassociated
// CHECK-LABEL: func.func @dot(
// CHECK: affine.for {{.*}} iter_args
// CHECK: arith.addf {{.*}} fastmath<reassoc> : f64
// CHECK: affine.yield
// CHECK-LABEL: func.func @not_a_reduction(
// CHECK-NOT: fastmath<reassoc>
// CHECK-LABEL: func.func @row_max(
// CHECK-NOT: fastmath<reassoc>
// CHECK-LABEL: func.func @gemv(
// CHECK: arith.addf {{.*}} fastmath<reassoc> : f64
// CHECK-LABEL: func.func @main(
// CHECK-NOT: fastmath<reassoc>
// OFF-NOT: fastmath<reassoc>
// OFF: reassociate.mlir:45:3: remark: poly-opt: SCoP left unchanged: no profitable transformation
// OFF-NOT: fastmath<reassoc>

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

// The cell's old value used twice: not a reduction, no flag.
func.func @not_a_reduction(%A: memref<512x512xf64>, %y: memref<512xf64>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      %o = affine.load %y[%i] : memref<512xf64>
      %a = affine.load %A[%i, %j] : memref<512x512xf64>
      %q = arith.mulf %o, %o : f64
      %n = arith.addf %q, %a : f64
      affine.store %n, %y[%i] : memref<512xf64>
    }
  }
  return
}

// Row maxima through iter_args: exact, no flag; the rows in parallel.
func.func @row_max(%A: memref<2048x2048xf32>, %y: memref<2048xf32>) {
  %z = arith.constant 0xFF800000 : f32
  affine.for %i = 0 to 2048 {
    %s = affine.for %j = 0 to 2048 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
      %n = arith.maximumf %acc, %a : f32
      affine.yield %n : f32
    }
    affine.store %s, %y[%i] : memref<2048xf32>
  }
  return
}

// A carried sum of each row: reassociated, the rows in parallel.
func.func @gemv(%A: memref<1000x1000xf64>, %x: memref<1000xf64>, %y: memref<1000xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to 1000 {
    %s = affine.for %j = 0 to 1000 iter_args(%acc = %z) -> (f64) {
      %a = affine.load %A[%i, %j] : memref<1000x1000xf64>
      %b = affine.load %x[%j] : memref<1000xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %acc, %m : f64
      affine.yield %n : f64
    }
    affine.store %s, %y[%i] : memref<1000xf64>
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
  %A = memref.alloc() : memref<2048x2048xf32>
  %y = memref.alloc() : memref<2048xf32>
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
  %c0 = arith.constant 0.0 : f64
  affine.store %c0, %out[] : memref<f64>
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 2048 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 3 + d1 * 5) mod 2049)>(%i, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      affine.store %vf, %A[%i, %j] : memref<2048x2048xf32>
    }
  }
  func.call @dot(%x, %z, %out) : (memref<100000xf64>, memref<100000xf64>, memref<f64>) -> ()
  func.call @row_max(%A, %y) : (memref<2048x2048xf32>, memref<2048xf32>) -> ()
  %d = affine.load %out[] : memref<f64>
  %db = arith.fptosi %d : f64 to i64
  func.call @printI64(%db) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %m = affine.load %y[5] : memref<2048xf32>
  %me = arith.extf %m : f32 to f64
  func.call @printF64(%me) : (f64) -> ()
  func.call @printNewline() : () -> ()
  return
}
