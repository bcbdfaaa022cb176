// Rows' chains taken several rows at a time (transform/row_blocks.rs,
// `chain_rows`): a reduction along a row that may run in any order (a
// maximum always; a sum under reassociate=true) runs in vector lanes along
// its own loop, one row's chain per loop; with cpu=znver4 the rows' point
// loop is unrolled and jammed by 8 (a vector of doubles' lanes), so that
// each step of the loop advances 8 rows' chains and reads 8 rows' streams.
// The jammed copies of a reassociated sum keep their fastmath<reassoc>
// (each is the chain LLVM vectorizes). Not for a row that runs two chains
// already (@pair: two sums per row). The values are small multiples of
// 1/4, so every order of a row's terms gives the same sums: the results
// must equal the untransformed program's bit for bit.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2' 2> %t.remarks > %t.default.mlir
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 reassociate=true' 2> %t.remarks-r > %t.reassoc.mlir
// RUN: %polyrs-opt %s --poly-opt='cpu=haswell threads=2' 2> %t.remarks-hsw | %polyrs-runner --threads=2 - > %t.hsw
// RUN: %polyrs-runner --threads=2 %t.default.mlir > %t.default
// RUN: %polyrs-runner --threads=2 %t.reassoc.mlir > %t.reassoc
// RUN: diff %t.before %t.default
// RUN: diff %t.before %t.reassoc
// RUN: diff %t.before %t.hsw
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=DEFAULT
// RUN: FileCheck %s --input-file=%t.remarks-r --check-prefix=REASSOC
// RUN: FileCheck %s --input-file=%t.remarks-hsw --check-prefix=HSW
// RUN: FileCheck %s --input-file=%t.reassoc.mlir --check-prefix=IR
//
// SUMS-COUNT-3: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// DEFAULT: row-chains.mlir:51:3: remark: poly-opt: {{.*}}rows' chains along φ2 (run in vector lanes along it) taken 8 rows at a time; 1 point loop unrolled and jammed by 8
// Sums keep their order by default: rows in lanes (row blocks), no chains.
// DEFAULT-NOT: rows' chains
// REASSOC: row-chains.mlir:51:3: remark: poly-opt: {{.*}}rows' chains along φ2 (run in vector lanes along it) taken 8 rows at a time
// REASSOC: row-chains.mlir:65:3: remark: poly-opt: {{.*}}rows' chains along φ2 (run in vector lanes along it) taken 8 rows at a time{{.*}}reduction S1 (addf along i1) reassociated
// REASSOC-NOT: rows' chains
// 256-bit vectors: 4 doubles' lanes, 4 rows at a time.
// HSW: row-chains.mlir:51:3: remark: poly-opt: {{.*}}rows' chains along φ2 (run in vector lanes along it) taken 4 rows at a time
//
// IR-LABEL: func.func @rowsum(
// IR: affine.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// IR-COUNT-8: arith.addf {{.*}} fastmath<reassoc> : f32
// IR: affine.yield

func.func private @printI64(i64)
func.func private @printNewline()

// Each row's maximum.
func.func @rowmax(%A: memref<256x4096xf32>, %y: memref<256xf32>) {
  %lo = arith.constant 0xFF800000 : f32
  affine.for %i = 0 to 256 {
    %s = affine.for %j = 0 to 4096 iter_args(%acc = %lo) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<256x4096xf32>
      %m = arith.maximumf %acc, %a : f32
      affine.yield %m : f32
    }
    affine.store %s, %y[%i] : memref<256xf32>
  }
  return
}

// Each row's sum.
func.func @rowsum(%A: memref<256x4096xf32>, %y: memref<256xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 256 {
    %s = affine.for %j = 0 to 4096 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<256x4096xf32>
      %n = arith.addf %acc, %a : f32
      affine.yield %n : f32
    }
    affine.store %s, %y[%i] : memref<256xf32>
  }
  return
}

// Each row's sum of A and of B: two chains per row.
func.func @pair(%A: memref<256x4096xf32>, %B: memref<256x4096xf32>, %y: memref<256xf32>, %w: memref<256xf32>) {
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 4096 {
      %a = affine.load %A[%i, %j] : memref<256x4096xf32>
      %s = affine.load %y[%i] : memref<256xf32>
      %n = arith.addf %s, %a : f32
      affine.store %n, %y[%i] : memref<256xf32>
      %b = affine.load %B[%i, %j] : memref<256x4096xf32>
      %t = affine.load %w[%i] : memref<256xf32>
      %u = arith.addf %t, %b : f32
      affine.store %u, %w[%i] : memref<256xf32>
    }
  }
  return
}

func.func @fill(%A: memref<?xf32>, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = arith.constant 0.25 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = affine.apply affine_map<(d0)[s0] -> ((d0 * 7 + s0 * 3) mod 11)>(%i)[%k]
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %x = arith.mulf %vf, %q : f32
    memref.store %x, %A[%i] : memref<?xf32>
  }
  return
}

// Prints the bits of the sum of y[i] * (1 + i mod 5) (exact: small
// multiples of 1/4).
func.func @sum(%y: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %y[%i] : memref<256xf32>
    %vd = arith.extf %v : f32 to f64
    %m = affine.apply affine_map<(d0) -> (d0 mod 5 + 1)>(%i)
    %mi = arith.index_cast %m : index to i64
    %mf = arith.sitofp %mi : i64 to f64
    %p = arith.mulf %vd, %mf : f64
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
  %n = arith.constant 1048576 : index
  %A = memref.alloc() : memref<256x4096xf32>
  %B = memref.alloc() : memref<256x4096xf32>
  %y = memref.alloc() : memref<256xf32>
  %w = memref.alloc() : memref<256xf32>
  %fa = memref.reinterpret_cast %A to offset: [0], sizes: [1048576], strides: [1] : memref<256x4096xf32> to memref<?xf32>
  %fb = memref.reinterpret_cast %B to offset: [0], sizes: [1048576], strides: [1] : memref<256x4096xf32> to memref<?xf32>
  %fy = memref.reinterpret_cast %y to offset: [0], sizes: [256], strides: [1] : memref<256xf32> to memref<?xf32>
  %fw = memref.reinterpret_cast %w to offset: [0], sizes: [256], strides: [1] : memref<256xf32> to memref<?xf32>
  %c256 = arith.constant 256 : index
  %c0 = arith.constant 0 : index
  func.call @fill(%fa, %n, %c1) : (memref<?xf32>, index, index) -> ()
  func.call @fill(%fb, %n, %c2) : (memref<?xf32>, index, index) -> ()
  func.call @rowmax(%A, %y) : (memref<256x4096xf32>, memref<256xf32>) -> ()
  func.call @sum(%y) : (memref<256xf32>) -> ()
  func.call @rowsum(%A, %y) : (memref<256x4096xf32>, memref<256xf32>) -> ()
  func.call @sum(%y) : (memref<256xf32>) -> ()
  func.call @fill(%fy, %c256, %c0) : (memref<?xf32>, index, index) -> ()
  func.call @fill(%fw, %c256, %c2) : (memref<?xf32>, index, index) -> ()
  func.call @pair(%A, %B, %y, %w) : (memref<256x4096xf32>, memref<256x4096xf32>, memref<256xf32>, memref<256xf32>) -> ()
  func.call @sum(%w) : (memref<256xf32>) -> ()
  return
}
