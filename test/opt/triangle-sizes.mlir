// Tile sizes of a triangle whose register blocks read their vector operand
// from rows of an array (syrk's C[i][j] += A[i][k] * A[j][k] for j <= i:
// A[j][k] along j, which the emitter packs once per tile): the loop inside
// the blocks takes the target's reduction tile (64 on AVX-512 with a
// 32 KiB L1, 128 on AVX2) and a tile takes 8 rows of blocks (64 rows of
// 8-row blocks on AVX-512, 32 of 4-row blocks on AVX2), which leaves at
// least 4 tiles per thread of the 512 rows; the blocks keep their rows
// (8, not contract=true's 12 on AVX-512). A triangle whose operand is
// contiguous along the vector loop (covariance's data[k][j]) keeps the
// default tiles. The results must be the input's, digit for digit. (The
// AVX-512 sizes with broadcasts=fast; znver4's own 16x8 blocks, where
// 512-bit broadcasts are slow, take r = 128 (8 columns), and 8 rows of
// 16-row blocks would leave 4 tiles of the 512 rows, fewer than 4 per
// thread: the rows keep the default tile, of two rows of blocks, too few
// to pack A[j][k] for.)
//
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 broadcasts=fast' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 contract=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FMA
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=32 broadcasts=fast' -o /dev/null 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZEN4
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 broadcasts=fast' | %polyrs-runner --threads=2 - > %t.avx512
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2' | %polyrs-runner --threads=2 - > %t.zen4
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 contract=true' | %polyrs-runner --threads=2 - > %t.fma
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2' | %polyrs-runner --threads=2 - > %t.avx2
// RUN: diff %t.before %t.avx512
// RUN: diff %t.before %t.zen4
// RUN: diff %t.before %t.fma
// RUN: diff %t.before %t.avx2
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}

// AVX512: triangle-sizes.mlir:[[@LINE+12]]:3: remark: poly-opt: {{.*}}register tile 8x16; band of 3 loops tiled 64x256x64; {{.*}}row-invariant operands packed once per tile
// AVX512: triangle-sizes.mlir:[[@LINE+28]]:3: remark: poly-opt: {{.*}}register tile 8x16; band of 3 loops tiled 32x256x32;
// FMA:    triangle-sizes.mlir:[[@LINE+10]]:3: remark: poly-opt: {{.*}}register tile 8x16; band of 3 loops tiled 64x256x64; {{.*}}row-invariant operands packed once per tile
// AVX2:   triangle-sizes.mlir:[[@LINE+9]]:3: remark: poly-opt: {{.*}}register tile 4x8; band of 3 loops tiled 32x128x128; {{.*}}row-invariant operands packed once per tile
// 32 threads: 512 rows in tiles of 64 would leave 8 tiles, fewer than 4
// per thread: the rows do not take them, the loop inside the blocks takes
// the target's. The default tile of 32 rows leaves 16 tiles for the 32
// threads: the rows' tiles are cut to 16 (two blocks of 8 rows), one per
// thread (the parallel-tiles stage).
// MANY:   triangle-sizes.mlir:[[@LINE+3]]:3: remark: poly-opt: {{.*}}tiles of φ0 cut to 16 for 32 threads; register tile 8x16; band of 3 loops tiled 16x256x64;
// ZEN4:   triangle-sizes.mlir:[[@LINE+2]]:3: remark: poly-opt: {{.*}}register tile 16x8; band of 3 loops tiled 32x256x128; tiles of S0 dealt to 2 threads cyclically
func.func @syrk(%A: memref<512x64xf64>, %C: memref<512x512xf64>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<512x64xf64>
        %b = affine.load %A[%j, %k] : memref<512x64xf64>
        %p = arith.mulf %a, %b : f64
        %c = affine.load %C[%i, %j] : memref<512x512xf64>
        %r = arith.addf %c, %p : f64
        affine.store %r, %C[%i, %j] : memref<512x512xf64>
      }
    }
  }
  return
}

// Covariance's shape: data[k][j] is contiguous along j.
func.func @cov(%D: memref<64x512xf64>, %C: memref<512x512xf64>) {
  affine.for %i = 0 to 512 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 512 {
      affine.for %k = 0 to 64 {
        %a = affine.load %D[%k, %i] : memref<64x512xf64>
        %b = affine.load %D[%k, %j] : memref<64x512xf64>
        %p = arith.mulf %a, %b : f64
        %c = affine.load %C[%i, %j] : memref<512x512xf64>
        %r = arith.addf %c, %p : f64
        affine.store %r, %C[%i, %j] : memref<512x512xf64>
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @fill(%A: memref<?x?xf64>, %seed: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %A, %c0 : memref<?x?xf64>
  %m = memref.dim %A, %c1 : memref<?x?xf64>
  %c7 = arith.constant 8.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %v = affine.apply affine_map<(d0, d1)[s0] -> ((d0 * 7 + d1 * 3 + s0) mod 11)>(%i, %j)[%seed]
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Prints the bits of the sum of C[i][j] * (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<512x512xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c512 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c512 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<512x512xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %pr = arith.mulf %v, %wf : f64
      %n2 = arith.addf %a2, %pr : f64
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
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %A = memref.alloc() : memref<512x64xf64>
  %D = memref.alloc() : memref<64x512xf64>
  %C = memref.alloc() : memref<512x512xf64>
  %Ad = memref.cast %A : memref<512x64xf64> to memref<?x?xf64>
  %Dd = memref.cast %D : memref<64x512xf64> to memref<?x?xf64>
  %Cd = memref.cast %C : memref<512x512xf64> to memref<?x?xf64>
  func.call @fill(%Ad, %c1) : (memref<?x?xf64>, index) -> ()
  func.call @fill(%Dd, %c2) : (memref<?x?xf64>, index) -> ()
  func.call @fill(%Cd, %c3) : (memref<?x?xf64>, index) -> ()
  func.call @syrk(%A, %C) : (memref<512x64xf64>, memref<512x512xf64>) -> ()
  func.call @sum(%C) : (memref<512x512xf64>) -> ()
  func.call @cov(%D, %C) : (memref<64x512xf64>, memref<512x512xf64>) -> ()
  func.call @sum(%C) : (memref<512x512xf64>) -> ()
  memref.dealloc %A : memref<512x64xf64>
  memref.dealloc %D : memref<64x512xf64>
  memref.dealloc %C : memref<512x512xf64>
  return
}
