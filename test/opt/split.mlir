// Index-set splitting: a statement whose dependences at step k come from
// or go to one row (i = k) is split into the rows before, at and after it;
// the rows of the first and last pieces then run in parallel. The results
// must be identical, digit for digit, before and after (parallel loops on
// 2 OpenMP threads), with symbolic and static sizes, with the default tiles
// and with partial ones; without splitting, the same SCoPs run a wavefront
// of tiles restarted at every step.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.split
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=7 profitability=false' | %polyrs-runner --threads=2 - > %t.seven
// RUN: %polyrs-opt %s --poly-opt='%{avx512} split=false profitability=false' 2> %t.nosplit.remarks | %polyrs-runner --threads=2 - > %t.nosplit
// RUN: diff %t.before %t.split
// RUN: diff %t.before %t.seven
// RUN: diff %t.before %t.nosplit
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.nosplit.remarks --check-prefix=NOSPLIT
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s
//
// Each kernel printed one checksum, and none is a NaN or an infinity (the
// bit patterns of those start with 7ff or fff):
// SUMS-COUNT-3: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: split.mlir:52:3: remark: poly-opt: 3 statements, {{.*}}S0 split at i1 = i0 (index-set splitting);{{.*}} legality verified
// REMARK: split.mlir:73:3: remark: poly-opt: 3 statements, {{.*}}S0 split at i1 = i0 (index-set splitting); point loop φ3 not cut into tiles (a stream with broadcast dependences); band of 2 loops tiled 32x40; legality verified
// The recurrence is scheduled in one band with its k loop: no split.
// REMARK: split.mlir:93:3: remark: poly-opt: 1 statement, {{.*}}tiles run as a parallel wavefront; legality verified
// NOSPLIT-COUNT-2: tiles run as a parallel wavefront, restarted at every iteration
//
// The split rows of the elimination: inside the k loop, the rows before k
// in parallel, row k, the rows after k in parallel, each row a whole loop.
// CHECK-LABEL: func.func @eliminate
// CHECK: affine.for %[[K:.*]] = 1 to 39 {
// CHECK-NEXT: affine.parallel
// CHECK-NEXT: affine.for %[[I1:.*]] = #map{{[0-9]*}}(%{{.*}}) to min
// CHECK-NEXT: affine.for %[[J1:.*]] = 0 to 40 {
// CHECK: affine.store %{{.*}}, %{{.*}}[%[[I1]], %[[J1]]]
// CHECK: affine.for %[[J2:.*]] = 0 to 40 {
// CHECK: affine.store %{{.*}}, %{{.*}}[%[[K]], %[[J2]]]
// CHECK: affine.parallel
// CHECK-NEXT: affine.for %[[I3:.*]] = max
// CHECK-NEXT: affine.for %[[J3:.*]] = 0 to 40 {
// CHECK: affine.store %{{.*}}, %{{.*}}[%[[I3]], %[[J3]]]

func.func private @printI64(i64)
func.func private @printNewline()

// Floyd-Warshall with a symbolic size.
func.func @floyd_warshall(%P: memref<?x?xf64>, %n: index) {
  affine.for %k = 0 to %n {
    affine.for %i = 0 to %n {
      affine.for %j = 0 to %n {
        %a = affine.load %P[%i, %j] : memref<?x?xf64>
        %b = affine.load %P[%i, %k] : memref<?x?xf64>
        %c = affine.load %P[%k, %j] : memref<?x?xf64>
        %s = arith.addf %b, %c : f64
        %lt = arith.cmpf olt, %a, %s : f64
        %m = arith.select %lt, %a, %s : f64
        affine.store %m, %P[%i, %j] : memref<?x?xf64>
      }
    }
  }
  return
}

// A Gauss-Jordan-like elimination (every row, the pivot row too, updated
// with the pivot row of the step), static size: rounding shows any change
// of order.
func.func @eliminate(%A: memref<40x40xf64>) {
  %f = arith.constant 0.03125 : f64
  affine.for %k = 0 to 40 {
    affine.for %i = 0 to 40 {
      affine.for %j = 0 to 40 {
        %a = affine.load %A[%i, %j] : memref<40x40xf64>
        %b = affine.load %A[%i, %k] : memref<40x40xf64>
        %c = affine.load %A[%k, %j] : memref<40x40xf64>
        %bc = arith.mulf %b, %c : f64
        %d = arith.mulf %bc, %f : f64
        %r = arith.subf %a, %d : f64
        affine.store %r, %A[%i, %j] : memref<40x40xf64>
      }
    }
  }
  return
}

// Cell (i, j) of step k reads cells (i - 1, j) and (i, j - 1) of the same
// step, and row k.
func.func @recurrence(%A: memref<40x40xf64>) {
  %h = arith.constant 0.25 : f64
  affine.for %k = 0 to 40 {
    affine.for %i = 1 to 40 {
      affine.for %j = 1 to 40 {
        %a = affine.load %A[%i - 1, %j] : memref<40x40xf64>
        %b = affine.load %A[%i, %j - 1] : memref<40x40xf64>
        %c = affine.load %A[%k, %j] : memref<40x40xf64>
        %s = arith.addf %a, %b : f64
        %t = arith.addf %s, %c : f64
        %m = arith.mulf %t, %h : f64
        affine.store %m, %A[%i, %j] : memref<40x40xf64>
      }
    }
  }
  return
}

func.func @fill(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Prints the bits of Σ A[i][j] · (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %m step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<?x?xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %p = arith.mulf %v, %wf : f64
      %n2 = arith.addf %a2, %p : f64
      scf.yield %n2 : f64
    }
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c40 = arith.constant 40 : index
  %c45 = arith.constant 45 : index
  %P = memref.alloc(%c45, %c45) : memref<?x?xf64>
  func.call @fill(%P, %c45, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @floyd_warshall(%P, %c45) : (memref<?x?xf64>, index) -> ()
  func.call @sum(%P, %c45, %c45) : (memref<?x?xf64>, index, index) -> ()
  %A = memref.alloc() : memref<40x40xf64>
  %Ad = memref.cast %A : memref<40x40xf64> to memref<?x?xf64>
  func.call @fill(%Ad, %c40, %c40) : (memref<?x?xf64>, index, index) -> ()
  func.call @eliminate(%A) : (memref<40x40xf64>) -> ()
  func.call @sum(%Ad, %c40, %c40) : (memref<?x?xf64>, index, index) -> ()
  %B = memref.alloc() : memref<40x40xf64>
  %Bd = memref.cast %B : memref<40x40xf64> to memref<?x?xf64>
  func.call @fill(%Bd, %c40, %c40) : (memref<?x?xf64>, index, index) -> ()
  func.call @recurrence(%B) : (memref<40x40xf64>) -> ()
  func.call @sum(%Bd, %c40, %c40) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %P : memref<?x?xf64>
  memref.dealloc %A : memref<40x40xf64>
  memref.dealloc %B : memref<40x40xf64>
  return
}
