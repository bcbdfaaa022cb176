// Promotion to shared memory: a 64x48x40 matmul on a 32x8 block with 4
// rows per thread (a block covers 32 rows i and 32 columns j). The
// threads' loop k runs in steps of the warp size, 32, that every thread of
// the block runs together: at each step the block copies the 32x32 boxes
// A[32·by .. +31][32·t .. +31] and B[32·t .. +31][32·bx .. +31] to shared
// memory (256 threads, 1024 cells: 4 each, consecutive threads on
// consecutive cells of a row), waits at a barrier, runs its points reading
// the boxes, and waits again before the next step's copies. Each thread
// keeps its 4 cells of C in registers across all the steps: loaded before
// the first (inside the thread's guard), stored after the last. K = 40 is not
// a multiple of 32 and N = 48 not of 32: the second step's boxes and the
// second column of blocks stick out of the arrays, where the copies'
// guards keep them. C, written, stays in global memory. The checker
// proves every read inside its box. Each buffer's rows have 33 cells, one
// unused: threads that read down a column then fall in different banks.
//
// The checksum, sum of C[i][j] * (1 + (i + j) mod 3) with
// A[i][k] = (i + k) mod 7 and B[k][j] = k j mod 5, was worked out by a
// Python loop: 1167225; the second line is 1 when the sum is NaN (a
// shared cell read before any copy wrote it: the emulation fills shared
// memory with NaN before each block).
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.mlir | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-block=7,3' -o %t.b73.mlir 2>&1 | FileCheck %s --check-prefix=B73
// RUN: %polyrs-runner --gpu=emulate %t.b73.mlir | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-shared=false' -o %t.off.mlir 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: FileCheck %s --check-prefix=OFF-IR < %t.off.mlir
// RUN: %polyrs-runner --gpu=emulate %t.off.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
//
// Mutations: without the barrier between the copies and their uses, the
// emulation's first thread reads cells the others have not copied yet;
// with a box one cell short, the checker refuses the plan (an internal
// error: the SCoP is left unchanged), and without the checker
// (verify=false) the emulation reads cells of the wrong row and the result
// is wrong.
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-test-mutation=no-barrier' -o %t.nobar.mlir 2>/dev/null
// RUN: %polyrs-runner --gpu=emulate %t.nobar.mlir | FileCheck %s --check-prefix=NAN
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.nobar.mlir | FileCheck %s --check-prefix=NAN
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-test-mutation=short-footprint' -o %t.short.mlir 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: FileCheck %s --check-prefix=SHORT-IR < %t.short.mlir
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-test-mutation=short-footprint verify=false' -o %t.unchecked.mlir 2>/dev/null
// RUN: %polyrs-runner --gpu=emulate %t.unchecked.mlir | FileCheck %s --check-prefix=WRONG
// RUN: not %polyrs-opt %s --poly-opt='target=gpu gpu-test-mutation=no-copy' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
//
// REMARK: shared.mlir:{{[0-9]+}}:3: remark: poly-opt: 1 statement
// REMARK-SAME: (block 32x8); register tile of 4 rows per thread; φ2 in steps of 32 run by every thread of a block; 1 kernel: grid over 2 tile loops, block 32x8;
// REMARK-SAME: shared memory per block: arg0 32x32, arg1 32x32 (16896 bytes, copied at each step of the block's loop); not: arg2 (written in the loop);
// REMARK-SAME: per-thread registers across a thread's sequential loop: arg2;
// IR: func.func @matmul
// IR: gpu.launch
// IR-SAME: workgroup(%[[SA:.*]] : memref<32x33xf64, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<32x33xf64, #gpu.address_space<workgroup>>)
// IR: %[[INIT:.*]]:4 = affine.if #{{.*}} -> (f64, f64, f64, f64) {
// IR: %[[ACC:.*]]:4 = affine.for %{{.*}} = 0 to 2 iter_args({{.*}} = %[[INIT]]#0, {{.*}} = %[[INIT]]#1, {{.*}} = %[[INIT]]#2, {{.*}} = %[[INIT]]#3) -> (f64, f64, f64, f64) {
// IR-NOT: affine.load %{{.*}} : memref<64x48xf64>
// IR: affine.for %[[E:.*]] = #{{.*}}()[%{{.*}}, %{{.*}}] to 1024 step 256 {
// IR: affine.store %{{.*}}, %[[SA]][(%[[E]] floordiv 32) mod 32, %[[E]] mod 32]
// IR: affine.for %[[E2:.*]] = #{{.*}}()[%{{.*}}, %{{.*}}] to 1024 step 256 {
// IR: affine.store %{{.*}}, %[[SB]][(%[[E2]] floordiv 32) mod 32, %[[E2]] mod 32]
// IR: gpu.barrier
// IR: affine.if #{{.*}} -> (f64, f64, f64, f64) {
// IR: iter_args
// IR: affine.load %[[SA]]
// IR: affine.load %[[SB]]
// IR: gpu.barrier
// IR: affine.store %[[ACC]]#0
// IR: gpu.terminator
// B73: (block 7x3); register tile of 4 rows per thread; φ2 in steps of 32 run by every thread of a block;
// B73-SAME: shared memory per block: arg0 12x32, arg1 32x7
// OFF: (block 32x8); register tile of 4 rows per thread; 1 kernel
// OFF-SAME: no shared memory (gpu-shared=false)
// OFF-IR-NOT: workgroup
// OFF-IR-NOT: gpu.barrier
// SHORT: warning: poly-opt: internal error: the shared-memory box of arg0 misses cells past its extent along dimension 1 (S0 reads it); the SCoP is left unchanged
// SHORT-IR-LABEL: func.func @matmul
// SHORT-IR-NOT: gpu.launch
// SHORT-IR: func.func @main
//
// CHECK: 1167225
// CHECK-NEXT: 0
// NAN: {{^1$}}
// WRONG-NOT: {{^1167225$}}
// WRONG: {{^0$}}
// BAD: error: poly-opt: invalid value 'no-copy' for option 'gpu-test-mutation': expected no-barrier or short-footprint

