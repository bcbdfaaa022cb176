// The sizes come from the target (src/target/cpu.rs): register blocks from
// the vector registers and lanes (half of the registers hold accumulators,
// blocks two vectors wide where rectangular, one where 512-bit broadcasts
// are slow), the tile of the loop inside
// the blocks from L1 (a quarter of it for the block's slice of B, a power of
// two), the vector loop's tiles from L2 (half of it for the panel of B), one
// tile of the parallel block loop per thread. The remark names the target.
// The expected sizes below are worked out by hand from that model for
// gemm 512x512x512 on 2 threads.
//
// AVX-512 (32 x 8 doubles, 32 KiB L1d, 1 MiB L2) where broadcasts to
// 512-bit registers are slow (znver4): 16x8 blocks (16 accumulators, one
// vector per row, each row's broadcast value read by its multiply); r = 8
// KiB / (8 x 8 B) = 128; the panel 512 KiB / (128 x 8 B) = 512 >= 512: j
// whole; i: 512 / 2 threads = 256.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512
// AVX512: remark: poly-opt: 1 statement, {{.*}}register tile 16x8; band of 3 loops tiled 256x512x128; {{.*}}legality verified; target znver4 (512-bit vectors, 32 registers, FMA, slow gathers, slow 512-bit broadcasts, L1d 32 KiB, L2 1024 KiB, 2 cores)
//
// Where they are fast (broadcasts=fast, as on the Intel CPUs): 8x16 blocks
// (16 accumulators, two vectors per row); r = 8 KiB / (16 x 8 B) = 64; the
// panel 512 KiB / (64 x 8 B) = 1024 >= 512: j whole.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 broadcasts=fast profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BFAST
// BFAST: remark: poly-opt: 1 statement, {{.*}}register tile 8x16; band of 3 loops tiled 256x512x64; {{.*}}legality verified; target znver4 (512-bit vectors, 32 registers, FMA, slow gathers, L1d 32 KiB, L2 1024 KiB, 2 cores)
// RUN: not %polyrs-opt %s --poly-opt='broadcasts=often' 2>&1 | FileCheck %s --check-prefix=BADB
// BADB: error: poly-opt: invalid value 'often' for option 'broadcasts': expected cpu, slow or fast
//
// AVX2 (16 x 4 doubles, Zen 3: 32 KiB L1d, 512 KiB L2): 4x8 blocks (8
// accumulators, 2 streamed vectors, a broadcast, 4 products: 15 of 16
// registers); r = 8 KiB / (8 x 8 B) = 128; the panel 256 KiB / (128 x 8 B)
// = 256: j in 2 tiles of 256.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// AVX2: remark: poly-opt: 1 statement, {{.*}}register tile 4x8; band of 3 loops tiled 256x256x128; {{.*}}legality verified; target znver3 (256-bit vectors, 16 registers, FMA, L1d 32 KiB, L2 512 KiB, 2 cores)
//
// With contract=true, no product waits for its add: three quarters of the
// registers hold accumulators. On AVX2, 6x8 blocks (12 accumulators, 2
// streamed vectors, a broadcast: 15 of 16); r and the panel as above; i:
// 512 / 6 = 85.3 blocks, 43 per thread = 258 rows. On AVX-512, 12x16 (24 of
// 32 zmm, two vectors per row whatever the broadcasts cost: the fused
// multiply-adds leave the add pipes free); r = 64 as with broadcasts=fast;
// i: 43 blocks, 22 per thread = 264 rows. Without FMA (x86-64)
// the products keep their registers: 4x4 as below.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false contract=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FMA2
// FMA2: remark: poly-opt: 1 statement, {{.*}}register tile 6x8; band of 3 loops tiled 258x256x128; {{.*}}target znver3
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false contract=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FMA512
// FMA512: remark: poly-opt: 1 statement, {{.*}}register tile 12x16; band of 3 loops tiled 264x512x64; {{.*}}target znver4
// RUN: %polyrs-opt %s --poly-opt='cpu=x86-64 threads=2 profitability=false contract=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FMASSE
// FMASSE: remark: poly-opt: 1 statement, {{.*}}register tile 4x4; band of 3 loops tiled 256x64x256; {{.*}}target x86-64
//
// SSE2 (16 x 2 doubles, no FMA, 32 KiB L1d, 256 KiB L2): 4x4 blocks; r = 8
// KiB / 32 B = 256; the panel 128 KiB / (256 x 8 B) = 64: j in 8 tiles.
// RUN: %polyrs-opt %s --poly-opt='cpu=x86-64 threads=2 profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SSE
// SSE: remark: poly-opt: 1 statement, {{.*}}register tile 4x4; band of 3 loops tiled 256x64x256; {{.*}}legality verified; target x86-64 (128-bit vectors, 16 registers, L1d 32 KiB, L2 256 KiB, 2 cores)
//
// Fields override the preset's: 16 registers on an AVX-512 CPU give 8
// accumulators, 4x16 blocks with fast broadcasts; a 64 KiB L1 doubles r
// (128) and halves the panel (512); 4 threads give i tiles of 128;
// gathers=fast takes "slow gathers" away, broadcasts=fast "slow 512-bit
// broadcasts". With slow broadcasts the same fields give 8x8 blocks, r =
// 16 KiB / (8 x 8 B) = 256 and a panel of 256.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 vector-registers=16 l1-cache=64 threads=4 gathers=fast broadcasts=fast profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVER
// OVER: remark: poly-opt: 1 statement, {{.*}}register tile 4x16; band of 3 loops tiled 128x512x128; {{.*}}legality verified; target znver4 (512-bit vectors, 16 registers, FMA, L1d 64 KiB, L2 1024 KiB, 4 cores)
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 vector-registers=16 l1-cache=64 threads=4 gathers=fast profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERSLOW
// OVERSLOW: remark: poly-opt: 1 statement, {{.*}}register tile 8x8; band of 3 loops tiled 128x256x256; {{.*}}legality verified; target znver4 (512-bit vectors, 16 registers, FMA, slow 512-bit broadcasts, L1d 64 KiB, L2 1024 KiB, 4 cores)
//
// The host by default, with its cores.
// RUN: %polyrs-opt %s --poly-opt='profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: remark: poly-opt: 1 statement, {{.*}}legality verified; {{(register tiles in 512-bit vectors \(prefer-vector-width=512 on the function\); )?}}target {{[a-z0-9-]+}} ({{(128|256|512)}}-bit vectors, {{(16|32)}} registers, {{.*}} {{[0-9]+}} core
//
// Code for a named CPU: polyrs-translate --cpu (AVX-512 registers only for
// the AVX-512 CPU).
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' | %polyrs-translate --cpu=znver4 --emit=asm - | FileCheck %s --check-prefix=ASM512
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' | %polyrs-translate --cpu=znver3 --emit=asm - | FileCheck %s --check-prefix=ASM256
// ASM512: zmm
// ASM256-NOT: zmm
// ASM256: ymm
// RUN: not %polyrs-translate --cpu=pentium-9 %s 2>&1 | FileCheck %s --check-prefix=BADCPU
// BADCPU: unknown CPU 'pentium-9' (known: host, x86-64, haswell, znver3, skylake-avx512, icelake-server, sapphirerapids, znver4)
func.func @gemm(%A: memref<512x512xf64>, %B: memref<512x512xf64>, %C: memref<512x512xf64>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      affine.for %k = 0 to 512 {
        %a = affine.load %A[%i, %k] : memref<512x512xf64>
        %b = affine.load %B[%k, %j] : memref<512x512xf64>
        %c = affine.load %C[%i, %j] : memref<512x512xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<512x512xf64>
      }
    }
  }
  return
}
