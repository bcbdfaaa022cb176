// A triangle's diagonal register blocks run row by row. syr2k's cells
// C[i][j], j <= i, in 8x8 blocks: a block on the diagonal has rows of 1 to 8
// cells. Kept in registers across one loop over k, its 36 cells took more
// than AVX-512's 32 registers (llc spilled them, and alpha, in every
// iteration: test/opt/spills.test). Each row now runs its own loop over k
// with its cells in iter_args (1 to 8 of them), which the checker allows
// only where the schedule with the block's rows outside k is legal too.
// The full blocks keep all their rows inside one loop over k (64
// accumulators). The results must be identical, digit for digit, to the
// untransformed program's (parallel loops on 2 OpenMP threads), with
// several tile shapes.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.default
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false tile-sizes=16,48,8' | %polyrs-runner --threads=2 - > %t.odd
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' | %polyrs-runner --threads=2 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false contract=true' | %polyrs-runner --threads=2 - > %t.fma
// RUN: diff %t.before %t.default
// RUN: diff %t.before %t.odd
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.fma
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir
//
// SUMS: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: {{.*}}register tile 8x8;
//
// CHECK-LABEL: func.func @syr2k
// The full blocks: every row inside one loop over k.
// CHECK: %{{[0-9]+}}:64 = affine.for
// The diagonal blocks' rows, one loop over k each, 1 to 8 cells.
// CHECK: %{{[0-9]+}} = affine.for %{{.*}} iter_args(%{{[^,]*}}) -> (f64) {
// CHECK: %{{[0-9]+}}:2 = affine.for
// CHECK: %{{[0-9]+}}:3 = affine.for
// CHECK: %{{[0-9]+}}:4 = affine.for
// CHECK: %{{[0-9]+}}:5 = affine.for
// CHECK: %{{[0-9]+}}:6 = affine.for
// CHECK: %{{[0-9]+}}:7 = affine.for
// CHECK: %{{[0-9]+}}:8 = affine.for

func.func private @printI64(i64)
func.func private @printNewline()

func.func @syr2k(%alpha: f64, %C: memref<40x40xf64>, %A: memref<40x30xf64>, %B: memref<40x30xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      affine.for %k = 0 to 30 {
        %c = affine.load %C[%i, %j] : memref<40x40xf64>
        %a1 = affine.load %A[%j, %k] : memref<40x30xf64>
        %p1 = arith.mulf %a1, %alpha : f64
        %b1 = affine.load %B[%i, %k] : memref<40x30xf64>
        %q1 = arith.mulf %p1, %b1 : f64
        %b2 = affine.load %B[%j, %k] : memref<40x30xf64>
        %p2 = arith.mulf %b2, %alpha : f64
        %a2 = affine.load %A[%i, %k] : memref<40x30xf64>
        %q2 = arith.mulf %p2, %a2 : f64
        %t = arith.addf %q1, %q2 : f64
        %s = arith.addf %c, %t : f64
        affine.store %s, %C[%i, %j] : memref<40x40xf64>
      }
    }
  }
  return
}

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

// Prints the bits of the sum of A[i][j] * (1 + (i + 2j) mod 5).
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
  %c30 = arith.constant 30 : index
  %c40 = arith.constant 40 : index
  %alpha = arith.constant 1.5 : f64
  %C = memref.alloc() : memref<40x40xf64>
  %A = memref.alloc() : memref<40x30xf64>
  %B = memref.alloc() : memref<40x30xf64>
  %Cd = memref.cast %C : memref<40x40xf64> to memref<?x?xf64>
  %Ad = memref.cast %A : memref<40x30xf64> to memref<?x?xf64>
  %Bd = memref.cast %B : memref<40x30xf64> to memref<?x?xf64>
  func.call @fill(%Cd, %c40, %c40) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Ad, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Bd, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @syr2k(%alpha, %C, %A, %B) : (f64, memref<40x40xf64>, memref<40x30xf64>, memref<40x30xf64>) -> ()
  func.call @sum(%Cd, %c40, %c40) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %C : memref<40x40xf64>
  memref.dealloc %A : memref<40x30xf64>
  memref.dealloc %B : memref<40x30xf64>
  return
}
