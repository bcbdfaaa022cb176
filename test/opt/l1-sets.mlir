// Register blocks whose rows read an operand at addresses that crowd one
// set of the L1 data cache (rows a multiple of 4 KiB apart: 32 KiB, 8
// ways on znver4): every step of the loop inside the blocks reads one
// line of each row, and more rows than the cache's ways in one set evict
// one another. With the blocks' reductions in their band, the rows' values
// are copied side by side into the buffer of block-invariant operands (as
// gemm's `alpha * A[i][k]` is); around loops after the band, where no
// buffer holds them, the blocks take no more rows than the ways (8x8
// instead of 16x8). Rows 4 KiB + 64 bytes apart fall into different sets:
// the blocks stay as they were. The results must be identical, digit for
// digit (2 threads), to the input's.
//
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' 2>&1 >/dev/null | FileCheck %s
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS-COUNT-4: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
// With explicit block sizes, the blocks are taken as given:
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false register-tile-sizes=16,8' 2>&1 >/dev/null | FileCheck %s --check-prefix=GIVEN
//
// CHECK: remark: poly-opt: {{.*}}register tile 16x8; {{.*}}block-invariant operands computed once per block row (1 loop)
// CHECK: remark: poly-opt: {{.*}}register tile 16x8; band of 3 loops tiled {{[0-9x]+}}; legality verified
// CHECK: remark: poly-opt: {{.*}}register tile 8x8 around the 1 loop after the band
// CHECK: remark: poly-opt: {{.*}}register tile 16x8 around the 1 loop after the band
// GIVEN-COUNT-2: register tile 16x8 around the 1 loop after the band

