// The vector loop inside tiles: a parallel loop with stride-1 accesses moves
// innermost, unless an access is strided along it in a group without a
// register tile (it would gather at every iteration) while the band's
// innermost loop has every access contiguous or invariant. Cholesky's row
// update `A[i][j] -= A[i][k] * A[j][k]` keeps `k` innermost (along `j`,
// `A[j][k]` walks down a column: 0.54 s -> 0.47 s at LARGE on a Zen 4);
// lu's `A[i][j] -= A[i][k] * A[k][j]`, contiguous along `j`, has `j` as its
// vector loop (the vector tile: 256 with AVX-512). Register tiles are off:
// with them, cholesky's group gets blocks instead (test/opt/edge-blocks.mlir).
// The results must be identical, digit for digit, before and
// after (parallel loops on 2 OpenMP threads), with the default tiles and
// partial ones.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false register-tile=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false register-tile=false tile-sizes=7' | %polyrs-runner --threads=2 - > %t.seven
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.seven
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: gather.mlir:[[@LINE+5]]:3: remark: poly-opt: 4 statements, {{.*}}point loop φ2 kept innermost (contiguous accesses; φ1 would gather);{{.*}} legality verified
// REMARK-NOT: moved innermost (stride-1
// REMARK: gather.mlir:[[@LINE+33]]:3: remark: poly-opt: 2 statements, {{.*}}band of 3 loops tiled 32x32x256;{{.*}} legality verified

func.func @cholesky(%A: memref<40x40xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      affine.for %k = 0 to affine_map<(d0) -> (d0)>(%j) {
        %a = affine.load %A[%i, %k] : memref<40x40xf64>
        %b = affine.load %A[%j, %k] : memref<40x40xf64>
        %c = affine.load %A[%i, %j] : memref<40x40xf64>
        %m = arith.mulf %a, %b : f64
        %s = arith.subf %c, %m : f64
        affine.store %s, %A[%i, %j] : memref<40x40xf64>
      }
      %d = affine.load %A[%j, %j] : memref<40x40xf64>
      %e = affine.load %A[%i, %j] : memref<40x40xf64>
      %f = arith.divf %e, %d : f64
      affine.store %f, %A[%i, %j] : memref<40x40xf64>
    }
    affine.for %k = 0 to affine_map<(d0) -> (d0)>(%i) {
      %a = affine.load %A[%i, %k] : memref<40x40xf64>
      %c = affine.load %A[%i, %i] : memref<40x40xf64>
      %m = arith.mulf %a, %a : f64
      %s = arith.subf %c, %m : f64
      affine.store %s, %A[%i, %i] : memref<40x40xf64>
    }
    %g = affine.load %A[%i, %i] : memref<40x40xf64>
    %h = math.sqrt %g : f64
    affine.store %h, %A[%i, %i] : memref<40x40xf64>
  }
  return
}

func.func @lu(%A: memref<40x40xf64>) {
  affine.for %k = 0 to 40 {
    affine.for %i = affine_map<(d0) -> (d0 + 1)>(%k) to 40 {
      %d = affine.load %A[%k, %k] : memref<40x40xf64>
      %e = affine.load %A[%i, %k] : memref<40x40xf64>
      %f = arith.divf %e, %d : f64
      affine.store %f, %A[%i, %k] : memref<40x40xf64>
      affine.for %j = affine_map<(d0) -> (d0 + 1)>(%k) to 40 {
        %a = affine.load %A[%i, %k] : memref<40x40xf64>
        %b = affine.load %A[%k, %j] : memref<40x40xf64>
        %c = affine.load %A[%i, %j] : memref<40x40xf64>
        %m = arith.mulf %a, %b : f64
        %s = arith.subf %c, %m : f64
        affine.store %s, %A[%i, %j] : memref<40x40xf64>
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// A[i][j] = ((7i + 3j) mod 11) / 7, plus 100 on the diagonal (positive
// pivots and square roots).
func.func @fill(%A: memref<40x40xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c7 = arith.constant 7.0 : f64
  %big = arith.constant 100.0 : f64
  scf.for %i = %c0 to %c40 step %c1 {
    scf.for %j = %c0 to %c40 step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<40x40xf64>
    }
    %x = memref.load %A[%i, %i] : memref<40x40xf64>
    %y = arith.addf %x, %big : f64
    memref.store %y, %A[%i, %i] : memref<40x40xf64>
  }
  return
}

// Prints the bits of the sum of A[i][j] * (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<40x40xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c40 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c40 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<40x40xf64>
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
  %A = memref.alloc() : memref<40x40xf64>
  func.call @fill(%A) : (memref<40x40xf64>) -> ()
  func.call @cholesky(%A) : (memref<40x40xf64>) -> ()
  func.call @sum(%A) : (memref<40x40xf64>) -> ()
  %B = memref.alloc() : memref<40x40xf64>
  func.call @fill(%B) : (memref<40x40xf64>) -> ()
  func.call @lu(%B) : (memref<40x40xf64>) -> ()
  func.call @sum(%B) : (memref<40x40xf64>) -> ()
  memref.dealloc %A : memref<40x40xf64>
  memref.dealloc %B : memref<40x40xf64>
  return
}
