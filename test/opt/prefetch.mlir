// Prefetch: row blocks in vector lanes over an array larger than the
// CPU's L2 (here 400 x 520 doubles, 1.66 MB, on znver4's 1 MiB) prefetch
// each of the block's rows 512 bytes (64 doubles) ahead of its loads,
// one affine.prefetch per row after the row's vector load, in the loop of
// transposed blocks only (not in the remainder, whose rows are loaded
// element by element). A 40 x 520 array (166 KB) stays in L2: no
// prefetch; nor with prefetch=false. A hint changes nothing computed: the
// sums must be the input's, digit for digit.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' > %t.opt 2> %t.remarks
// RUN: %polyrs-runner --threads=2 %t.opt > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.opt
// One prefetch per row of the two vectors of 8 rows, and no more.
// RUN: grep -c affine.prefetch %t.opt | FileCheck %s --check-prefix=COUNT
// COUNT: {{^16$}}
// The new code with the prefetches, interpreted beside the input's
// operations (translation validation): the same values.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false verify-emit=5000000' -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFIED
// VERIFIED: remark: poly-opt: {{.*}}; emitted code re-checked by interpretation
// VERIFIED-NOT: warning
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false prefetch=false' | FileCheck %s --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false prefetch=false' | %polyrs-runner --threads=2 - > %t.off
// RUN: diff %t.before %t.off
// The decision, in the loop tree after the lanes stage.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false print-stages=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// TREE:     loop tree after the lanes stage
// TREE:     [carry 16 cells, lanes t{{[0-9]+}} x8 prefetch +64]
// TREE:     loop tree after the lanes stage
// TREE-NOT: prefetch
// TREE:     [carry 16 cells, lanes t{{[0-9]+}} x8]
// The stock mlir-opt with the plugin.
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(poly-opt{cpu=znver4 threads=2 profitability=false}))' %s | FileCheck %s
//
// CHECK-LABEL: func.func @big(
// CHECK:       affine.for %[[J:.*]] = 0 to 520 step 8 iter_args(
// CHECK-NEXT:  affine.vector_load %arg0[%[[I:.*]] * 16, %[[J]]] : memref<400x520xf64>, vector<8xf64>
// CHECK-NEXT:  affine.prefetch %arg0[%[[I]] * 16, %[[J]] + 64], read, locality<3>, data : memref<400x520xf64>
// CHECK-NEXT:  affine.vector_load %arg0[%[[I]] * 16 + 1, %[[J]]] : memref<400x520xf64>, vector<8xf64>
// CHECK-NEXT:  affine.prefetch %arg0[%[[I]] * 16 + 1, %[[J]] + 64], read, locality<3>, data : memref<400x520xf64>
// CHECK:       vector.shuffle
// CHECK:       affine.vector_load %arg0[%[[I]] * 16 + 15, %[[J]]] : memref<400x520xf64>, vector<8xf64>
// CHECK-NEXT:  affine.prefetch %arg0[%[[I]] * 16 + 15, %[[J]] + 64], read, locality<3>, data : memref<400x520xf64>
// CHECK:       affine.yield
// CHECK-NOT:   affine.prefetch
// CHECK-LABEL: func.func @small(
// CHECK-NOT:   affine.prefetch
// CHECK-LABEL: func.func @main(
//
// OFF-NOT: affine.prefetch

func.func private @printI64(i64)
func.func private @printNewline()

// t[i] += A[i][j] * x[j]: each row's sum along j in the input's order.
func.func @big(%A: memref<400x520xf64>, %x: memref<520xf64>, %t: memref<400xf64>) {
  affine.for %i = 0 to 400 {
    affine.for %j = 0 to 520 {
      %t0 = affine.load %t[%i] : memref<400xf64>
      %a = affine.load %A[%i, %j] : memref<400x520xf64>
      %xj = affine.load %x[%j] : memref<520xf64>
      %p = arith.mulf %a, %xj : f64
      %t1 = arith.addf %t0, %p : f64
      affine.store %t1, %t[%i] : memref<400xf64>
    }
  }
  return
}

func.func @small(%A: memref<40x520xf64>, %x: memref<520xf64>, %t: memref<40xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 520 {
      %t0 = affine.load %t[%i] : memref<40xf64>
      %a = affine.load %A[%i, %j] : memref<40x520xf64>
      %xj = affine.load %x[%j] : memref<520xf64>
      %p = arith.mulf %a, %xj : f64
      %t1 = arith.addf %t0, %p : f64
      affine.store %t1, %t[%i] : memref<40xf64>
    }
  }
  return
}

// A[i][j] = 1 + ((7i + 3j) mod 11) / 7.
func.func @fill(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      %x = arith.addf %w, %one : f64
      memref.store %x, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Prints the bits of the sum of t[i] * (1 + i mod 5).
func.func @sum(%t: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %t[%i] : memref<?xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 5 + 1)>(%i)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %p = arith.mulf %v, %wf : f64
    %n2 = arith.addf %acc, %p : f64
    scf.yield %n2 : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c400 = arith.constant 400 : index
  %c520 = arith.constant 520 : index
  %A = memref.alloc() : memref<400x520xf64>
  %S = memref.alloc() : memref<40x520xf64>
  %x = memref.alloc() : memref<520xf64>
  %t = memref.alloc() : memref<400xf64>
  %u = memref.alloc() : memref<40xf64>
  %Ad = memref.cast %A : memref<400x520xf64> to memref<?x?xf64>
  %Sd = memref.cast %S : memref<40x520xf64> to memref<?x?xf64>
  %x2 = memref.reinterpret_cast %x to offset: [0], sizes: [1, 520], strides: [520, 1] : memref<520xf64> to memref<1x520xf64>
  %xd = memref.cast %x2 : memref<1x520xf64> to memref<?x?xf64>
  %t2 = memref.reinterpret_cast %t to offset: [0], sizes: [1, 400], strides: [400, 1] : memref<400xf64> to memref<1x400xf64>
  %td = memref.cast %t2 : memref<1x400xf64> to memref<?x?xf64>
  %u2 = memref.reinterpret_cast %u to offset: [0], sizes: [1, 40], strides: [40, 1] : memref<40xf64> to memref<1x40xf64>
  %ud = memref.cast %u2 : memref<1x40xf64> to memref<?x?xf64>
  func.call @fill(%Ad, %c400, %c520) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Sd, %c40, %c520) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%xd, %c1, %c520) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%td, %c1, %c400) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%ud, %c1, %c40) : (memref<?x?xf64>, index, index) -> ()
  func.call @big(%A, %x, %t) : (memref<400x520xf64>, memref<520xf64>, memref<400xf64>) -> ()
  func.call @small(%S, %x, %u) : (memref<40x520xf64>, memref<520xf64>, memref<40xf64>) -> ()
  %tv = memref.cast %t : memref<400xf64> to memref<?xf64>
  %uv = memref.cast %u : memref<40xf64> to memref<?xf64>
  func.call @sum(%tv, %c400) : (memref<?xf64>, index) -> ()
  func.call @sum(%uv, %c40) : (memref<?xf64>, index) -> ()
  memref.dealloc %A : memref<400x520xf64>
  memref.dealloc %S : memref<40x520xf64>
  memref.dealloc %x : memref<520xf64>
  memref.dealloc %t : memref<400xf64>
  memref.dealloc %u : memref<40xf64>
  return
}