func.func private @printI64(i64)
func.func private @printNewline()

func.func @matmul(%A: memref<64x40xf64>, %B: memref<40x48xf64>, %C: memref<64x48xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      affine.for %k = 0 to 40 {
        %a = affine.load %A[%i, %k] : memref<64x40xf64>
        %b = affine.load %B[%k, %j] : memref<40x48xf64>
        %c = affine.load %C[%i, %j] : memref<64x48xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<64x48xf64>
      }
    }
  }
  return
}

func.func @main() {
  %zero = arith.constant 0.0 : f64
  %A = memref.alloc() : memref<64x40xf64>
  %B = memref.alloc() : memref<40x48xf64>
  %C = memref.alloc() : memref<64x48xf64>
  affine.for %i = 0 to 64 {
    affine.for %k = 0 to 40 {
      %s = affine.apply affine_map<(d0, d1) -> ((d0 + d1) mod 7)>(%i, %k)
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %A[%i, %k] : memref<64x40xf64>
    }
  }
  affine.for %k = 0 to 40 {
    affine.for %j = 0 to 48 {
      %ki = arith.index_cast %k : index to i64
      %ji = arith.index_cast %j : index to i64
      %p = arith.muli %ki, %ji : i64
      %c5 = arith.constant 5 : i64
      %si = arith.remsi %p, %c5 : i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %B[%k, %j] : memref<40x48xf64>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      affine.store %zero, %C[%i, %j] : memref<64x48xf64>
    }
  }
  func.call @matmul(%A, %B, %C) : (memref<64x40xf64>, memref<40x48xf64>, memref<64x48xf64>) -> ()
  %sum = affine.for %i = 0 to 64 iter_args(%acc = %zero) -> (f64) {
    %r = affine.for %j = 0 to 48 iter_args(%acc2 = %acc) -> (f64) {
      %x = affine.load %C[%i, %j] : memref<64x48xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1) mod 3 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %t = arith.mulf %x, %wf : f64
      %s = arith.addf %acc2, %t : f64
      affine.yield %s : f64
    }
    affine.yield %r : f64
  }
  %r = arith.fptosi %sum : f64 to i64
  func.call @printI64(%r) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %nan = arith.cmpf uno, %sum, %sum : f64
  %n = arith.extui %nan : i1 to i64
  func.call @printI64(%n) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

// The launches stage's decisions (print-stages; appended here so that the
// line numbers above stay): one launch whose grid is the two tile loops
// (t0 over the 2 row tiles, t1 over the 2 column tiles) and whose block is
// the thread loops t3 (8 threads) and t4 (32, on x); its cooperative loop
// t2 copies both boxes at each step (2 x 32x33 doubles = 16896 bytes, under
// the 48 KiB of a block) and each thread keeps its 4 cells of C (rows
// 4·t3 .. 4·t3+3) in registers across the steps.
// RUN: %polyrs-opt %s --poly-opt='target=gpu print-stages=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: loop tree after the launches stage (1 loop marked):
// LAUNCH: launch grid(t0, t1) block(t3 x8, t4 x32)
// LAUNCH-NEXT: coop t2: shared #0 #1, carry 4 cells
