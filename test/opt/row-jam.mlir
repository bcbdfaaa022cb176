// Rows jammed below their statements' own loops (transform/row_jam.rs):
// atax with its reduction into y split per thread (a private copy of y
// per block of rows, passes/opt/partials.rs) runs, per row, the row's dot
// product tmp[i] along j, then the row's terms into the copy along j: one
// row at a time, every row reads x and reads and writes the copy whole.
// With the rows jammed by a vector's lanes inside those loops, each block
// of rows runs its dot products in one loop over j (one sum per row, x[j]
// loaded once for all), then its terms into the copy in one loop over j
// (each cell loaded once, the block's terms added in the rows' order, and
// stored once). 1003 rows on 2 threads: blocks of 502 and 501 rows leave
// partial blocks, which stay a loop. Floating point with reassociate=true;
// integers by default (exact in any grouping). The values are small
// integers: every grouping gives the same sums (expected values worked
// out separately, not by polyrs: Python's integers).
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true' > %t.opt 2> %t.remarks
// RUN: FileCheck %s --input-file=%t.opt
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: %polyrs-runner --threads=2 %t.opt > %t.after
// RUN: diff %t.before %t.after
// RUN: %polyrs-opt %s --poly-opt='cpu=haswell threads=2 reassociate=true' 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: %polyrs-opt %s --poly-opt='cpu=haswell threads=2 reassociate=true' | %polyrs-runner --threads=2 - > %t.avx2
// RUN: diff %t.before %t.avx2
// Without row blocks, no jam.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true row-blocks=false' 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true row-blocks=false' | %polyrs-runner --threads=2 - > %t.off
// RUN: diff %t.before %t.off
// The plan: the rows' copies unrolled innermost, after the loop over j.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true print-plan=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// The stock mlir-opt with the plugin.
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(poly-opt{cpu=znver4 threads=2 reassociate=true}))' %s | %polyrs-runner --threads=2 - > %t.plugin
// RUN: diff %t.before %t.plugin
//
// atax's sum of y, sum of tmp, sum of (1 + j mod 7) * y[j]; the same for
// the integers.
// SUMS: 5777280000
// SUMS-NEXT: 2407200
// SUMS-NEXT: 23080257600
// SUMS-NEXT: 5777280000
// SUMS-NEXT: 2407200
// SUMS-NEXT: 23080257600
// SUMS-NOT: {{.}}
//
// (The band's point loops in its order: the block loop, then the rows;
// the block loop, one iteration per row, is not moved inside the rows.)
// REMARK: remark: poly-opt: {{.*}}private copy{{.*}}; rows of point loop 1 of the band jammed by 8 inside the statements' own loops (each block of rows reads the cells along them once); {{.*}}legality verified
// REMARK: remark: poly-opt: {{.*}}(addi, a private copy{{.*}}; rows of point loop 1 of the band jammed by 8 inside the statements' own loops
//
// The full blocks: the 8 rows' sums carried across j, x[j] loaded once;
// then the copy's cell at j loaded once, the 8 rows' terms, stored once.
// CHECK-LABEL: func.func @atax(
// CHECK:      %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x1200xf64>
// CHECK:      affine.for %[[J:.*]] = 0 to 1200 iter_args({{.*}}) -> (f64, f64, f64, f64, f64, f64, f64, f64) {
// CHECK-NEXT:   affine.load %arg0[%[[R:.*]] * 8, %[[J]]] : memref<1003x1200xf64>
// CHECK-NEXT:   affine.load %arg1[%[[J]]] : memref<1200xf64>
// CHECK-COUNT-7: affine.load %arg0[%[[R]] * 8 + {{[1-7]}}, %[[J]]] : memref<1003x1200xf64>
// CHECK-NOT:    affine.load %arg1
// CHECK:        affine.yield
// CHECK:      affine.for %[[K:.*]] = 0 to 1200 iter_args({{.*}}) -> (f64, f64, f64, f64, f64, f64, f64, f64) {
// CHECK-NEXT:   affine.load %[[P]][%{{.*}}, %[[K]]] : memref<2x1200xf64>
// CHECK-COUNT-8: affine.load %arg0[%[[R]] * 8{{.*}}, %[[K]]] : memref<1003x1200xf64>
// CHECK-NOT:    affine.load %[[P]]
// CHECK:        affine.store %{{.*}}, %[[P]][%{{.*}}, %[[K]]] : memref<2x1200xf64>
// CHECK-NEXT:   affine.yield
// CHECK-LABEL: func.func @iatax(
// CHECK:      affine.for %{{.*}} = 0 to 1200 iter_args({{.*}}) -> (i32, i32, i32, i32, i32, i32, i32, i32) {
//
// AVX2: jammed by 4 inside the statements' own loops
// OFF-NOT: jammed
//
// PLAN: t{{[0-9]+}}: unroll-jam blocks of point loop 1 of the band
// PLAN: t[[SEQ:[0-9]+]]: sequence
// PLAN-NEXT: t{{[0-9]+}}: φ{{[0-9]+}}
// PLAN-NEXT: t{{[0-9]+}}: unrolled point loop 1 of the band [unrolled]

