// Interleaved tiles (transform/interleave.rs) with several column tiles
// per thread: mvt's two nests (x1[i] += A[i][j] * y1[j] along rows, x2[j]
// += A[i][j] * y2[i] down columns, written as mvt writes it: A[i][j] read
// in a loop over columns) on a 256x2400 matrix. The column stream's 2400
// columns take tiles of at most 1024 (the target's stream tile, from its
// L1), as many as a multiple of the threads: on 2 threads 4 tiles of 600,
// 2 per thread (thread t's tiles 2t and 2t + 1). Interleaved, each thread
// runs, tile of 32 rows by tile, its 16 rows of x1, then its two column
// tiles of x2 over the 32 rows. On 3 threads: 3 tiles of 800, one per
// thread; on AVX2 (znver3: 512 KiB L2) tiles of 16 rows. Each x1[i] and
// x2[j] takes its terms in the input's order, so the results must equal
// the untransformed program's digit for digit.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.interleaved
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=3' 2> %t.remarks-3 | %polyrs-runner --threads=3 - > %t.three
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2' 2> %t.remarks-avx2 | %polyrs-runner --threads=2 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} fuse-tiles=false' 2> %t.remarks-off | %polyrs-runner --threads=2 - > %t.off
// RUN: diff %t.before %t.interleaved
// RUN: diff %t.before %t.three
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.off
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks-3 --check-prefix=THREE
// RUN: FileCheck %s --input-file=%t.remarks-avx2 --check-prefix=AVX2
// RUN: FileCheck %s --input-file=%t.remarks-off --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>/dev/null | FileCheck %s
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: 2 statements, {{.*}}; band of 2 loops tiled 32x2400 / 600x32; S1's column tiles and S0's rows interleaved: one parallel loop over 2 threads, 2 column tiles per thread, tiles of 32 rows inside, S0's rows dealt 16 at a time (L2 budget of one thread's share: 512 KiB); legality verified
// THREE: band of 2 loops tiled 32x2400 / 800x32; S1's column tiles and S0's rows interleaved: one parallel loop over 3 threads, tiles of 48 rows inside, S0's rows dealt 16 at a time
// AVX2: S1's column tiles and S0's rows interleaved: one parallel loop over 2 threads, 2 column tiles per thread, tiles of 16 rows inside, S0's rows dealt 8 at a time (L2 budget of one thread's share: 256 KiB)
// OFF-NOT: interleaved
//
// CHECK-DAG: #[[FIRST:map[0-9]*]] = affine_map<(d0) -> (d0 * 2)>
// CHECK-DAG: #[[LAST:map[0-9]*]] = affine_map<(d0) -> (d0 * 2 + 2)>
// CHECK-DAG: #[[LO:map[0-9]*]] = affine_map<(d0) -> (d0 * 600)>
// CHECK-DAG: #[[HI:map[0-9]*]] = affine_map<(d0) -> (d0 * 600 + 600)>
// CHECK-LABEL: func.func @mvt(
// CHECK: affine.parallel (%[[T:.*]]) = (0) to (2) {
// CHECK-NEXT: affine.for %[[R:.*]] = #{{.*}}(%[[T]]) to 8 {
// CHECK: affine.for %{{.*}} = 0 to 2400 step 8 iter_args(
// CHECK: affine.store %{{.*}}, %arg0[
// CHECK: affine.for %[[C:.*]] = #[[FIRST]](%[[T]]) to #[[LAST]](%[[T]]) {
// CHECK: affine.for %{{.*}} = #[[LO]](%[[C]]) to #[[HI]](%[[C]]) iter_args(
// CHECK: affine.store %{{.*}}, %arg1[
// CHECK-NOT: affine.parallel
// CHECK: return

func.func private @printI64(i64)
func.func private @printNewline()

func.func @mvt(%x1: memref<256xf64>, %x2: memref<2400xf64>, %y1: memref<2400xf64>, %y2: memref<256xf64>, %A: memref<256x2400xf64>) {
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 2400 {
      %a = affine.load %x1[%i] : memref<256xf64>
      %b = affine.load %A[%i, %j] : memref<256x2400xf64>
      %c = affine.load %y1[%j] : memref<2400xf64>
      %m = arith.mulf %b, %c : f64
      %n = arith.addf %a, %m : f64
      affine.store %n, %x1[%i] : memref<256xf64>
    }
  }
  affine.for %j = 0 to 2400 {
    affine.for %i = 0 to 256 {
      %a = affine.load %x2[%j] : memref<2400xf64>
      %b = affine.load %A[%i, %j] : memref<256x2400xf64>
      %c = affine.load %y2[%i] : memref<256xf64>
      %m = arith.mulf %b, %c : f64
      %n = arith.addf %a, %m : f64
      affine.store %n, %x2[%j] : memref<2400xf64>
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
  %c256 = arith.constant 256 : index
  %c2400 = arith.constant 2400 : index
  %cA = arith.constant 614400 : index
  %Af = memref.alloc() : memref<614400xf64>
  %x1 = memref.alloc() : memref<256xf64>
  %x2 = memref.alloc() : memref<2400xf64>
  %y1 = memref.alloc() : memref<2400xf64>
  %y2 = memref.alloc() : memref<256xf64>
  %Afd = memref.cast %Af : memref<614400xf64> to memref<?xf64>
  %x1d = memref.cast %x1 : memref<256xf64> to memref<?xf64>
  %x2d = memref.cast %x2 : memref<2400xf64> to memref<?xf64>
  %y1d = memref.cast %y1 : memref<2400xf64> to memref<?xf64>
  %y2d = memref.cast %y2 : memref<256xf64> to memref<?xf64>
  func.call @fill(%Afd, %cA, %c0) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%x1d, %c256, %c1) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%x2d, %c2400, %c2) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%y1d, %c2400, %c3) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%y2d, %c256, %c4) : (memref<?xf64>, index, index) -> ()
  %A = memref.expand_shape %Af [[0, 1]] output_shape [256, 2400] : memref<614400xf64> into memref<256x2400xf64>
  func.call @mvt(%x1, %x2, %y1, %y2, %A) : (memref<256xf64>, memref<2400xf64>, memref<2400xf64>, memref<256xf64>, memref<256x2400xf64>) -> ()
  func.call @sum(%x1d, %c256) : (memref<?xf64>, index) -> ()
  func.call @sum(%x2d, %c2400) : (memref<?xf64>, index) -> ()
  memref.dealloc %Af : memref<614400xf64>
  memref.dealloc %x1 : memref<256xf64>
  memref.dealloc %x2 : memref<2400xf64>
  memref.dealloc %y1 : memref<2400xf64>
  memref.dealloc %y2 : memref<256xf64>
  return
}
