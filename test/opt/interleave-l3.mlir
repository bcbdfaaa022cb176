// Interleaved tiles whose rows come back from the L3 (transform/
// interleave.rs): mvt's two nests on a 192x6000 matrix (9.2 MB). With
// cpu=znver4 (1 MB L2, 4 MB of L3 per core), the column stream's 6000
// columns take 6 tiles of 1000, 3 per thread; one thread's cells of a
// tile of 32 rows (its 3000 columns of the 32 rows and its 16 rows of
// 6000 cells: 1.5 MB) exceed L2, even at the row blocks' 16 rows, and the
// matrix exceeds the whole L3 of the 2 threads (8 MB), so that two passes
// would read it from memory: the rows' nest reads the tile's rows back
// from the L3 (its share per thread, 2 MB, holds the 1.5 MB). With
// cpu=skylake-avx512 (256-bit vectors: blocks of 8 rows) 8 rows fit L2.
// The same nests on 96 rows (4.6 MB, within the L3): two passes, each from
// the L3, and no interleaving. Each x1[i] and x2[j] takes its terms in
// the input's order: the results must equal the untransformed program's
// digit for digit.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.l3
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 threads=2' 2> %t.remarks-skx | %polyrs-runner --threads=2 - > %t.skx
// RUN: sed 's/192/96/g; s/1152000/576000/g' %s > %t.small.mlir
// RUN: %polyrs-runner --threads=2 %t.small.mlir > %t.small.before
// RUN: %polyrs-opt %t.small.mlir --poly-opt='cpu=znver4 threads=2' 2> %t.remarks-small | %polyrs-runner --threads=2 - > %t.small.after
// RUN: diff %t.before %t.l3
// RUN: diff %t.before %t.skx
// RUN: diff %t.small.before %t.small.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks-skx --check-prefix=SKX
// RUN: FileCheck %s --input-file=%t.remarks-small --check-prefix=SMALL
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: 2 statements, {{.*}}; S1's column tiles and S0's rows interleaved: one parallel loop over 2 threads, 3 column tiles per thread, tiles of 32 rows inside, S0's rows dealt 16 at a time (L2 budget of one thread's share: 512 KiB exceeded, its rows read back from the L3, budget 2048 KiB); legality verified
// SKX: S1's column tiles and S0's rows interleaved: one parallel loop over 2 threads, 3 column tiles per thread, tiles of 16 rows inside, S0's rows dealt 8 at a time (L2 budget of one thread's share: 512 KiB);
// SMALL: remark: poly-opt: 2 statements,
// SMALL-NOT: interleaved

func.func private @printI64(i64)
func.func private @printNewline()

func.func @mvt(%x1: memref<192xf64>, %x2: memref<6000xf64>, %y1: memref<6000xf64>, %y2: memref<192xf64>, %A: memref<192x6000xf64>) {
  affine.for %i = 0 to 192 {
    affine.for %j = 0 to 6000 {
      %a = affine.load %x1[%i] : memref<192xf64>
      %b = affine.load %A[%i, %j] : memref<192x6000xf64>
      %c = affine.load %y1[%j] : memref<6000xf64>
      %m = arith.mulf %b, %c : f64
      %n = arith.addf %a, %m : f64
      affine.store %n, %x1[%i] : memref<192xf64>
    }
  }
  affine.for %j = 0 to 6000 {
    affine.for %i = 0 to 192 {
      %a = affine.load %x2[%j] : memref<6000xf64>
      %b = affine.load %A[%i, %j] : memref<192x6000xf64>
      %c = affine.load %y2[%i] : memref<192xf64>
      %m = arith.mulf %b, %c : f64
      %n = arith.addf %a, %m : f64
      affine.store %n, %x2[%j] : memref<6000xf64>
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
  %c192 = arith.constant 192 : index
  %c6000 = arith.constant 6000 : index
  %cA = arith.constant 1152000 : index
  %Af = memref.alloc() : memref<1152000xf64>
  %x1 = memref.alloc() : memref<192xf64>
  %x2 = memref.alloc() : memref<6000xf64>
  %y1 = memref.alloc() : memref<6000xf64>
  %y2 = memref.alloc() : memref<192xf64>
  %Afd = memref.cast %Af : memref<1152000xf64> to memref<?xf64>
  %x1d = memref.cast %x1 : memref<192xf64> to memref<?xf64>
  %x2d = memref.cast %x2 : memref<6000xf64> to memref<?xf64>
  %y1d = memref.cast %y1 : memref<6000xf64> to memref<?xf64>
  %y2d = memref.cast %y2 : memref<192xf64> to memref<?xf64>
  func.call @fill(%Afd, %cA, %c0) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%x1d, %c192, %c1) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%x2d, %c6000, %c2) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%y1d, %c6000, %c3) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%y2d, %c192, %c4) : (memref<?xf64>, index, index) -> ()
  %A = memref.expand_shape %Af [[0, 1]] output_shape [192, 6000] : memref<1152000xf64> into memref<192x6000xf64>
  func.call @mvt(%x1, %x2, %y1, %y2, %A) : (memref<192xf64>, memref<6000xf64>, memref<6000xf64>, memref<192xf64>, memref<192x6000xf64>) -> ()
  func.call @sum(%x1d, %c192) : (memref<?xf64>, index) -> ()
  func.call @sum(%x2d, %c6000) : (memref<?xf64>, index) -> ()
  memref.dealloc %Af : memref<1152000xf64>
  memref.dealloc %x1 : memref<192xf64>
  memref.dealloc %x2 : memref<6000xf64>
  memref.dealloc %y1 : memref<6000xf64>
  memref.dealloc %y2 : memref<192xf64>
  return
}
