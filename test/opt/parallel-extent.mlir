// The parallel loop goes where the threads get work (issue 69): a
// depthwise 3x3 convolution, NHWC, as upstream lowers linalg to affine
// loops. Its batch loop `n` comes first and is parallel, but its extent is
// 1: made the parallel loop (the first one the schedule allows, as before),
// it left both threads with one iteration between them and the nest ran
// sequentially ("0 parallel"). The parallel loop is now the first with at
// least one iteration (one tile) per thread: the rows `h` (16 of them, 4
// tiles of 4 with tile-sizes=4, every tile loop of the band kept for the
// test).
// The result must be identical, bit for bit, before and after.
//
// RUN: %polyrs-opt %s --convert-linalg-to-affine-loops -o %t.in.mlir
// RUN: %polyrs-runner --threads=2 %t.in.mlir > %t.before
// RUN: %polyrs-opt %t.in.mlir --poly-opt='profitability=false threads=2 tile-sizes=4 print-plan=true' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
// RUN: %polyrs-opt %t.in.mlir --poly-opt='profitability=false threads=1 tile-sizes=4 print-plan=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
//
// A batched matmul, 16 x (256x64 · 64x256): its batch loop has 16
// iterations, but in tiles of 32 (the default sizes) it is one tile; the
// parallel loop is the rows' tile loop (256 rows, in 2 tiles of 128 for
// the 2 threads), the first with a tile per thread.
// RUN: %polyrs-opt %inputs/batch-matmul-linalg.mlir --convert-linalg-to-affine-loops --poly-opt='threads=2 print-plan=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=BMM
// BMM: remark: poly-opt: 1 statement, 5 loops (1 parallel)
// BMM: t0: tile of φ0{{$}}
// BMM-NEXT: t1: tile of φ1 [parallel]
//
// The same pipeline in the stock mlir-opt with the plugin, from linalg:
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(convert-linalg-to-affine-loops,poly-opt{profitability=false threads=2 tile-sizes=4}))' %s 2> %t.plugin.remarks > %t.plugin.mlir
// RUN: %polyrs-runner --threads=2 %t.plugin.mlir > %t.plugin
// RUN: diff %t.before %t.plugin
// RUN: FileCheck %s --input-file=%t.plugin.remarks --check-prefix=REMARK-PLUGIN
// REMARK-PLUGIN: remark: poly-opt: 1 statement, {{[0-9]+}} loops (1 parallel)
//
// REMARK: remark: poly-opt: 1 statement, {{[0-9]+}} loops (1 parallel)
// REMARK: t0: tile of φ0{{$}}
// REMARK-NEXT: t1: tile of φ1 [parallel]
// REMARK-NEXT: t2: tile of φ2{{$}}
// REMARK-NEXT: t3: tile of φ3{{$}}
// REMARK-NEXT: t4: tile of φ4{{$}}
// REMARK-NEXT: t5: point φ0{{$}}
// IR: affine.parallel
//
// The filter loops are not skewed into the band: `kw` used to become
// `2*kh + kw`, permutable with `kh` so that a 3-wide loop could be tiled.
// The band is `n, h, w, c, kh` and `kw` follows it, unskewed. With
// znver4's default sizes (pinned: a Zen 5 host picks 8x8 blocks) the register tile's blocks of `w` x `c` run around `kh`
// and `kw`, their accumulators carried across `kw`.
// RUN: %polyrs-opt %t.in.mlir --poly-opt='profitability=false threads=2 print-plan=true cpu=znver4' 2> %t.default.remarks > %t.default.mlir
// RUN: %polyrs-runner --threads=2 %t.default.mlir > %t.default
// RUN: diff %t.before %t.default
// RUN: FileCheck %s --input-file=%t.default.remarks --check-prefix=TILE
// TILE: register tile 16x8 around the 1 loop after the band; band of 5 loops
// TILE: t7: register blocks (point loop 2 of the band)
// TILE-NEXT: t8: register blocks of the vector loop (point loop 3 of the band)
// TILE-NEXT: t9: point inside the register blocks (point loop 4 of the band)
// TILE-NEXT: t10: φ5, the loop inside the register tile
// TILE-NEXT: t11: unrolled register tile [unrolled]
// TILE-NEXT: t12: unrolled register tile (vector) [unrolled]
// TILE: S0[i0, i1, i2, i3, i4, i5] -> [e0, e1, e2, e3, e4, i0, i1, e5, e6, i4, i5, i2, i3]
//
// With one thread, one iteration is enough: the first parallel loop, `n`,
// as before.
// ONE: t0: tile of φ0 [parallel]
// ONE-NEXT: t1: tile of φ1{{$}}
// ONE-NEXT: t2: tile of φ2{{$}}
// ONE-NEXT: t3: tile of φ3{{$}}
// ONE-NEXT: t4: tile of φ4{{$}}
// ONE-NEXT: t5: point φ0{{$}}