func.func @atax(%A: memref<1003x1200xf64>, %x: memref<1200xf64>, %y: memref<1200xf64>, %tmp: memref<1003xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %j = 0 to 1200 {
    affine.store %z, %y[%j] : memref<1200xf64>
  }
  affine.for %i = 0 to 1003 {
    affine.store %z, %tmp[%i] : memref<1003xf64>
    affine.for %j = 0 to 1200 {
      %t = affine.load %tmp[%i] : memref<1003xf64>
      %a = affine.load %A[%i, %j] : memref<1003x1200xf64>
      %b = affine.load %x[%j] : memref<1200xf64>
      %m = arith.mulf %a, %b : f64
      %s = arith.addf %t, %m : f64
      affine.store %s, %tmp[%i] : memref<1003xf64>
    }
    affine.for %j = 0 to 1200 {
      %o = affine.load %y[%j] : memref<1200xf64>
      %a = affine.load %A[%i, %j] : memref<1003x1200xf64>
      %t = affine.load %tmp[%i] : memref<1003xf64>
      %m = arith.mulf %a, %t : f64
      %s = arith.addf %o, %m : f64
      affine.store %s, %y[%j] : memref<1200xf64>
    }
  }
  return
}

func.func @iatax(%A: memref<1003x1200xi32>, %x: memref<1200xi32>, %y: memref<1200xi32>, %tmp: memref<1003xi32>) {
  %z = arith.constant 0 : i32
  affine.for %j = 0 to 1200 {
    affine.store %z, %y[%j] : memref<1200xi32>
  }
  affine.for %i = 0 to 1003 {
    affine.store %z, %tmp[%i] : memref<1003xi32>
    affine.for %j = 0 to 1200 {
      %t = affine.load %tmp[%i] : memref<1003xi32>
      %a = affine.load %A[%i, %j] : memref<1003x1200xi32>
      %b = affine.load %x[%j] : memref<1200xi32>
      %m = arith.muli %a, %b : i32
      %s = arith.addi %t, %m : i32
      affine.store %s, %tmp[%i] : memref<1003xi32>
    }
    affine.for %j = 0 to 1200 {
      %o = affine.load %y[%j] : memref<1200xi32>
      %a = affine.load %A[%i, %j] : memref<1003x1200xi32>
      %t = affine.load %tmp[%i] : memref<1003xi32>
      %m = arith.muli %a, %t : i32
      %s = arith.addi %o, %m : i32
      affine.store %s, %y[%j] : memref<1200xi32>
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @print(%v: i64) {
  func.call @printI64(%v) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

// sum of v[k], and of (1 + k mod 7) * v[k] when weighted, for k < n.
func.func @sum(%v: memref<?xf64>, %n: index, %weighted: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %a = memref.load %v[%k] : memref<?xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %one = arith.constant 1.0 : f64
    %f = arith.select %weighted, %wf, %one : f64
    %p = arith.mulf %a, %f : f64
    %n2 = arith.addf %acc, %p : f64
    scf.yield %n2 : f64
  }
  %i = arith.fptosi %s : f64 to i64
  func.call @print(%i) : (i64) -> ()
  return
}

func.func @isum(%v: memref<?xi32>, %n: index, %weighted: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
    %a = memref.load %v[%k] : memref<?xi32>
    %a64 = arith.extsi %a : i32 to i64
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %one = arith.constant 1 : i64
    %f = arith.select %weighted, %wi, %one : i64
    %p = arith.muli %a64, %f : i64
    %n2 = arith.addi %acc, %p : i64
    scf.yield %n2 : i64
  }
  func.call @print(%s) : (i64) -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<1003x1200xf64>
  %Ai = memref.alloc() : memref<1003x1200xi32>
  %x = memref.alloc() : memref<1200xf64>
  %xi = memref.alloc() : memref<1200xi32>
  %y = memref.alloc() : memref<1200xf64>
  %yi = memref.alloc() : memref<1200xi32>
  %tmp = memref.alloc() : memref<1003xf64>
  %tmpi = memref.alloc() : memref<1003xi32>
  affine.for %i = 0 to 1003 {
    affine.for %j = 0 to 1200 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5)>(%i, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f64
      affine.store %vf, %A[%i, %j] : memref<1003x1200xf64>
      affine.store %vi, %Ai[%i, %j] : memref<1003x1200xi32>
    }
  }
  affine.for %j = 0 to 1200 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 3)>(%j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f64
    affine.store %vf, %x[%j] : memref<1200xf64>
    affine.store %vi, %xi[%j] : memref<1200xi32>
  }
  func.call @atax(%A, %x, %y, %tmp) : (memref<1003x1200xf64>, memref<1200xf64>, memref<1200xf64>, memref<1003xf64>) -> ()
  func.call @iatax(%Ai, %xi, %yi, %tmpi) : (memref<1003x1200xi32>, memref<1200xi32>, memref<1200xi32>, memref<1003xi32>) -> ()
  %c1200 = arith.constant 1200 : index
  %c1003 = arith.constant 1003 : index
  %no = arith.constant false
  %yes = arith.constant true
  %yd = memref.cast %y : memref<1200xf64> to memref<?xf64>
  %td = memref.cast %tmp : memref<1003xf64> to memref<?xf64>
  %yid = memref.cast %yi : memref<1200xi32> to memref<?xi32>
  %tid = memref.cast %tmpi : memref<1003xi32> to memref<?xi32>
  func.call @sum(%yd, %c1200, %no) : (memref<?xf64>, index, i1) -> ()
  func.call @sum(%td, %c1003, %no) : (memref<?xf64>, index, i1) -> ()
  func.call @sum(%yd, %c1200, %yes) : (memref<?xf64>, index, i1) -> ()
  func.call @isum(%yid, %c1200, %no) : (memref<?xi32>, index, i1) -> ()
  func.call @isum(%tid, %c1003, %no) : (memref<?xi32>, index, i1) -> ()
  func.call @isum(%yid, %c1200, %yes) : (memref<?xi32>, index, i1) -> ()
  memref.dealloc %A : memref<1003x1200xf64>
  memref.dealloc %Ai : memref<1003x1200xi32>
  memref.dealloc %x : memref<1200xf64>
  memref.dealloc %xi : memref<1200xi32>
  memref.dealloc %y : memref<1200xf64>
  memref.dealloc %yi : memref<1200xi32>
  memref.dealloc %tmp : memref<1003xf64>
  memref.dealloc %tmpi : memref<1003xi32>
  return
}
