// Affine loads and stores through views of another buffer (`views`, on by
// default: passes/opt/views.rs): expand_shape, collapse_shape, and subview
// and reinterpret_cast of static offsets, sizes and strides, defined outside
// the nest, are modeled as accesses of the buffer under the views, their
// subscripts composed through them (linearized, or delinearized with
// floordiv and mod). The results equal the input's and the sums worked out
// separately (in Python) below; with views=false the nests are left as they
// were.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>&1 >/dev/null | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' > %t.opt.mlir
// RUN: FileCheck %s --input-file=%t.opt.mlir --check-prefix=IR
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-runner --threads=2 %t.opt.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false views=false' 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF
// SUMS: 71856167
// SUMS-NEXT: 180780068
// SUMS-NEXT: 127
// SUMS-NOT: {{.}}
//
// A row recurrence through an expanded (reshaped) vector.
// CHECK: views.mlir:[[@LINE+7]]:3: remark: poly-opt: {{.*}}2 accesses through 'memref.expand_shape' modeled as accesses of the buffer viewed (subscripts composed through the view)
// OFF: views.mlir:[[@LINE+11]]:7: remark: poly-opt: SCoP left unchanged: not modeled exactly: access through 'memref.expand_shape' (a view) is not modeled
// IR-LABEL: func.func @expand(
// IR: affine.load %arg0[%{{.*}} * 32 + %{{.*}} - 1] : memref<2048xf64>
// IR: affine.store %{{.*}}, %arg0[%{{.*}} * 32 + %{{.*}}] : memref<2048xf64>
func.func @expand(%A: memref<2048xf64>, %B: memref<64x32xf64>) {
  %e = memref.expand_shape %A [[0, 1]] output_shape [64, 32] : memref<2048xf64> into memref<64x32xf64>
  affine.for %i = 0 to 64 {
    affine.for %j = 1 to 32 {
      %a = affine.load %e[%i, %j - 1] : memref<64x32xf64>
      %b = affine.load %B[%i, %j] : memref<64x32xf64>
      %c = arith.addf %a, %b : f64
      affine.store %c, %e[%i, %j] : memref<64x32xf64>
    }
  }
  return
}

// A matrix scaled through its flat view, then a column recurrence on the
// matrix itself: one array, one SCoP.
// CHECK: views.mlir:[[@LINE+6]]:3: remark: poly-opt: 2 statements, {{.*}}2 accesses through 'memref.collapse_shape' modeled as accesses
// OFF: views.mlir:[[@LINE+9]]:5: remark: poly-opt: SCoP left unchanged: not modeled exactly: access through 'memref.collapse_shape' (a view) is not modeled
// IR-LABEL: func.func @collapse(
// IR: affine.load %arg0[%{{.*}} floordiv 32, %{{.*}} mod 32] : memref<64x32xf64>
func.func @collapse(%B: memref<64x32xf64>, %X: memref<2048xf64>) {
  %c = memref.collapse_shape %B [[0, 1]] : memref<64x32xf64> into memref<2048xf64>
  affine.for %k = 0 to 2048 {
    %a = affine.load %c[%k] : memref<2048xf64>
    %x = affine.load %X[%k] : memref<2048xf64>
    %m = arith.mulf %a, %x : f64
    affine.store %m, %c[%k] : memref<2048xf64>
  }
  affine.for %i = 1 to 64 {
    affine.for %j = 0 to 32 {
      %a = affine.load %B[%i - 1, %j] : memref<64x32xf64>
      %b = affine.load %B[%i, %j] : memref<64x32xf64>
      %s = arith.addf %a, %b : f64
      affine.store %s, %B[%i, %j] : memref<64x32xf64>
    }
  }
  return
}

// A subview of static offsets and strides, a reinterpret_cast with an offset.
// CHECK: views.mlir:[[@LINE+7]]:3: remark: poly-opt: {{.*}}3 accesses through 'memref.reinterpret_cast', 'memref.subview' modeled as accesses
// IR-LABEL: func.func @reinterp(
// IR: affine.load %arg1[%{{.*}} * 2 + 2, %{{.*}} + 4] : memref<100x100xf64>
// IR: affine.load %arg0[%{{.*}} * 63 + %{{.*}} + 16] : memref<2048xf64>
func.func @reinterp(%A: memref<2048xf64>, %C: memref<100x100xf64>) {
  %r = memref.reinterpret_cast %A to offset: [16], sizes: [32, 63], strides: [63, 1] : memref<2048xf64> to memref<32x63xf64, strided<[63, 1], offset: 16>>
  %s = memref.subview %C[2, 4] [49, 40] [2, 1] : memref<100x100xf64> to memref<49x40xf64, strided<[200, 1], offset: 204>>
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 40 {
      %a = affine.load %s[%i, %j] : memref<49x40xf64, strided<[200, 1], offset: 204>>
      %b = affine.load %r[%i, %j] : memref<32x63xf64, strided<[63, 1], offset: 16>>
      %c = arith.addf %a, %b : f64
      affine.store %c, %r[%i, %j] : memref<32x63xf64, strided<[63, 1], offset: 16>>
    }
  }
  return
}

