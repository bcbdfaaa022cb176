// Wavefronts inside tiles: an in-place 2-D Gauss-Seidel sweep over time has
// no parallel loop, and its innermost point loop carries a recurrence
// (A[i][j] reads the A[i][j-1] computed one iteration before). Inside each
// tile the last two point loops a, b become a + b, b: along the innermost
// loop consecutive iterations are then independent, and the core overlaps
// their chains of additions and divisions. The results must be identical,
// digit for digit, before and after (tiles of 32, of 7, 5x3x11, and the
// transformation turned off).
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.default
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=7 profitability=false' | %polyrs-runner --threads=2 - > %t.seven
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=5,3,11 profitability=false' | %polyrs-runner --threads=2 - > %t.odd
// RUN: %polyrs-opt %s --poly-opt='%{avx512} inner-wavefront=false profitability=false' 2> %t.off.remarks | %polyrs-runner --threads=2 - > %t.off
// RUN: diff %t.before %t.default
// RUN: diff %t.before %t.seven
// RUN: diff %t.before %t.odd
// RUN: diff %t.before %t.off
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.off.remarks --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s
//
// SUMS: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
// REMARK: inner-wavefront.mlir:{{[0-9]+}}:3: remark: poly-opt: 1 statement, {{.*}}points of each tile run along wavefronts (independent iterations across a recurrence); band of 3 loops tiled 32x32x32; tiles run as a parallel wavefront; legality verified
// OFF-NOT: along wavefronts
//
// The skewed schedule is (t, t + i, 2t + i + j); inside a tile the points
// run over t, then (t + i) + (2t + i + j), then 2t + i + j: the innermost
// loop's next iteration is row i - 1, column j + 2 of the same step, which
// does not depend on the current one.
// CHECK-LABEL: func.func @seidel
// CHECK:       affine.for %[[T:.*]] = max
// CHECK-NEXT:  affine.for %[[H:.*]] = max
// CHECK-NEXT:  affine.for %[[P:.*]] = max
// CHECK:       affine.store %{{.*}}, %arg0[-%[[T]] + %[[H]] - %[[P]], -%[[T]] - %[[H]] + %[[P]] * 2]

func.func private @printI64(i64)
func.func private @printNewline()

func.func @seidel(%A: memref<60x70xf64>) {
  %c9 = arith.constant 9.0 : f64
  affine.for %t = 0 to 12 {
    affine.for %i = 1 to 59 {
      affine.for %j = 1 to 69 {
        %a = affine.load %A[%i - 1, %j - 1] : memref<60x70xf64>
        %b = affine.load %A[%i - 1, %j] : memref<60x70xf64>
        %c = affine.load %A[%i - 1, %j + 1] : memref<60x70xf64>
        %d = affine.load %A[%i, %j - 1] : memref<60x70xf64>
        %e = affine.load %A[%i, %j] : memref<60x70xf64>
        %f = affine.load %A[%i, %j + 1] : memref<60x70xf64>
        %g = affine.load %A[%i + 1, %j - 1] : memref<60x70xf64>
        %h = affine.load %A[%i + 1, %j] : memref<60x70xf64>
        %k = affine.load %A[%i + 1, %j + 1] : memref<60x70xf64>
        %s1 = arith.addf %a, %b : f64
        %s2 = arith.addf %s1, %c : f64
        %s3 = arith.addf %s2, %d : f64
        %s4 = arith.addf %s3, %e : f64
        %s5 = arith.addf %s4, %f : f64
        %s6 = arith.addf %s5, %g : f64
        %s7 = arith.addf %s6, %h : f64
        %s8 = arith.addf %s7, %k : f64
        %r = arith.divf %s8, %c9 : f64
        affine.store %r, %A[%i, %j] : memref<60x70xf64>
      }
    }
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c60 = arith.constant 60 : index
  %c70 = arith.constant 70 : index
  %c7 = arith.constant 7.0 : f64
  %z = arith.constant 0.0 : f64
  %A = memref.alloc() : memref<60x70xf64>
  scf.for %i = %c0 to %c60 step %c1 {
    scf.for %j = %c0 to %c70 step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<60x70xf64>
    }
  }
  func.call @seidel(%A) : (memref<60x70xf64>) -> ()
  %s = scf.for %i = %c0 to %c60 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c70 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<60x70xf64>
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
  memref.dealloc %A : memref<60x70xf64>
  return
}