func.func @mm(%A: memref<32x512xf64>, %B: memref<512x32xf64>, %C: memref<32x32xf64>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      affine.for %k = 0 to 512 {
        %0 = affine.load %A[%i, %k] : memref<32x512xf64>
        %1 = affine.load %B[%k, %j] : memref<512x32xf64>
        %2 = affine.load %C[%i, %j] : memref<32x32xf64>
        %3 = arith.mulf %0, %1 : f64
        %4 = arith.addf %2, %3 : f64
        affine.store %4, %C[%i, %j] : memref<32x32xf64>
      }
    }
  }
  return
}
func.func @mm2(%A: memref<32x520xf64>, %B: memref<520x32xf64>, %C: memref<32x32xf64>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      affine.for %k = 0 to 520 {
        %0 = affine.load %A[%i, %k] : memref<32x520xf64>
        %1 = affine.load %B[%k, %j] : memref<520x32xf64>
        %2 = affine.load %C[%i, %j] : memref<32x32xf64>
        %3 = arith.mulf %0, %1 : f64
        %4 = arith.addf %2, %3 : f64
        affine.store %4, %C[%i, %j] : memref<32x32xf64>
      }
    }
  }
  return
}
func.func @tail(%A: memref<32x16x32xf64>, %B: memref<32x16x32xf64>, %C: memref<32x32xf64>) {
  affine.for %a = 0 to 32 {
    affine.for %b = 0 to 32 {
      affine.for %c = 0 to 16 {
        affine.for %d = 0 to 32 {
          %0 = affine.load %A[%a, %c, %d] : memref<32x16x32xf64>
          %1 = affine.load %B[%d, %c, %b] : memref<32x16x32xf64>
          %2 = affine.load %C[%a, %b] : memref<32x32xf64>
          %3 = arith.mulf %0, %1 : f64
          %4 = arith.addf %2, %3 : f64
          affine.store %4, %C[%a, %b] : memref<32x32xf64>
        }
      }
    }
  }
  return
}
func.func @tail2(%A: memref<32x16x33xf64>, %B: memref<32x16x32xf64>, %C: memref<32x32xf64>) {
  affine.for %a = 0 to 32 {
    affine.for %b = 0 to 32 {
      affine.for %c = 0 to 16 {
        affine.for %d = 0 to 32 {
          %0 = affine.load %A[%a, %c, %d] : memref<32x16x33xf64>
          %1 = affine.load %B[%d, %c, %b] : memref<32x16x32xf64>
          %2 = affine.load %C[%a, %b] : memref<32x32xf64>
          %3 = arith.mulf %0, %1 : f64
          %4 = arith.addf %2, %3 : f64
          affine.store %4, %C[%a, %b] : memref<32x32xf64>
        }
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// Fills a memref of any shape (through its flat view) with
// ((k * 7 + seed) mod 11) / 7 at flat position k.
func.func @fill(%A: memref<?xf64>, %n: index, %seed: index) {
  %c7 = arith.constant 7.0 : f64
  affine.for %k = 0 to %n {
    %v = affine.apply affine_map<(d0)[s0] -> ((d0 * 7 + s0) mod 11)>(%k)[%seed]
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f64
    %w = arith.divf %vf, %c7 : f64
    memref.store %w, %A[%k] : memref<?xf64>
  }
  return
}

// Prints the bits of Σ C[i][j] · (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<32x32xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c32 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<32x32xf64>
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

// A flat buffer of n doubles, filled, viewed as `memref<?xf64>`.
func.func @buffer(%n: index, %seed: index) -> memref<?xf64> {
  %m = memref.alloc(%n) : memref<?xf64>
  func.call @fill(%m, %n, %seed) : (memref<?xf64>, index, index) -> ()
  return %m : memref<?xf64>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %n0 = arith.constant 16384 : index
  %n1 = arith.constant 16640 : index
  %n2 = arith.constant 16896 : index
  %nc = arith.constant 1024 : index
  %a0 = func.call @buffer(%n0, %c1) : (index, index) -> memref<?xf64>
  %b0 = func.call @buffer(%n0, %c2) : (index, index) -> memref<?xf64>
  %a1 = func.call @buffer(%n1, %c1) : (index, index) -> memref<?xf64>
  %b1 = func.call @buffer(%n1, %c2) : (index, index) -> memref<?xf64>
  %a2 = func.call @buffer(%n2, %c1) : (index, index) -> memref<?xf64>
  %cf = func.call @buffer(%nc, %c5) : (index, index) -> memref<?xf64>
  %C = memref.reinterpret_cast %cf to offset: [0], sizes: [32, 32], strides: [32, 1] : memref<?xf64> to memref<32x32xf64>
  %A0 = memref.reinterpret_cast %a0 to offset: [0], sizes: [32, 512], strides: [512, 1] : memref<?xf64> to memref<32x512xf64>
  %B0 = memref.reinterpret_cast %b0 to offset: [0], sizes: [512, 32], strides: [32, 1] : memref<?xf64> to memref<512x32xf64>
  func.call @mm(%A0, %B0, %C) : (memref<32x512xf64>, memref<512x32xf64>, memref<32x32xf64>) -> ()
  func.call @sum(%C) : (memref<32x32xf64>) -> ()
  %A1 = memref.reinterpret_cast %a1 to offset: [0], sizes: [32, 520], strides: [520, 1] : memref<?xf64> to memref<32x520xf64>
  %B1 = memref.reinterpret_cast %b1 to offset: [0], sizes: [520, 32], strides: [32, 1] : memref<?xf64> to memref<520x32xf64>
  func.call @mm2(%A1, %B1, %C) : (memref<32x520xf64>, memref<520x32xf64>, memref<32x32xf64>) -> ()
  func.call @sum(%C) : (memref<32x32xf64>) -> ()
  %A3 = memref.reinterpret_cast %a0 to offset: [0], sizes: [32, 16, 32], strides: [512, 32, 1] : memref<?xf64> to memref<32x16x32xf64>
  %B3 = memref.reinterpret_cast %b0 to offset: [0], sizes: [32, 16, 32], strides: [512, 32, 1] : memref<?xf64> to memref<32x16x32xf64>
  func.call @tail(%A3, %B3, %C) : (memref<32x16x32xf64>, memref<32x16x32xf64>, memref<32x32xf64>) -> ()
  func.call @sum(%C) : (memref<32x32xf64>) -> ()
  %A4 = memref.reinterpret_cast %a2 to offset: [0], sizes: [32, 16, 33], strides: [528, 33, 1] : memref<?xf64> to memref<32x16x33xf64>
  func.call @tail2(%A4, %B3, %C) : (memref<32x16x33xf64>, memref<32x16x32xf64>, memref<32x32xf64>) -> ()
  func.call @sum(%C) : (memref<32x32xf64>) -> ()
  memref.dealloc %a0 : memref<?xf64>
  memref.dealloc %b0 : memref<?xf64>
  memref.dealloc %a1 : memref<?xf64>
  memref.dealloc %b1 : memref<?xf64>
  memref.dealloc %a2 : memref<?xf64>
  memref.dealloc %cf : memref<?xf64>
  return
}
