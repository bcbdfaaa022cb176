// Accesses to a privatized (expanded) temporary are the expanded array's
// in the model: the tree stages that look for them (row blocks in lanes,
// scalar replacement's cells, promoted buffers) must see them as such.
// Here, with fusion off, the 0-d cells %c (a carried sum) and %t (a loaded
// value) are expanded per (i, j) iteration and the rows of S2 would run
// in vector lanes: the lanes once read the expanded accesses from the
// cells themselves (an `affine.vector_load` of a `memref<f64>` with a
// two-result map, invalid IR; the fuzzer's carried program 3107). The
// results are identical, digit for digit, on 2 threads.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false fuse=no' 2>&1 >/dev/null | FileCheck %s
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false fuse=no' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS-COUNT-1: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}

// CHECK-NOT: internal error
// CHECK: privatize-expanded.mlir:[[@LINE+5]]:3: remark: poly-opt: {{.*}}temporaries {{.*}} expanded per iteration (privatized){{.*}}emitted code re-checked by interpretation
// CHECK-NOT: internal error
func.func @kernel(%A0: memref<14x1xf64>, %A1: memref<19xf64>, %A2: memref<1xf64>, %A3: memref<?xf64>) {
  %t = memref.alloca() : memref<f64>
  %c = memref.alloca() : memref<f64>
  affine.for %i = 0 to 19 {
    %0 = affine.load %A1[%i] : memref<19xf64>
    affine.store %0, %c[] : memref<f64>
    affine.for %j = 3 to 14 {
      %s = affine.load %c[] : memref<f64>
      %a = affine.load %A0[0, 0] : memref<14x1xf64>
      affine.store %a, %t[] : memref<f64>
      %x = affine.load %A3[%j] : memref<?xf64>
      %b = affine.load %t[] : memref<f64>
      %m = arith.mulf %b, %x : f64
      %n = arith.addf %m, %s : f64
      %h = arith.constant 1.5 : f64
      affine.store %h, %A0[%j, 0] : memref<14x1xf64>
      affine.store %n, %c[] : memref<f64>
    }
    %1 = affine.load %c[] : memref<f64>
    affine.store %1, %A1[%i] : memref<19xf64>
    %k = arith.constant 1.25 : f64
    %2 = affine.load %A1[0] : memref<19xf64>
    %3 = arith.mulf %k, %2 : f64
    %h2 = arith.constant 0.5 : f64
    %4 = affine.load %A2[0] : memref<1xf64>
    %5 = arith.mulf %h2, %4 : f64
    %6 = arith.addf %3, %5 : f64
    affine.store %6, %A1[%i] : memref<19xf64>
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3.0 : f64
  %A0 = memref.alloc() : memref<14x1xf64>
  %A1 = memref.alloc() : memref<19xf64>
  %A2 = memref.alloc() : memref<1xf64>
  %A3 = memref.alloc() : memref<14xf64>
  affine.for %k = 0 to 14 {
    %v = affine.apply affine_map<(d0) -> ((d0 * 7) mod 11)>(%k)
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    %w = arith.divf %vf, %c3 : f64
    affine.store %w, %A0[%k, 0] : memref<14x1xf64>
    affine.store %vf, %A3[%k] : memref<14xf64>
  }
  affine.for %k = 0 to 19 {
    %v = affine.apply affine_map<(d0) -> ((d0 * 5 + 2) mod 13)>(%k)
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    affine.store %vf, %A1[%k] : memref<19xf64>
  }
  affine.store %c3, %A2[0] : memref<1xf64>
  %A3d = memref.cast %A3 : memref<14xf64> to memref<?xf64>
  func.call @kernel(%A0, %A1, %A2, %A3d) : (memref<14x1xf64>, memref<19xf64>, memref<1xf64>, memref<?xf64>) -> ()
  // Σ A1[k] · (k + 1), as the bits of an f64.
  %z = arith.constant 0.0 : f64
  %s = affine.for %k = 0 to 19 iter_args(%acc = %z) -> (f64) {
    %e = affine.load %A1[%k] : memref<19xf64>
    %w = affine.apply affine_map<(d0) -> (d0 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %p = arith.mulf %e, %wf : f64
    %r = arith.addf %acc, %p : f64
    affine.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
