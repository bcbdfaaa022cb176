// Values carried through affine.for's iter_args (the form C front ends and
// upstream's scalar replacement give an accumulator) are modeled as 0-d
// memref cells (`iter-args`, on by default): the nests become SCoPs, the
// matrix-vector product's rows and the row-wise maxima run in parallel
// (the cells privatized per row), every sum in the input's order: the
// results are identical, digit for digit (2 threads). A nest that is not a
// SCoP for another reason (a call) and a carried value the function
// returns come back as they were, byte for byte.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>&1 >/dev/null | FileCheck %s
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' > %t.opt.mlir
// RUN: %polyrs-runner --threads=2 %t.opt.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.opt.mlir --check-prefix=IR
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false iter-args=false' 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 | FileCheck %s --check-prefix=DOT
// SUMS-COUNT-6: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// The matrix-vector product: its rows in parallel.
// CHECK: iter-args.mlir:[[@LINE+7]]:3: remark: poly-opt: 3 statements, {{[0-9]+}} loops ({{[1-9][0-9]*}} parallel){{.*}}privatized
// OFF: iter-args.mlir:[[@LINE+6]]:3: remark: poly-opt: loop nest not optimized: it is not a static control part: 'affine.for' carries values through iter_args
// IR-LABEL: func.func @mv(
// IR: affine.parallel
// IR-LABEL: func.func @rowmax(
func.func @mv(%A: memref<256x256xf64>, %x: memref<256xf64>, %y: memref<256xf64>) {
  %cst = arith.constant 0.0 : f64
  affine.for %i = 0 to 256 {
    %s = affine.for %j = 0 to 256 iter_args(%acc = %cst) -> (f64) {
      %a = affine.load %A[%i, %j] : memref<256x256xf64>
      %b = affine.load %x[%j] : memref<256xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %acc, %m : f64
      affine.yield %n : f64
    }
    affine.store %s, %y[%i] : memref<256xf64>
  }
  return
}

// Softmax's first step: each row's maximum (NaN-propagating), then the
// row's exponentials of the differences summed, two values carried.
// CHECK: iter-args.mlir:[[@LINE+5]]:3: remark: poly-opt: {{[0-9]+}} statements, {{[0-9]+}} loops ({{[1-9][0-9]*}} parallel)
// IR: affine.parallel
func.func @rowmax(%X: memref<128x300xf32>, %mx: memref<128xf32>, %sm: memref<128xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 128 {
    %m = affine.for %j = 0 to 300 iter_args(%acc = %ninf) -> (f32) {
      %v = affine.load %X[%i, %j] : memref<128x300xf32>
      %n = arith.maximumf %acc, %v : f32
      affine.yield %n : f32
    }
    affine.store %m, %mx[%i] : memref<128xf32>
    %s:2 = affine.for %j = 0 to 300 iter_args(%a = %zero, %b = %zero) -> (f32, f32) {
      %v = affine.load %X[%i, %j] : memref<128x300xf32>
      %d = arith.subf %v, %m : f32
      %e = arith.mulf %d, %d : f32
      %a2 = arith.addf %a, %d : f32
      %b2 = arith.addf %b, %e : f32
      affine.yield %a2, %b2 : f32, f32
    }
    %t = arith.addf %s#0, %s#1 : f32
    affine.store %t, %sm[%i] : memref<128xf32>
  }
  return
}

// A sum over a 3x3 window (two nested loops carrying one value) of an
// integer image: exact whatever the order, kept in the input's.
// CHECK: iter-args.mlir:[[@LINE+4]]:3: remark: poly-opt: {{[0-9]+}} statements, {{[0-9]+}} loops ({{[1-9][0-9]*}} parallel)
// IR-LABEL: func.func @window(
func.func @window(%I: memref<66x66xi32>, %O: memref<64x64xi32>) {
  %z = arith.constant 0 : i32
  affine.for %h = 0 to 64 {
    affine.for %w = 0 to 64 {
      %s = affine.for %kh = 0 to 3 iter_args(%a = %z) -> (i32) {
        %t = affine.for %kw = 0 to 3 iter_args(%b = %a) -> (i32) {
          %v = affine.load %I[%h + %kh, %w + %kw] : memref<66x66xi32>
          %n = arith.addi %b, %v : i32
          affine.yield %n : i32
        }
        affine.yield %t : i32
      }
      affine.store %s, %O[%h, %w] : memref<64x64xi32>
    }
  }
  return
}

