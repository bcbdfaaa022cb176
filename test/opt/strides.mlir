// Strides and integer divisions: loop steps (with one and with several lower
// bounds), floordiv/ceildiv/mod in bounds and subscripts. The code
// generator scans them exactly (src/codegen/scatter.rs): a step becomes a
// strided loop, a division a floordiv in a bound or a guard. The results
// must be identical, digit for digit, before and after (parallel loops on 2
// OpenMP threads), with several tilings.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.default
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=3 profitability=false' | %polyrs-runner --threads=2 - > %t.three
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=2,5 l2-tile=2 nested-parallel=true profitability=false' | %polyrs-runner --threads=2 - > %t.l2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} fuse=max unroll-jam=2 tile-sizes=4 profitability=false' | %polyrs-runner --threads=2 - > %t.jam
// RUN: diff %t.before %t.default
// RUN: diff %t.before %t.three
// RUN: diff %t.before %t.l2
// RUN: diff %t.before %t.jam
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' --mlir-print-local-scope 2>/dev/null | FileCheck %s
//
// SUMS-COUNT-4: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// Every SCoP is transformed (none left unchanged):
// REMARK-NOT: left unchanged
// REMARK-COUNT-4: remark: poly-opt: {{[0-9]+}} statement

func.func private @printI64(i64)
func.func private @printNewline()

// A step of 3 carrying a dependence (row i reads row i - 3). A strided loop
// runs over the quotient: i = 3q + 1 (no `mod` in its bounds, which MLIR's
// canonicalization of loop bounds can fold wrongly).
// CHECK-LABEL: func.func @strided
// CHECK-NOT: mod
// CHECK: affine.store %{{.*}}, %{{.*}}[%{{.*}} * 3 + 4, %{{.*}}]
// CHECK: return
func.func @strided(%A: memref<40x30xf64>) {
  affine.for %i = 4 to 40 step 3 {
    affine.for %j = 0 to 30 {
      %a = affine.load %A[%i - 3, %j] : memref<40x30xf64>
      %b = affine.load %A[%i, %j] : memref<40x30xf64>
      %s = arith.addf %a, %b : f64
      affine.store %s, %A[%i, %j] : memref<40x30xf64>
    }
  }
  return
}

// Bounds and subscripts with divisions: the triangle j < i floordiv 2 + 1
// and a reduction into B[i mod 4][j ceildiv 2].
// CHECK-LABEL: func.func @divisions
// CHECK: floordiv 2
func.func @divisions(%A: memref<40x30xf64>, %B: memref<4x16xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 floordiv 2 + 1)>(%i) {
      %a = affine.load %A[%i, %j] : memref<40x30xf64>
      %b = affine.load %B[%i mod 4, %j ceildiv 2] : memref<4x16xf64>
      %s = arith.addf %a, %b : f64
      affine.store %s, %B[%i mod 4, %j ceildiv 2] : memref<4x16xf64>
    }
  }
  return
}

// A step with two lower bounds: j starts at max(0, i - 5), in steps of 2,
// so its residue class depends on which bound is the larger.
// CHECK-LABEL: func.func @two_lower_bounds
func.func @two_lower_bounds(%A: memref<40x30xf64>) {
  affine.for %i = 0 to 30 {
    affine.for %j = max affine_map<(d0) -> (0, d0 - 5)>(%i) to 30 step 2 {
      %a = affine.load %A[%i + 1, %j] : memref<40x30xf64>
      %b = affine.load %A[%i, %j] : memref<40x30xf64>
      %s = arith.mulf %a, %b : f64
      affine.store %s, %A[%i + 1, %j] : memref<40x30xf64>
    }
  }
  return
}

// Strength-reduced indexing: a flat array walked in blocks of 4.
// CHECK-LABEL: func.func @flat
func.func @flat(%A: memref<120xf64>, %B: memref<30xf64>) {
  affine.for %k = 0 to 120 {
    %a = affine.load %A[%k] : memref<120xf64>
    %b = affine.load %B[%k floordiv 4] : memref<30xf64>
    %s = arith.addf %a, %b : f64
    affine.store %s, %B[%k floordiv 4] : memref<30xf64>
  }
  return
}

// A[i][j] = (7i + 3j) mod 11 / 7
func.func @fill2(%A: memref<?x?xf64>, %n: index, %m: index) {
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
func.func @sum2(%A: memref<?x?xf64>, %n: index, %m: index) {
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
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c30 = arith.constant 30 : index
  %c40 = arith.constant 40 : index
  %c120 = arith.constant 120 : index

  %A = memref.alloc() : memref<40x30xf64>
  %Ad = memref.cast %A : memref<40x30xf64> to memref<?x?xf64>
  func.call @fill2(%Ad, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @strided(%A) : (memref<40x30xf64>) -> ()
  func.call @sum2(%Ad, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()

  %B = memref.alloc() : memref<4x16xf64>
  %Bd = memref.cast %B : memref<4x16xf64> to memref<?x?xf64>
  func.call @fill2(%Bd, %c4, %c16) : (memref<?x?xf64>, index, index) -> ()
  func.call @divisions(%A, %B) : (memref<40x30xf64>, memref<4x16xf64>) -> ()
  func.call @sum2(%Bd, %c4, %c16) : (memref<?x?xf64>, index, index) -> ()

  func.call @two_lower_bounds(%A) : (memref<40x30xf64>) -> ()
  func.call @sum2(%Ad, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()

  %F = memref.alloc() : memref<1x120xf64>
  %Fd = memref.cast %F : memref<1x120xf64> to memref<?x?xf64>
  func.call @fill2(%Fd, %c1, %c120) : (memref<?x?xf64>, index, index) -> ()
  %Ff = memref.reinterpret_cast %F to offset: [0], sizes: [120], strides: [1] : memref<1x120xf64> to memref<120xf64>
  %G = memref.alloc() : memref<1x30xf64>
  %Gd = memref.cast %G : memref<1x30xf64> to memref<?x?xf64>
  func.call @fill2(%Gd, %c1, %c30) : (memref<?x?xf64>, index, index) -> ()
  %Gf = memref.reinterpret_cast %G to offset: [0], sizes: [30], strides: [1] : memref<1x30xf64> to memref<30xf64>
  func.call @flat(%Ff, %Gf) : (memref<120xf64>, memref<30xf64>) -> ()
  func.call @sum2(%Gd, %c1, %c30) : (memref<?x?xf64>, index, index) -> ()
  return
}
