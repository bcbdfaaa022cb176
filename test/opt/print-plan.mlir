// print-plan prints each rewritten SCoP's plan and loop tree (stage-level
// output, for tests and bug reports). Worked out by hand for a 1024x1024
// update whose inner loop has the stride-1 accesses: one band of both loops
// (both parallel), tiled 32 x the target's vector tile (32 vectors of
// doubles: 8 lanes x 32 = 256 with AVX-512, 4 x 32 = 128 with AVX2, 2 x 32
// = 64 with SSE2); the tile loop of i is the parallel one. Each tile
// coordinate e is defined by T*e <= i <= T*e + T - 1; the tree runs 1024/32
// = 32 row tiles and 1024/T column tiles.
//
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false print-plan=true' -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false print-plan=true' -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: %polyrs-opt %s --poly-opt='cpu=x86-64 threads=2 profitability=false print-plan=true' -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,SSE
//
// Without print-plan, no plan.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: poly-opt plan
//
// AVX512: band of 2 loops tiled 32x256
// AVX2: band of 2 loops tiled 32x128
// SSE: band of 2 loops tiled 32x64
// CHECK: remark: poly-opt plan:
// CHECK-NEXT: t0: tile of φ0 [parallel]
// CHECK-NEXT: t1: tile of φ1
// CHECK-NEXT: t2: point φ0
// CHECK-NEXT: t3: point φ1
// AVX512-NEXT: S0[i0, i1] -> [e0, e1, i0, i1] : i0 - 32e0 >= 0 and -i0 + 32e0 + 31 >= 0 and i1 - 256e1 >= 0 and -i1 + 256e1 + 255 >= 0
// AVX2-NEXT: S0[i0, i1] -> [e0, e1, i0, i1] : i0 - 32e0 >= 0 and -i0 + 32e0 + 31 >= 0 and i1 - 128e1 >= 0 and -i1 + 128e1 + 127 >= 0
// SSE-NEXT: S0[i0, i1] -> [e0, e1, i0, i1] : i0 - 32e0 >= 0 and -i0 + 32e0 + 31 >= 0 and i1 - 64e1 >= 0 and -i1 + 64e1 + 63 >= 0
// CHECK-NEXT: loop tree
// CHECK-NEXT: parfor t0 = max(0) to min(31)
// AVX512-NEXT: for t1 = max(0) to min(3)
// AVX2-NEXT: for t1 = max(0) to min(7)
// SSE-NEXT: for t1 = max(0) to min(15)
// CHECK-NEXT: for t2 = max(32*t0) to min(32*t0+31)
// AVX512-NEXT: for t3 = max(256*t1) to min(256*t1+255)
// AVX2-NEXT: for t3 = max(128*t1) to min(128*t1+127)
// SSE-NEXT: for t3 = max(64*t1) to min(64*t1+63)
// CHECK-NEXT: S0(t2, t3)
func.func @update(%A: memref<1024x1024xf64>, %B: memref<1024x1024xf64>) {
  affine.for %i = 0 to 1024 {
    affine.for %j = 0 to 1024 {
      %a = affine.load %A[%i, %j] : memref<1024x1024xf64>
      %b = affine.load %B[%i, %j] : memref<1024x1024xf64>
      %s = arith.addf %a, %b : f64
      affine.store %s, %B[%i, %j] : memref<1024x1024xf64>
    }
  }
  return
}
