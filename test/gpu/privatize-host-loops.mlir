// A temporary that leaves the parallel loops of one iteration to the GPU
// but runs the loops around them on the host (doitgen's sum: one launch
// of a single block per (r, q) pair) is expanded per iteration when that
// leaves fewer loops on the host: then r, q and p all map to the GPU. The
// last iteration's slice of the expansion goes back into sum whole, so sum
// is not copied to the device (its 100.0s are never read).
// Expected values worked out by hand, A[r][q][s] = 1 and C[s][p] = p + 1:
// sum[p] = 5 (p + 1) for every (r, q), so the sum of A afterwards is
// 8 * 6 * 5 * (1 + ... + 5) = 3600 and that of sum is 75.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %polyrs-runner --gpu=emulate %t.mlir | FileCheck %s
// RUN: %polyrs-runner %s | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='target=gpu privatize=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
//
// REMARK: privatize-host-loops.mlir:32:3: remark: poly-opt:
// REMARK-SAME: temporary arg2 expanded per iteration (privatized)
// REMARK-SAME: 3 parallel mapped to blocks and threads
// REMARK-SAME: copies to the device: arg0, arg1; back:
// OFF: privatize-host-loops.mlir:32:3: remark: poly-opt:
// OFF-SAME: 1 parallel mapped to blocks and threads
// OFF-SAME: grid of 1 block (one tile)
//
// CHECK: 3600
// CHECK-NEXT: 75

func.func private @printI64(i64)
func.func private @printNewline()

func.func @doit(%A: memref<8x6x5xf64>, %C: memref<5x5xf64>, %sum: memref<5xf64>) {
  %zero = arith.constant 0.0 : f64
  affine.for %r = 0 to 8 {
    affine.for %q = 0 to 6 {
      affine.for %p = 0 to 5 {
        affine.store %zero, %sum[%p] : memref<5xf64>
        affine.for %s = 0 to 5 {
          %x = affine.load %sum[%p] : memref<5xf64>
          %a = affine.load %A[%r, %q, %s] : memref<8x6x5xf64>
          %c = affine.load %C[%s, %p] : memref<5x5xf64>
          %m = arith.mulf %a, %c : f64
          %n = arith.addf %x, %m : f64
          affine.store %n, %sum[%p] : memref<5xf64>
        }
      }
      affine.for %p = 0 to 5 {
        %x = affine.load %sum[%p] : memref<5xf64>
        affine.store %x, %A[%r, %q, %p] : memref<8x6x5xf64>
      }
    }
  }
  return
}

func.func @print(%x: f64) {
  %i = arith.fptosi %x : f64 to i64
  func.call @printI64(%i) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<8x6x5xf64>
  %C = memref.alloc() : memref<5x5xf64>
  %sum = memref.alloc() : memref<5xf64>
  %one = arith.constant 1.0 : f64
  %hundred = arith.constant 100.0 : f64
  %zero = arith.constant 0.0 : f64
  affine.for %r = 0 to 8 {
    affine.for %q = 0 to 6 {
      affine.for %s = 0 to 5 {
        affine.store %one, %A[%r, %q, %s] : memref<8x6x5xf64>
      }
    }
  }
  affine.for %s = 0 to 5 {
    affine.for %p = 0 to 5 {
      %pi = arith.index_cast %p : index to i64
      %pf = arith.sitofp %pi : i64 to f64
      %v = arith.addf %pf, %one : f64
      affine.store %v, %C[%s, %p] : memref<5x5xf64>
    }
    affine.store %hundred, %sum[%s] : memref<5xf64>
  }
  func.call @doit(%A, %C, %sum) : (memref<8x6x5xf64>, memref<5x5xf64>, memref<5xf64>) -> ()
  %tA = affine.for %r = 0 to 8 iter_args(%acc = %zero) -> (f64) {
    %tq = affine.for %q = 0 to 6 iter_args(%acc2 = %acc) -> (f64) {
      %tp = affine.for %p = 0 to 5 iter_args(%acc3 = %acc2) -> (f64) {
        %a = affine.load %A[%r, %q, %p] : memref<8x6x5xf64>
        %n = arith.addf %acc3, %a : f64
        affine.yield %n : f64
      }
      affine.yield %tp : f64
    }
    affine.yield %tq : f64
  }
  func.call @print(%tA) : (f64) -> ()
  %ts = affine.for %p = 0 to 5 iter_args(%acc = %zero) -> (f64) {
    %x = affine.load %sum[%p] : memref<5xf64>
    %n = arith.addf %acc, %x : f64
    affine.yield %n : f64
  }
  func.call @print(%ts) : (f64) -> ()
  memref.dealloc %A : memref<8x6x5xf64>
  memref.dealloc %C : memref<5x5xf64>
  memref.dealloc %sum : memref<5xf64>
  return
}
