// A register tile per thread: each thread of a 32x8 block runs 4
// consecutive rows i of a matmul (128 rows, so every thread's 4 rows
// exist and the rows' loop unrolls): the k loop carries 4 accumulators
// C[i..i+3][j] in registers and loads B[k][j] once for the 4 rows (the
// copies' loads are the same operation on the same operands). A block
// covers 32 rows: a grid of 3 x 4 blocks. gpu-thread-tile=1 turns it off
// (one row per thread, one accumulator). The checksum, sum of
// C[i][j] * (1 + (i + j) mod 3) with A[i][k] = (i + k) mod 7 and
// B[k][j] = k j mod 5, was worked out by a Python loop: 7440014. Shared
// memory is off (gpu-shared=false) where the IR is checked, so that k is
// one loop (test/gpu/shared.mlir has the steps and the copies); the
// default, with both, gives the same checksum.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-shared=false' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward %t.mlir | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-block=7,3' -o %t.b73.mlir 2>&1 | FileCheck %s --check-prefix=B73
// RUN: %polyrs-runner --gpu=emulate %t.b73.mlir | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-shared=false gpu-thread-tile=1' -o %t.off.mlir 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: FileCheck %s --check-prefix=OFF-IR < %t.off.mlir
// RUN: %polyrs-runner --gpu=emulate %t.off.mlir | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.shared.mlir 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: %polyrs-runner --gpu=emulate %t.shared.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
//
// REMARK: thread-tile.mlir:46:3: remark: poly-opt: 1 statement
// REMARK-SAME: (block 32x8); register tile of 4 rows per thread; 1 kernel: grid over 2 tile loops, block 32x8;
// REMARK-SAME: no shared memory (gpu-shared=false); per-thread registers across a thread's sequential loop: arg2;
// IR: func.func @matmul
// IR: gpu.launch
// IR: affine.for %{{.*}} = 0 to 64 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f64, f64, f64, f64)
// B73: (block 7x3); register tile of 4 rows per thread
// SHARED: (block 32x8); register tile of 4 rows per thread; φ2 in steps of 32 run by every thread of a block;
// SHARED-SAME: shared memory per block: arg0 32x32, arg1 32x32
// OFF: (block 32x8); 1 kernel
// OFF-NOT: register tile of
// OFF-IR: affine.for %{{.*}} = 0 to 64 iter_args(%{{.*}} = %{{.*}}) -> (f64)
//
// CHECK: 7440014

func.func private @printI64(i64)
func.func private @printNewline()

func.func @matmul(%A: memref<128x64xf64>, %B: memref<64x96xf64>, %C: memref<128x96xf64>) {
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 96 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<128x64xf64>
        %b = affine.load %B[%k, %j] : memref<64x96xf64>
        %c = affine.load %C[%i, %j] : memref<128x96xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<128x96xf64>
      }
    }
  }
  return
}

func.func @main() {
  %zero = arith.constant 0.0 : f64
  %A = memref.alloc() : memref<128x64xf64>
  %B = memref.alloc() : memref<64x96xf64>
  %C = memref.alloc() : memref<128x96xf64>
  affine.for %i = 0 to 128 {
    affine.for %k = 0 to 64 {
      %s = affine.apply affine_map<(d0, d1) -> ((d0 + d1) mod 7)>(%i, %k)
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %A[%i, %k] : memref<128x64xf64>
    }
  }
  affine.for %k = 0 to 64 {
    affine.for %j = 0 to 96 {
      %ki = arith.index_cast %k : index to i64
      %ji = arith.index_cast %j : index to i64
      %p = arith.muli %ki, %ji : i64
      %c5 = arith.constant 5 : i64
      %si = arith.remsi %p, %c5 : i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %B[%k, %j] : memref<64x96xf64>
    }
  }
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 96 {
      affine.store %zero, %C[%i, %j] : memref<128x96xf64>
    }
  }
  func.call @matmul(%A, %B, %C) : (memref<128x64xf64>, memref<64x96xf64>, memref<128x96xf64>) -> ()
  %sum = affine.for %i = 0 to 128 iter_args(%acc = %zero) -> (f64) {
    %r = affine.for %j = 0 to 96 iter_args(%acc2 = %acc) -> (f64) {
      %x = affine.load %C[%i, %j] : memref<128x96xf64>
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
  return
}

// The GPU's tree stage (carry): the thread's sequential loop over k (t4),
// its body the 4 unrolled rows, keeps their 4 cells C[4*t2 + r][t3] in
// registers ("carry 4 cells"); the block
// and thread loops (parfor) carry nothing; the second kernel's loops are
// all parallel: nothing marked.
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-shared=false print-stages=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// TREE:      loop tree after the carry stage (1 loop marked):
// TREE-NEXT: parfor t0 = max(0) to min(3){{$}}
// TREE-NEXT:   parfor t1 = max(0) to min(2){{$}}
// TREE-NEXT:     parfor t2 = max(8*t0) to min(8*t0+7){{$}}
// TREE-NEXT:       parfor t3 = max(32*t1) to min(32*t1+31){{$}}
// TREE-NEXT:         for t4 = max(0) to min(63) [carry 4 cells]
// TREE-NEXT:           let t5 = 4*t2
// TREE:      loop tree after the carry stage (0 loops marked):
// TREE-NOT:  [carry]
