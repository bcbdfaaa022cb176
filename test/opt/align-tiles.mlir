// Tile alignment: gesummv's one-loop nests (tmp[i] = y[i] = 0 before the
// rows' sums, y[i] = alpha * tmp[i] + beta * y[i] after them) have i as
// their vector loop, whose tiles the point-order stage would make 64 long
// at 600 rows, where the rows' nest has tiles of 32 rows. They take the
// rows' nest's size instead, so that tile fusion runs each tile's
// initialization, rows and final sum in one parallel loop (one fork, not
// three). In @apart the one-loop nest (w[i] = 2 * v[i]) shares no cell
// with the rows' nest: it keeps its 64-long tiles and its own parallel
// loop. The results must be identical, digit for digit, to the
// untransformed program's (2 OpenMP threads), aligned, with fusion off
// (nests apart, long tiles), and on AVX2.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.aligned
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false fuse-tiles=false' 2> %t.remarks-off | %polyrs-runner --threads=2 - > %t.off
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' 2>/dev/null | %polyrs-runner --threads=2 - > %t.avx2
// RUN: diff %t.before %t.aligned
// RUN: diff %t.before %t.off
// RUN: diff %t.before %t.avx2
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks-off --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s
//
// SUMS-COUNT-4: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: 5 statements, {{.*}}; band of 2 loops tiled 32x32 / 32x40; tile loops of S0, S1, S2, S3, S4 fused (the same tiles, the same cells);{{.*}}legality verified
// REMARK: remark: poly-opt: 2 statements, {{.*}}; band of 2 loops tiled 64x32 / 32x40;
// REMARK-NOT: fused
// REMARK-SAME: legality verified
// OFF: remark: poly-opt: 5 statements, {{.*}}; band of 2 loops tiled 64x32 / 32x40;
// OFF-NOT: fused
//
// One parallel loop over the tiles of 32 rows, its body the three nests.
// CHECK-LABEL: func.func @gesummv(
// CHECK: affine.parallel (%[[T:.*]]) = (0) to (19) {
// CHECK: affine.store %{{.*}}, %arg4[%{{.*}}] : memref<600xf64>
// CHECK: vector.from_elements
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: }
// CHECK-NOT: affine.parallel
// CHECK-LABEL: func.func @apart(
// CHECK: affine.parallel (%{{.*}}) = (0) to (10) {
// CHECK: affine.parallel (%{{.*}}) = (0) to (19) {

func.func private @printI64(i64)
func.func private @printNewline()

func.func @gesummv(%alpha: f64, %beta: f64, %A: memref<600x40xf64>, %B: memref<600x40xf64>, %tmp: memref<600xf64>, %x: memref<40xf64>, %y: memref<600xf64>) {
  %zero = arith.constant 0.0 : f64
  affine.for %i = 0 to 600 {
    affine.store %zero, %tmp[%i] : memref<600xf64>
    affine.store %zero, %y[%i] : memref<600xf64>
    affine.for %j = 0 to 40 {
      %a = affine.load %A[%i, %j] : memref<600x40xf64>
      %xj = affine.load %x[%j] : memref<40xf64>
      %t = affine.load %tmp[%i] : memref<600xf64>
      %p = arith.mulf %a, %xj : f64
      %s = arith.addf %p, %t : f64
      affine.store %s, %tmp[%i] : memref<600xf64>
      %b = affine.load %B[%i, %j] : memref<600x40xf64>
      %yv = affine.load %y[%i] : memref<600xf64>
      %q = arith.mulf %b, %xj : f64
      %r = arith.addf %q, %yv : f64
      affine.store %r, %y[%i] : memref<600xf64>
    }
    %t2 = affine.load %tmp[%i] : memref<600xf64>
    %y2 = affine.load %y[%i] : memref<600xf64>
    %u = arith.mulf %alpha, %t2 : f64
    %v = arith.mulf %beta, %y2 : f64
    %w = arith.addf %u, %v : f64
    affine.store %w, %y[%i] : memref<600xf64>
  }
  return
}

