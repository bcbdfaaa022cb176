// A value loaded before a store that may change its cell and used after
// that store (the model reads every load at its statement): poly-opt keeps
// the value in a 0-d cell of its own, stored right after the load and read
// right before each use, and models the SCoP again (`split-loads`, on by
// default; `split-loads=false` leaves such a SCoP unchanged); the results
// are identical, digit for digit (2 threads). Where the SCoP is then left
// unchanged, the input comes back byte for byte.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>&1 >/dev/null | FileCheck %s
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 | FileCheck %s --check-prefix=KEPT
// SUMS-COUNT-3: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
// CHECK-NOT: may have changed it
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false split-loads=false' 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF
// OFF: remark: poly-opt: SCoP left unchanged: not modeled exactly: the value loaded here is used by a later store after 'affine.store' may have changed it

// A read-and-clear: A's cell is read, cleared, and its old value added
// into B; the rows run in parallel.
// CHECK: stale-load.mlir:[[@LINE+8]]:3: remark: poly-opt: {{[0-9]+}} statements, {{[0-9]+}} loops ({{[1-9][0-9]*}} parallel)
// With the default options (too little work), the input as it was.
// KEPT: stale-load.mlir:[[@LINE+6]]:3: remark: poly-opt: SCoP left unchanged: no profitable transformation
// KEPT-LABEL: func.func @drain(
// KEPT: %[[A:.*]] = affine.load %arg0[%arg2, %arg3]
// KEPT-NEXT: affine.store %cst, %arg0[%arg2, %arg3]
func.func @drain(%A: memref<64x64xf64>, %B: memref<64x64xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<64x64xf64>
      affine.store %z, %A[%i, %j] : memref<64x64xf64>
      %b = affine.load %B[%j, %i] : memref<64x64xf64>
      %s = arith.addf %a, %b : f64
      affine.store %s, %B[%j, %i] : memref<64x64xf64>
    }
  }
  return
}

// A value loaded between nests, its cell rewritten by the next nest, used
// by the nest after it.
// CHECK: stale-load.mlir:[[@LINE+3]]:3: remark: poly-opt: {{[0-9]+}} statements, {{[0-9]+}} loops ({{[1-9][0-9]*}} parallel)
func.func @between(%A: memref<64xf64>, %B: memref<64xf64>) {
  %c = arith.constant 0.5 : f64
  affine.for %i = 0 to 64 {
    %b = affine.load %B[%i] : memref<64xf64>
    %m = arith.mulf %b, %c : f64
    affine.store %m, %B[%i] : memref<64xf64>
  }
  %v = affine.load %A[7] : memref<64xf64>
  affine.for %i = 0 to 64 {
    %a = affine.load %A[%i] : memref<64xf64>
    %m = arith.mulf %a, %c : f64
    affine.store %m, %A[%i] : memref<64xf64>
  }
  affine.for %i = 0 to 64 {
    %b = affine.load %B[%i] : memref<64xf64>
    %s = arith.addf %b, %v : f64
    affine.store %s, %B[%i] : memref<64xf64>
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// Σ v[k] · (1 + k mod 5), as the bits of an f64.
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
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7.0 : f64
  %A = memref.alloc() : memref<4096xf64>
  %B = memref.alloc() : memref<4096xf64>
  %c4096 = arith.constant 4096 : index
  scf.for %k = %c0 to %c4096 step %c1 {
    %v = affine.apply affine_map<(d0) -> ((d0 * 7) mod 11)>(%k)
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    %w = arith.divf %vf, %c7 : f64
    memref.store %w, %A[%k] : memref<4096xf64>
    %u = affine.apply affine_map<(d0) -> ((d0 * 5 + 2) mod 13)>(%k)
    %ui = arith.index_cast %u : index to i64
    %uf = arith.sitofp %ui : i64 to f64
    memref.store %uf, %B[%k] : memref<4096xf64>
  }
  %A2 = memref.reinterpret_cast %A to offset: [0], sizes: [64, 64], strides: [64, 1] : memref<4096xf64> to memref<64x64xf64>
  %B2 = memref.reinterpret_cast %B to offset: [0], sizes: [64, 64], strides: [64, 1] : memref<4096xf64> to memref<64x64xf64>
  func.call @drain(%A2, %B2) : (memref<64x64xf64>, memref<64x64xf64>) -> ()
  %A1 = memref.reinterpret_cast %B to offset: [0], sizes: [64], strides: [1] : memref<4096xf64> to memref<64xf64>
  %B1 = memref.reinterpret_cast %B to offset: [64], sizes: [64], strides: [1] : memref<4096xf64> to memref<64xf64, strided<[1], offset: 64>>
  %B1c = memref.alloc() : memref<64xf64>
  memref.copy %B1, %B1c : memref<64xf64, strided<[1], offset: 64>> to memref<64xf64>
  func.call @between(%A1, %B1c) : (memref<64xf64>, memref<64xf64>) -> ()
  %Ad = memref.cast %A : memref<4096xf64> to memref<?xf64>
  %Bd = memref.cast %B : memref<4096xf64> to memref<?xf64>
  %Cd = memref.cast %B1c : memref<64xf64> to memref<?xf64>
  func.call @sum(%Ad) : (memref<?xf64>) -> ()
  func.call @sum(%Bd) : (memref<?xf64>) -> ()
  func.call @sum(%Cd) : (memref<?xf64>) -> ()
  return
}