// A view made inside the nest (a row per iteration): not rewritten.
// CHECK: views.mlir:[[@LINE+7]]:12: remark: poly-opt: SCoP left unchanged: not modeled exactly: access through 'memref.subview' (a view) is not modeled
// IR-LABEL: func.func @inside(
// IR: memref.subview
func.func @inside(%C: memref<100x100xf64>, %Y: memref<2048xf64>) {
  affine.for %i = 0 to 100 {
    %row = memref.subview %C[%i, 0] [1, 100] [1, 1] : memref<100x100xf64> to memref<1x100xf64, strided<[100, 1], offset: ?>>
    affine.for %j = 0 to 100 {
      %a = affine.load %row[0, %j] : memref<1x100xf64, strided<[100, 1], offset: ?>>
      affine.store %a, %Y[%j + 1000] : memref<2048xf64>
    }
  }
  return
}

// A dynamic leading size: not needed to linearize.
// CHECK: views.mlir:[[@LINE+4]]:3: remark: poly-opt: {{.*}}2 accesses through 'memref.expand_shape' modeled as accesses
// IR-LABEL: func.func @dynamic(
func.func @dynamic(%A: memref<?xf64>, %n: index) {
  %e = memref.expand_shape %A [[0, 1]] output_shape [%n, 32] : memref<?xf64> into memref<?x32xf64>
  affine.for %i = 0 to 10 {
    affine.for %j = 1 to 32 {
      %a = affine.load %e[%i, %j - 1] : memref<?x32xf64>
      affine.store %a, %e[%i, %j] : memref<?x32xf64>
    }
  }
  return
}

// A collapse into a 0-d view: every source dimension a unit one.
// CHECK: views.mlir:[[@LINE+4]]:3: remark: poly-opt: {{.*}}2 accesses through 'memref.collapse_shape' modeled as accesses
// IR-LABEL: func.func @zero(
func.func @zero(%B: memref<1x1xf64>, %X: memref<2048xf64>) {
  %c = memref.collapse_shape %B [] : memref<1x1xf64> into memref<f64>
  affine.for %k = 0 to 64 {
    %a = affine.load %c[] : memref<f64>
    %x = affine.load %X[%k] : memref<2048xf64>
    %m = arith.addf %a, %x : f64
    affine.store %m, %c[] : memref<f64>
  }
  return
}
// IR: affine.load %arg0[0, 0] : memref<1x1xf64>

func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() {
  %A = memref.alloc() : memref<2048xf64>
  %B = memref.alloc() : memref<64x32xf64>
  %X = memref.alloc() : memref<2048xf64>
  %C = memref.alloc() : memref<100x100xf64>
  affine.for %k = 0 to 2048 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 7)>(%k)
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    affine.store %vf, %A[%k] : memref<2048xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 3)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    affine.store %wf, %X[%k] : memref<2048xf64>
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 32 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 3 + d1) mod 5)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      affine.store %vf, %B[%i, %j] : memref<64x32xf64>
    }
  }
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 100 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 + d1) mod 4)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      affine.store %vf, %C[%i, %j] : memref<100x100xf64>
    }
  }
  func.call @expand(%A, %B) : (memref<2048xf64>, memref<64x32xf64>) -> ()
  func.call @collapse(%B, %X) : (memref<64x32xf64>, memref<2048xf64>) -> ()
  func.call @reinterp(%A, %C) : (memref<2048xf64>, memref<100x100xf64>) -> ()
  %c64 = arith.constant 64 : index
  %An = memref.cast %A : memref<2048xf64> to memref<?xf64>
  func.call @inside(%C, %X) : (memref<100x100xf64>, memref<2048xf64>) -> ()
  func.call @dynamic(%An, %c64) : (memref<?xf64>, index) -> ()
  %B1 = memref.alloc() : memref<1x1xf64>
  %h = arith.constant 0.5 : f64
  affine.store %h, %B1[0, 0] : memref<1x1xf64>
  func.call @zero(%B1, %X) : (memref<1x1xf64>, memref<2048xf64>) -> ()
  %z = arith.constant 0.0 : f64
  %sa = affine.for %k = 0 to 2048 iter_args(%s = %z) -> (f64) {
    %v = affine.load %A[%k] : memref<2048xf64>
    %ki = arith.index_cast %k : index to i64
    %k1 = arith.sitofp %ki : i64 to f64
    %one = arith.constant 1.0 : f64
    %w = arith.addf %k1, %one : f64
    %p = arith.mulf %v, %w : f64
    %n = arith.addf %s, %p : f64
    affine.yield %n : f64
  }
  %Bf = memref.collapse_shape %B [[0, 1]] : memref<64x32xf64> into memref<2048xf64>
  %sb = affine.for %k = 0 to 2048 iter_args(%s = %z) -> (f64) {
    %v = affine.load %Bf[%k] : memref<2048xf64>
    %ki = arith.index_cast %k : index to i64
    %k1 = arith.sitofp %ki : i64 to f64
    %one = arith.constant 1.0 : f64
    %w = arith.addf %k1, %one : f64
    %p = arith.mulf %v, %w : f64
    %n = arith.addf %s, %p : f64
    affine.yield %n : f64
  }
  %ia = arith.fptosi %sa : f64 to i64
  func.call @printI64(%ia) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %ib = arith.fptosi %sb : f64 to i64
  func.call @printI64(%ib) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %b1 = affine.load %B1[0, 0] : memref<1x1xf64>
  %two = arith.constant 2.0 : f64
  %b2 = arith.mulf %b1, %two : f64
  %ic = arith.fptosi %b2 : f64 to i64
  func.call @printI64(%ic) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