// Values selected per branch (`affine.if` with results), inside a carried
// sum: each branch stores its value into a cell, read after the branch.
// CHECK: iter-args.mlir:[[@LINE+3]]:3: remark: poly-opt: {{[0-9]+}} statements, {{[0-9]+}} loops ({{[1-9][0-9]*}} parallel)
func.func @signed(%A: memref<256x256xf64>, %y: memref<256xf64>) {
  %cst = arith.constant 0.0 : f64
  affine.for %i = 0 to 256 {
    %s = affine.for %j = 0 to 256 iter_args(%acc = %cst) -> (f64) {
      %a = affine.load %A[%i, %j] : memref<256x256xf64>
      %v = affine.if affine_set<(d0, d1) : (d0 - d1 >= 0)>(%i, %j) -> f64 {
        affine.yield %a : f64
      } else {
        %n = arith.negf %a : f64
        affine.yield %n : f64
      }
      %r = arith.addf %acc, %v : f64
      affine.yield %r : f64
    }
    affine.store %s, %y[%i] : memref<256xf64>
  }
  return
}

// Not a SCoP (a call in the nest): the input comes back.
// CHECK: iter-args.mlir:[[@LINE+14]]:3: remark: poly-opt: loop nest not optimized: it is not a static control part: call 'func.call' may have side effects
// CHECK-NEXT: affine.for
// CHECK-NEXT: ^
// CHECK-NEXT: iter-args.mlir:[[@LINE+13]]:7: note: 'func.call' breaks the static control part here
// IR-LABEL: func.func @called(
// IR-NEXT: %[[C:.*]] = arith.constant 0.0{{.*}} : f64
// IR-NEXT: affine.for %[[I:.*]] = 0 to 64 {
// IR-NEXT: %[[S:.*]] = affine.for %{{.*}} = 0 to 64 iter_args(%[[ACC:.*]] = %[[C]]) -> (f64) {
// IR-NEXT: func.call @side()
// IR-NEXT: %[[V:.*]] = affine.load
// IR-NEXT: %[[N:.*]] = arith.addf %[[ACC]], %[[V]] : f64
// IR-NEXT: affine.yield %[[N]] : f64
func.func @called(%A: memref<64x64xf64>, %y: memref<64xf64>) {
  %cst = arith.constant 0.0 : f64
  affine.for %i = 0 to 64 {
    %s = affine.for %j = 0 to 64 iter_args(%acc = %cst) -> (f64) {
      func.call @side() : () -> ()
      %v = affine.load %A[%i, %j] : memref<64x64xf64>
      %n = arith.addf %acc, %v : f64
      affine.yield %n : f64
    }
    affine.store %s, %y[%i] : memref<64xf64>
  }
  return
}
func.func @side() {
  return
}

// A carried value the function returns, read from its cell after the
// SCoP; with the default options, a plan without parallel loops, left
// unchanged: the input comes back.
// DOT: iter-args.mlir:[[@LINE+7]]:8: remark: poly-opt: SCoP left unchanged: no profitable transformation
// DOT-LABEL: func.func @dot(
// DOT-NEXT: %[[C:.*]] = arith.constant 0.0{{.*}} : f64
// DOT-NEXT: %[[S:.*]] = affine.for %{{.*}} = 0 to 4096 iter_args(%{{.*}} = %[[C]]) -> (f64) {
// DOT: return %[[S]] : f64
func.func @dot(%x: memref<4096xf64>, %z: memref<4096xf64>) -> f64 {
  %cst = arith.constant 0.0 : f64
  %s = affine.for %j = 0 to 4096 iter_args(%acc = %cst) -> (f64) {
    %a = affine.load %x[%j] : memref<4096xf64>
    %b = affine.load %z[%j] : memref<4096xf64>
    %m = arith.mulf %a, %b : f64
    %n = arith.addf %acc, %m : f64
    affine.yield %n : f64
  }
  return %s : f64
}