func.func @dw(%I: memref<1x18x18x8xf32>, %F: memref<3x3x8xf32>, %O: memref<1x16x16x8xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%I, %F : memref<1x18x18x8xf32>, memref<3x3x8xf32>) outs(%O : memref<1x16x16x8xf32>)
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// Inputs (i·37 + 11) mod 97 / 97 over the cells in order; the output's
// checksum is the sum of its cells' bit patterns, each times (1 + k mod 7).
func.func @main() {
  %I = memref.alloc() : memref<1x18x18x8xf32>
  %F = memref.alloc() : memref<3x3x8xf32>
  %O = memref.alloc() : memref<1x16x16x8xf32>
  %c37 = arith.constant 37 : i64
  %c11 = arith.constant 11 : i64
  %c97 = arith.constant 97 : i64
  %f97 = arith.constant 97.0 : f32
  affine.for %h = 0 to 18 {
    affine.for %w = 0 to 18 {
      affine.for %c = 0 to 8 {
        %k = affine.apply affine_map<(a, b, c) -> ((a * 18 + b) * 8 + c)>(%h, %w, %c)
        %ki = arith.index_cast %k : index to i64
        %m = arith.muli %ki, %c37 : i64
        %a = arith.addi %m, %c11 : i64
        %r = arith.remui %a, %c97 : i64
        %f = arith.uitofp %r : i64 to f32
        %v = arith.divf %f, %f97 : f32
        affine.store %v, %I[0, %h, %w, %c] : memref<1x18x18x8xf32>
      }
    }
  }
  affine.for %h = 0 to 3 {
    affine.for %w = 0 to 3 {
      affine.for %c = 0 to 8 {
        %k = affine.apply affine_map<(a, b, c) -> ((a * 3 + b) * 8 + c + 5)>(%h, %w, %c)
        %ki = arith.index_cast %k : index to i64
        %m = arith.muli %ki, %c37 : i64
        %a = arith.addi %m, %c11 : i64
        %r = arith.remui %a, %c97 : i64
        %f = arith.uitofp %r : i64 to f32
        %v = arith.divf %f, %f97 : f32
        affine.store %v, %F[%h, %w, %c] : memref<3x3x8xf32>
      }
    }
  }
  %zero = arith.constant 0.0 : f32
  affine.for %h = 0 to 16 {
    affine.for %w = 0 to 16 {
      affine.for %c = 0 to 8 {
        affine.store %zero, %O[0, %h, %w, %c] : memref<1x16x16x8xf32>
      }
    }
  }
  call @dw(%I, %F, %O) : (memref<1x18x18x8xf32>, memref<3x3x8xf32>, memref<1x16x16x8xf32>) -> ()
  %s0 = arith.constant 0 : i64
  %sum = affine.for %h = 0 to 16 iter_args(%s1 = %s0) -> (i64) {
    %s2 = affine.for %w = 0 to 16 iter_args(%s3 = %s1) -> (i64) {
      %s4 = affine.for %c = 0 to 8 iter_args(%s5 = %s3) -> (i64) {
        %v = affine.load %O[0, %h, %w, %c] : memref<1x16x16x8xf32>
        %b = arith.bitcast %v : f32 to i32
        %b64 = arith.extui %b : i32 to i64
        %k = affine.apply affine_map<(a, b, c) -> (((a * 16 + b) * 8 + c) mod 7 + 1)>(%h, %w, %c)
        %ki = arith.index_cast %k : index to i64
        %p = arith.muli %b64, %ki : i64
        %s6 = arith.addi %s5, %p : i64
        affine.yield %s6 : i64
      }
      affine.yield %s4 : i64
    }
    affine.yield %s2 : i64
  }
  call @printI64(%sum) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}
