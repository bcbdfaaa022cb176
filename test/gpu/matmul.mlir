// poly-opt{target=gpu} on a 250x250x256 matmul (partial tiles on both
// parallel loops). Worked out by hand: the band (i, j, k) has i and j
// parallel; j, the innermost, goes to x with the warp's 32 threads and i to
// y with 256 / 32 = 8; the grid has ceil(250/32) = 8 tiles of j along x and
// ceil(250/8) = 32 tiles of i along y; k runs inside each thread, C[i][j]
// kept in a register across it. No register tile of 4 rows per thread:
// 250 rows are not a multiple of 4, so the rows' loop would not unroll
// (test/gpu/thread-tile.mlir has one). Each thread guards its point: 0 <= ty <= 7
// and i = 8 * by + ty <= 249, likewise for j with 31 and 32. All three
// arrays are copied to device buffers, only C (written) comes back. The
// mapping without shared memory (gpu-shared=false): test/gpu/shared.mlir
// has the boxes of A and B copied at each step of k.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-shared=false' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-block=16,16' -o /dev/null 2>&1 | FileCheck %s --check-prefix=B16
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-shared=false scalar-replace=false' 2>&1 | FileCheck %s --check-prefix=NOREG
//
// CHECK: remark: poly-opt: 1 statement, 5 loops (4 parallel), 0 guards; band of 3 loops: 2 parallel mapped to blocks and threads (block 32x8); no register tile per thread: its rows' trip counts are not constant; 1 kernel: grid over 2 tile loops, block 32x8; copies to the device: arg2, arg0, arg1; back: arg2; no shared memory (gpu-shared=false); per-thread registers across a thread's sequential loop: arg2; legality and every block and thread loop verified; target gpu sm_90
// NOREG: back: arg2; no shared memory (gpu-shared=false); no per-thread registers (scalar-replace=false);
// NOREG-NOT: iter_args
// B16: band of 3 loops: 2 parallel mapped to blocks and threads (block 16x16);
// B16-SAME: 1 kernel: grid over 2 tile loops, block 16x16
//
// CHECK: #[[SET:.*]] = affine_set<()[s0, s1, s2, s3] : (s1 >= 0, s0 * -8 - s1 + 249 >= 0, -s1 + 7 >= 0, s3 >= 0, s2 * -32 - s3 + 249 >= 0, -s3 + 31 >= 0)>
// CHECK: func.func @matmul(%[[A:.*]]: memref<250x256xf64>, %[[B:.*]]: memref<256x250xf64>, %[[C:.*]]: memref<250x250xf64>)
// CHECK-DAG: %[[DC:.*]] = gpu.alloc () : memref<250x250xf64>
// CHECK-DAG: gpu.memcpy %[[DC]], %[[C]]
// CHECK-DAG: %[[DA:.*]] = gpu.alloc () : memref<250x256xf64>
// CHECK-DAG: gpu.memcpy %[[DA]], %[[A]]
// CHECK-DAG: %[[DB:.*]] = gpu.alloc () : memref<256x250xf64>
// CHECK-DAG: gpu.memcpy %[[DB]], %[[B]]
// CHECK: scf.if
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %[[C32]], %{{.*}} = %[[C8]], %{{.*}} = %{{.*}})
// CHECK-NEXT: affine.if #[[SET]]()[%[[BY]], %[[TY]], %[[BX]], %[[TX]]]
// CHECK-NEXT: affine.load %[[DC]][symbol(%[[TY]]) + symbol(%[[BY]]) * 8, symbol(%[[TX]]) + symbol(%[[BX]]) * 32]
// CHECK-NEXT: affine.for %{{.*}} = 0 to 256 iter_args
// CHECK-NEXT: affine.load %[[DA]]
// CHECK-NEXT: affine.load %[[DB]]
// CHECK: affine.store %{{.*}}, %[[DC]]
// CHECK: gpu.terminator
// CHECK: gpu.memcpy %[[C]], %[[DC]]
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.dealloc %[[DC]]
// CHECK: gpu.dealloc %[[DA]]
// CHECK: gpu.dealloc %[[DB]]
// CHECK-NEXT: return

func.func @matmul(%A: memref<250x256xf64>, %B: memref<256x250xf64>, %C: memref<250x250xf64>) {
  affine.for %i = 0 to 250 {
    affine.for %j = 0 to 250 {
      affine.for %k = 0 to 256 {
        %a = affine.load %A[%i, %k] : memref<250x256xf64>
        %b = affine.load %B[%k, %j] : memref<256x250xf64>
        %c = affine.load %C[%i, %j] : memref<250x250xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<250x250xf64>
      }
    }
  }
  return
}