// A carried loop that never runs, in a branch never taken: the SCoP's new
// code is empty; the nest is replaced all the same (fuzz `carried` 520:
// the input was put back in place of the erased nest).
// IR-LABEL: func.func @never(
// IR-NEXT: memref.alloca() : memref<f64>
// IR-NEXT: return
func.func @never(%A0: memref<2xf64>) {
  affine.for %i0 = 2 to 4 {
    affine.if affine_set<(d0) : (d0 - 4 >= 0)>(%i0) {
      %t1 = affine.load %A0[1] : memref<2xf64>
      %t3 = affine.for %i2 = 0 to 0 iter_args(%t2 = %t1) -> (f64) {
        affine.yield %t2 : f64
      }
      affine.store %t3, %A0[1] : memref<2xf64>
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// Σ v[k] · (1 + k mod 5) of a vector, as the bits of an f64.
func.func @sum(%v: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %n = memref.dim %v, %c0 : memref<?xf64>
  %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %e = memref.load %v[%k] : memref<?xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 5 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %p = arith.mulf %e, %wf : f64
    %r = arith.addf %acc, %p : f64
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  %A = memref.alloc() : memref<256x256xf64>
  %x = memref.alloc() : memref<256xf64>
  %y = memref.alloc() : memref<256xf64>
  %c256 = arith.constant 256 : index
  scf.for %i = %c0 to %c256 step %c1 {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<256x256xf64>
    }
    %u = affine.apply affine_map<(d0) -> ((d0 * 5 + 2) mod 13)>(%i)
    %ui = arith.index_cast %u : index to i64
    %uf = arith.sitofp %ui : i64 to f64
    %uw = arith.divf %uf, %c7 : f64
    memref.store %uw, %x[%i] : memref<256xf64>
  }
  func.call @mv(%A, %x, %y) : (memref<256x256xf64>, memref<256xf64>, memref<256xf64>) -> ()
  %yd = memref.cast %y : memref<256xf64> to memref<?xf64>
  func.call @sum(%yd) : (memref<?xf64>) -> ()
  func.call @signed(%A, %y) : (memref<256x256xf64>, memref<256xf64>) -> ()
  func.call @sum(%yd) : (memref<?xf64>) -> ()

  %X = memref.alloc() : memref<128x300xf32>
  %mx = memref.alloc() : memref<128xf32>
  %sm = memref.alloc() : memref<128xf32>
  %c128 = arith.constant 128 : index
  %c300 = arith.constant 300 : index
  %c7f = arith.constant 7.0 : f32
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c300 step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 5 + d1 * 11) mod 17)>(%i, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      %w = arith.divf %vf, %c7f : f32
      memref.store %w, %X[%i, %j] : memref<128x300xf32>
    }
  }
  func.call @rowmax(%X, %mx, %sm) : (memref<128x300xf32>, memref<128xf32>, memref<128xf32>) -> ()
  %m64 = memref.alloc() : memref<128xf64>
  %s64 = memref.alloc() : memref<128xf64>
  scf.for %i = %c0 to %c128 step %c1 {
    %a = memref.load %mx[%i] : memref<128xf32>
    %b = memref.load %sm[%i] : memref<128xf32>
    %a6 = arith.extf %a : f32 to f64
    %b6 = arith.extf %b : f32 to f64
    memref.store %a6, %m64[%i] : memref<128xf64>
    memref.store %b6, %s64[%i] : memref<128xf64>
  }
  %m64d = memref.cast %m64 : memref<128xf64> to memref<?xf64>
  %s64d = memref.cast %s64 : memref<128xf64> to memref<?xf64>
  func.call @sum(%m64d) : (memref<?xf64>) -> ()
  func.call @sum(%s64d) : (memref<?xf64>) -> ()

  %I = memref.alloc() : memref<66x66xi32>
  %O = memref.alloc() : memref<64x64xi32>
  %c66 = arith.constant 66 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c66 step %c1 {
    scf.for %j = %c0 to %c66 step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 3 + d1 * 7) mod 23)>(%i, %j)
      %vi = arith.index_cast %v : index to i32
      memref.store %vi, %I[%i, %j] : memref<66x66xi32>
    }
  }
  func.call @window(%I, %O) : (memref<66x66xi32>, memref<64x64xi32>) -> ()
  %o64 = memref.alloc() : memref<4096xf64>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %O[%i, %j] : memref<64x64xi32>
      %v6 = arith.sitofp %v : i32 to f64
      %k = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%i, %j)
      memref.store %v6, %o64[%k] : memref<4096xf64>
    }
  }
  %o64d = memref.cast %o64 : memref<4096xf64> to memref<?xf64>
  func.call @sum(%o64d) : (memref<?xf64>) -> ()

  %d = func.call @dot(%o64, %o64) : (memref<4096xf64>, memref<4096xf64>) -> f64
  %db = arith.bitcast %d : f64 to i64
  func.call @printI64(%db) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
