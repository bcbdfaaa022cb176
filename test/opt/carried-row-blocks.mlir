// A matrix-vector product whose sums C front ends carry in iter_args
// (issue 70's example), bit for bit by default: the sums privatized per
// row in an expanded array, rows in parallel, 16 rows' sums in the lanes
// of two vectors (row blocks: the rows loaded as vectors and transposed).
// Two things kept it scalar and slow: tile fusion cut the fused tiles of
// the initialization, the sums and the copy to 8 rows for its L2 budget
// (`transform/tile_fusion.rs`, `shrunk`), below the blocks of 16 rows, so
// that no block was whole and every row's sum ran down the columns; and
// the lanes refused the expanded array even as accumulators, which the
// loop carries (`codegen/tree/lanes.rs`). At 4000 x 4000 (2 threads, Zen 5)
// the input took 9.0 ms, the scalar code 9.3, the lanes 1.8.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2' 2> %t.remarks > %t.opt.mlir
// RUN: %polyrs-runner --threads=2 %t.opt.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks
// RUN: FileCheck %s --input-file=%t.opt.mlir --check-prefix=IR
//
// SUMS-COUNT-1: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// CHECK: carried-row-blocks.mlir:37:3: remark: poly-opt: 3 statements, {{.*}}(1 parallel), 0 guards; temporary alloca expanded per iteration (privatized);{{.*}}rows' reductions along φ2 run 16 at a time, one per vector lane (2 vectors); 1 point loop unrolled and jammed by 16;{{.*}}tile loops of S0, S1, S2 fused (the same tiles, the same cells), in tiles of 16 (L2 budget of one tile: 256 KiB)
// IR-LABEL: func.func @gemv(
// IR: affine.parallel
// IR: affine.for {{.*}} step 8 iter_args({{.*}}) -> (vector<8xf64>, vector<8xf64>)
// IR-COUNT-16: affine.vector_load
// IR: vector.shuffle
// IR-LABEL: func.func @fill(

func.func private @printI64(i64)
func.func private @printNewline()

func.func @gemv(%A: memref<256x4096xf64>, %x: memref<4096xf64>, %y: memref<256xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to 256 {
    %s = affine.for %j = 0 to 4096 iter_args(%acc = %z) -> (f64) {
      %a = affine.load %A[%i, %j] : memref<256x4096xf64>
      %b = affine.load %x[%j] : memref<4096xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %acc, %m : f64
      affine.yield %n : f64
    }
    affine.store %s, %y[%i] : memref<256xf64>
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

// Prints the bits of the sum of y[i] * (1 + i mod 5).
func.func @sum(%y: memref<256xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %y[%i] : memref<256xf64>
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
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %na = arith.constant 1048576 : index
  %nx = arith.constant 4096 : index
  %A = memref.alloc() : memref<256x4096xf64>
  %x = memref.alloc() : memref<4096xf64>
  %y = memref.alloc() : memref<256xf64>
  %fa = memref.reinterpret_cast %A to offset: [0], sizes: [1048576], strides: [1] : memref<256x4096xf64> to memref<?xf64>
  %fx = memref.reinterpret_cast %x to offset: [0], sizes: [4096], strides: [1] : memref<4096xf64> to memref<?xf64>
  func.call @fill(%fa, %na, %c1) : (memref<?xf64>, index, index) -> ()
  func.call @fill(%fx, %nx, %c2) : (memref<?xf64>, index, index) -> ()
  func.call @gemv(%A, %x, %y) : (memref<256x4096xf64>, memref<4096xf64>, memref<256xf64>) -> ()
  func.call @sum(%y) : (memref<256xf64>) -> ()
  return
}
