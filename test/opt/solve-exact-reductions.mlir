// Triangular solves whose rows reduce with an operation exact in any
// order (integer `xori`, `maxsi`), by default: each row's chain reads
// other cells of its array (`x[j]`, `j < i`), and the steps stage splits
// it into pieces; each piece is a reduction all the same
// (`analysis::reductions`), so the columns before each step run 8 rows'
// chains at a time, each in vector lanes along its row, with no option:
// the results must be identical, bit for bit, before and after (AVX-512
// and AVX2 sizes, 2 and 3 threads, tiles of 8 and no fusion).
// (4000 rows, 2 threads, Zen 5: 1.9 ms one row at a time before, 1.5 ms.)
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' | %polyrs-runner --threads=3 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} fuse=no tile-sizes=8 profitability=false' | %polyrs-runner --threads=2 - > %t.t8
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.t8
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks
//
// SUMS: 4964992549201005964
// SUMS-NEXT: 10574568
//
// CHECK: solve-exact-reductions.mlir:33:3: remark: poly-opt: {{.*}}cut into steps of 128{{.*}}rows' chains along φ3 (run in vector lanes along it) taken 8 rows at a time
// CHECK-NOT: reassociated
// CHECK: solve-exact-reductions.mlir:49:3: remark: poly-opt: {{.*}}cut into steps of 128{{.*}}rows' chains along φ3 (run in vector lanes along it) taken 8 rows at a time
// CHECK-NOT: reassociated

func.func private @printI64(i64)
func.func private @printNewline()

func.func @isolve(%L: memref<700x700xi64>, %x: memref<700xi64>, %b: memref<700xi64>) {
  affine.for %i = 0 to 700 {
    %bi = affine.load %b[%i] : memref<700xi64>
    affine.store %bi, %x[%i] : memref<700xi64>
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %xi = affine.load %x[%i] : memref<700xi64>
      %l = affine.load %L[%i, %j] : memref<700x700xi64>
      %xj = affine.load %x[%j] : memref<700xi64>
      %m = arith.muli %l, %xj : i64
      %s = arith.xori %xi, %m : i64
      affine.store %s, %x[%i] : memref<700xi64>
    }
  }
  return
}

func.func @msolve(%L: memref<700x700xi64>, %y: memref<700xi64>, %b: memref<700xi64>) {
  affine.for %i = 0 to 700 {
    %bi = affine.load %b[%i] : memref<700xi64>
    affine.store %bi, %y[%i] : memref<700xi64>
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %yi = affine.load %y[%i] : memref<700xi64>
      %l = affine.load %L[%i, %j] : memref<700x700xi64>
      %yj = affine.load %y[%j] : memref<700xi64>
      %m = arith.addi %l, %yj : i64
      %s = arith.maxsi %yi, %m : i64
      affine.store %s, %y[%i] : memref<700xi64>
    }
  }
  return
}

func.func @main() {
  %L = memref.alloc() : memref<700x700xi64>
  %b = memref.alloc() : memref<700xi64>
  %x = memref.alloc() : memref<700xi64>
  %y = memref.alloc() : memref<700xi64>
  %c7 = arith.constant 7 : i64
  %c13 = arith.constant 13 : i64
  %c101 = arith.constant 101 : i64
  affine.for %i = 0 to 700 {
    affine.for %j = 0 to 700 {
      %ii = arith.index_cast %i : index to i64
      %jj = arith.index_cast %j : index to i64
      %p = arith.muli %ii, %c13 : i64
      %q = arith.addi %p, %jj : i64
      %r = arith.remsi %q, %c101 : i64
      %v = arith.subi %r, %c7 : i64
      memref.store %v, %L[%i, %j] : memref<700x700xi64>
    }
    %ii = arith.index_cast %i : index to i64
    %bb = arith.remsi %ii, %c7 : i64
    memref.store %bb, %b[%i] : memref<700xi64>
  }
  func.call @isolve(%L, %x, %b) : (memref<700x700xi64>, memref<700xi64>, memref<700xi64>) -> ()
  func.call @msolve(%L, %y, %b) : (memref<700x700xi64>, memref<700xi64>, memref<700xi64>) -> ()
  %z = arith.constant 0 : i64
  %s:2 = affine.for %i = 0 to 700 iter_args(%a = %z, %c = %z) -> (i64, i64) {
    %v = affine.load %x[%i] : memref<700xi64>
    %w = affine.load %y[%i] : memref<700xi64>
    %ii = arith.index_cast %i : index to i64
    %vv = arith.muli %v, %ii : i64
    %na = arith.xori %a, %vv : i64
    %nc = arith.addi %c, %w : i64
    affine.yield %na, %nc : i64, i64
  }
  func.call @printI64(%s#0) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%s#1) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
