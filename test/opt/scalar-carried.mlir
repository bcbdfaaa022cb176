// A loop kept scalar (its strided accesses across a recurrence would be
// slow gathers on Zen 4: see scalar-strided.mlir) whose statement also
// reads a cell fixed along it (v[j], the same for every row i) keeps that
// cell in a register (iter_args) and must still carry the annotation that
// keeps LLVM from vectorizing it: the tree's scalar role is printed on the
// loop that carries cells too. (Before, only loops without carried cells
// got it, and the remark did not count this one.) The results must be the
// input's, digit for digit.
//
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false print-stages=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}

// TREE: loop tree after the scalar stage (1 loop marked):
// TREE: for t3 = max(32*t0, 1) to min(62, 32*t0+31) [scalar, carry]

// CHECK: remark: poly-opt: {{.*}}moved innermost (independent iterations across a recurrence);{{.*}}innermost loops across a recurrence run scalar: {{.*}}(1 loop)
// CHECK-LABEL: func.func @sweep
// CHECK:       affine.for {{.*}} iter_args(
// CHECK:       } {llvm.loop_annotation = #{{.*}}}
func.func @sweep(%p: memref<64x64xf64>, %v: memref<64xf64>) {
  %a = arith.constant -0.25 : f64
  affine.for %i = 1 to 63 {
    affine.for %j = 1 to 63 {
      %pp = affine.load %p[%i, %j - 1] : memref<64x64xf64>
      %m = arith.mulf %a, %pp : f64
      %w = affine.load %v[%j] : memref<64xf64>
      %den = arith.addf %m, %w : f64
      affine.store %den, %p[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7.0 : f64
  %z = arith.constant 0.0 : f64
  %P = memref.alloc() : memref<64x64xf64>
  %V = memref.alloc() : memref<64xf64>
  scf.for %i = %c0 to %c64 step %c1 {
    %vi = arith.index_cast %i : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    %w = arith.divf %vf, %c7 : f64
    memref.store %w, %V[%i] : memref<64xf64>
    scf.for %j = %c0 to %c64 step %c1 {
      %x = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %xi = arith.index_cast %x : index to i64
      %xf = arith.sitofp %xi : i64 to f64
      %y = arith.divf %xf, %c7 : f64
      memref.store %y, %P[%i, %j] : memref<64x64xf64>
    }
  }
  func.call @sweep(%P, %V) : (memref<64x64xf64>, memref<64xf64>) -> ()
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c64 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %x = memref.load %P[%i, %j] : memref<64x64xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %pr = arith.mulf %x, %wf : f64
      %n2 = arith.addf %a2, %pr : f64
      scf.yield %n2 : f64
    }
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %P : memref<64x64xf64>
  memref.dealloc %V : memref<64xf64>
  return
}