func.func @apart(%A: memref<600x40xf64>, %x: memref<40xf64>, %tmp: memref<600xf64>, %v: memref<600xf64>, %w: memref<600xf64>) {
  %two = arith.constant 2.0 : f64
  affine.for %i = 0 to 600 {
    %e = affine.load %v[%i] : memref<600xf64>
    %d = arith.mulf %two, %e : f64
    affine.store %d, %w[%i] : memref<600xf64>
  }
  affine.for %i = 0 to 600 {
    affine.for %j = 0 to 40 {
      %a = affine.load %A[%i, %j] : memref<600x40xf64>
      %xj = affine.load %x[%j] : memref<40xf64>
      %t = affine.load %tmp[%i] : memref<600xf64>
      %p = arith.mulf %a, %xj : f64
      %s = arith.addf %p, %t : f64
      affine.store %s, %tmp[%i] : memref<600xf64>
    }
  }
  return
}

func.func @fill(%A: memref<?xf64>, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    %v = affine.apply affine_map<(d0)[s0] -> ((d0 * 7 + s0 * 3) mod 11)>(%i)[%k]
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    %q = arith.divf %vf, %c7 : f64
    %x = arith.addf %q, %one : f64
    memref.store %x, %A[%i] : memref<?xf64>
  }
  return
}

// Prints the bits of the sum of A[i] * (1 + i mod 5).
func.func @sum(%A: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %A[%i] : memref<?xf64>
    %m = affine.apply affine_map<(d0) -> (d0 mod 5 + 1)>(%i)
    %mi = arith.index_cast %m : index to i64
    %mf = arith.sitofp %mi : i64 to f64
    %p = arith.mulf %v, %mf : f64
    %n2 = arith.addf %acc, %p : f64
    scf.yield %n2 : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c40 = arith.constant 40 : index
  %c600 = arith.constant 600 : index
  %c24000 = arith.constant 24000 : index
  %alpha = arith.constant 1.25 : f64
  %beta = arith.constant 0.75 : f64
  %Af = memref.alloc() : memref<24000xf64>
  %Bf = memref.alloc() : memref<24000xf64>
  %x = memref.alloc() : memref<40xf64>
  %tmp = memref.alloc() : memref<600xf64>
  %y = memref.alloc() : memref<600xf64>
  %v = memref.alloc() : memref<600xf64>
  %w = memref.alloc() : memref<600xf64>
  %Afd = memref.cast %Af : memref<24000xf64> to memref<?xf64>
  %Bfd = memref.cast %Bf : memref<24000xf64> to memref<?xf64>
  %xd = memref.cast %x : memref<40xf64> to memref<?xf64>
  %tmpd = memref.cast %tmp : memref<600xf64> to memref<?xf64>
  %yd = memref.cast %y : memref<600xf64> to memref<?xf64>
  %vd = memref.cast %v : memref<600xf64> to memref<?xf64>
  %wd = memref.cast %w : memref<600xf64> to memref<?xf64>
  func.call @fill(%Afd, %c24000, %c0) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%Bfd, %c24000, %c1) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%xd, %c40, %c2) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%tmpd, %c600, %c3) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%vd, %c600, %c4) : (memref<?xf64>, index, index) -> ()
  %A = memref.expand_shape %Af [[0, 1]] output_shape [600, 40] : memref<24000xf64> into memref<600x40xf64>
  %B = memref.expand_shape %Bf [[0, 1]] output_shape [600, 40] : memref<24000xf64> into memref<600x40xf64>
  func.call @gesummv(%alpha, %beta, %A, %B, %tmp, %x, %y) : (f64, f64, memref<600x40xf64>, memref<600x40xf64>, memref<600xf64>, memref<40xf64>, memref<600xf64>) -> ()
  func.call @sum(%tmpd, %c600) : (memref<?xf64>, index) -> ()
  func.call @sum(%yd, %c600) : (memref<?xf64>, index) -> ()
  func.call @apart(%A, %x, %tmp, %v, %w) : (memref<600x40xf64>, memref<40xf64>, memref<600xf64>, memref<600xf64>, memref<600xf64>) -> ()
  func.call @sum(%tmpd, %c600) : (memref<?xf64>, index) -> ()
  func.call @sum(%wd, %c600) : (memref<?xf64>, index) -> ()
  memref.dealloc %Af : memref<24000xf64>
  memref.dealloc %Bf : memref<24000xf64>
  memref.dealloc %x : memref<40xf64>
  memref.dealloc %tmp : memref<600xf64>
  memref.dealloc %y : memref<600xf64>
  memref.dealloc %v : memref<600xf64>
  memref.dealloc %w : memref<600xf64>
  return
}
