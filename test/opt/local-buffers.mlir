// Local buffers (passes/opt/demote.rs, local-buffers=true): a
// memref.alloc or memref.alloca inside a nest's loops, of static shape,
// used only by affine loads and stores (and freed in its block), becomes
// one heap buffer allocated at the function's entry with a leading
// dimension per loop around it (each iteration its own copy, as in the
// input), freed before the return: the nest is a SCoP, its row loop
// parallel. Where the nest is not rewritten, it comes back as it was.
// The values are small integers: the sums are exact (expected values
// worked out separately, not by polyrs).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: %polyrs-opt %s --poly-opt='%{avx512} local-buffers=false' 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' | %polyrs-runner --threads=2 - > %t.all
// RUN: diff %t.before %t.all
//
// SUMS: 4734310062
// SUMS-NEXT: 4456436
//
// CHECK: local-buffers.mlir:52:3: remark: poly-opt: 2 statements, 3 loops (1 parallel), 0 guards; local buffer memref<128xf64> allocated once before the nest, a copy per iteration of the 1 loop around it (memref<8192x128xf64>);
// CHECK: local-buffers.mlir:72:3: remark: poly-opt: loop nest not optimized: it is not a static control part: 'memref.alloca' inside the nest: a local buffer that is not modeled
// CHECK: local-buffers.mlir:93:3: remark: poly-opt: SCoP left unchanged: no profitable transformation
// CHECK: local-buffers.mlir:117:3: remark: poly-opt: loop nest not optimized: it is not a static control part: 'memref.alloca' inside the nest
// CHECK-LABEL: func.func @rows(
// CHECK-NEXT: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8192x128xf64>
// CHECK-NEXT: affine.parallel (%[[I:.*]]) = (0) to (8192)
// CHECK: affine.store %{{.*}}, %[[T]][%[[I]], %{{.*}}] : memref<8192x128xf64>
// CHECK: affine.load %[[T]][%[[I]], -%{{.*}} + 127] : memref<8192x128xf64>
// CHECK-NOT: memref.dealloc %{{.*}} : memref<128xf64>
// CHECK: memref.dealloc %[[T]] : memref<8192x128xf64>
// CHECK-NEXT: return
// The nest left unchanged: its buffer back in its loop.
// CHECK-LABEL: func.func @two_loops(
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.for
// CHECK-NEXT: memref.alloca() : memref<64xf64>
// CHECK-NOT: memref.alloc
// CHECK-LABEL: func.func @other_use(
//
// ALL: remark: poly-opt: {{.*}}local buffer memref<64xf64> allocated once before the nest, a copy per iteration of the 2 loops around it (memref<2048x2x64xf64>)
//
// OFF: local-buffers.mlir:52:3: remark: poly-opt: loop nest not optimized: it is not a static control part: 'memref.alloc' inside the nest
// OFF-NOT: allocated once

// A row kernel with a local heap array per row, freed in the row loop:
// t[j] = A[i][j] * A[i][j], then B[i][j] = t[127 - j] + t[j].
func.func @rows(%A: memref<8192x128xf64>, %B: memref<8192x128xf64>) {
  affine.for %i = 0 to 8192 {
    %t = memref.alloc() : memref<128xf64>
    affine.for %j = 0 to 128 {
      %a = affine.load %A[%i, %j] : memref<8192x128xf64>
      %m = arith.mulf %a, %a : f64
      affine.store %m, %t[%j] : memref<128xf64>
    }
    affine.for %j = 0 to 128 {
      %v = affine.load %t[127 - %j] : memref<128xf64>
      %w = affine.load %t[%j] : memref<128xf64>
      %s = arith.addf %v, %w : f64
      affine.store %s, %B[%i, %j] : memref<8192x128xf64>
    }
    memref.dealloc %t : memref<128xf64>
  }
  return
}

// Its copies per iteration over the cap (2^21 cells): rejected.
func.func @big(%A: memref<16384x128xf64>, %B: memref<16384x128xf64>) {
  affine.for %i = 0 to 16384 {
    %t = memref.alloca() : memref<128xf64>
    affine.for %j = 0 to 128 {
      %a = affine.load %A[%i, %j] : memref<16384x128xf64>
      %m = arith.mulf %a, %a : f64
      affine.store %m, %t[%j] : memref<128xf64>
    }
    affine.for %j = 0 to 128 {
      %v = affine.load %t[127 - %j] : memref<128xf64>
      %w = affine.load %t[%j] : memref<128xf64>
      %s = arith.addf %v, %w : f64
      affine.store %s, %B[%i, %j] : memref<16384x128xf64>
    }
  }
  return
}

// A stack buffer per iteration of two loops (C: `double t[64];` in the
// loop body; MLIR's lowering grows the stack at each iteration):
// C[i][k][j] = (A[i][j] + k) summed with its mirror.
func.func @two_loops(%A: memref<2048x64xf64>, %C: memref<2048x2x64xf64>) {
  affine.for %i = 0 to 2048 {
    affine.for %k = 0 to 2 {
      %t = memref.alloca() : memref<64xf64>
      %kk = arith.index_cast %k : index to i64
      %kf = arith.sitofp %kk : i64 to f64
      affine.for %j = 0 to 64 {
        %a = affine.load %A[%i, %j] : memref<2048x64xf64>
        %m = arith.addf %a, %kf : f64
        affine.store %m, %t[%j] : memref<64xf64>
      }
      affine.for %j = 0 to 64 {
        %v = affine.load %t[63 - %j] : memref<64xf64>
        %w = affine.load %t[%j] : memref<64xf64>
        %s = arith.addf %v, %w : f64
        affine.store %s, %C[%i, %k, %j] : memref<2048x2x64xf64>
      }
    }
  }
  return
}

// A buffer a non-affine load reads: not modeled, rejected with the reason.
func.func @other_use(%A: memref<4096x64xf64>, %B: memref<4096x64xf64>) {
  %c0 = arith.constant 0 : index
  affine.for %i = 0 to 4096 {
    %t = memref.alloca() : memref<64xf64>
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<4096x64xf64>
      affine.store %a, %t[%j] : memref<64xf64>
    }
    %v = memref.load %t[%c0] : memref<64xf64>
    affine.store %v, %B[%i, 0] : memref<4096x64xf64>
  }
  return
}

// Too few instances to pay: the nest comes back as it was, the buffer in
// its loop.
func.func @small(%A: memref<4x8xf64>, %B: memref<4x8xf64>) {
  affine.for %i = 0 to 4 {
    %t = memref.alloca() : memref<8xf64>
    affine.for %j = 0 to 8 {
      %a = affine.load %A[%i, %j] : memref<4x8xf64>
      affine.store %a, %t[%j] : memref<8xf64>
    }
    affine.for %j = 0 to 8 {
      %v = affine.load %t[7 - %j] : memref<8xf64>
      affine.store %v, %B[%i, %j] : memref<4x8xf64>
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() {
  %A = memref.alloc() : memref<2048x64xf64>
  %B = memref.alloc() : memref<2048x64xf64>
  %C = memref.alloc() : memref<2048x2x64xf64>
  %A2 = memref.alloc() : memref<8192x128xf64>
  %B2 = memref.alloc() : memref<8192x128xf64>
  affine.for %i = 0 to 8192 {
    affine.for %j = 0 to 128 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 3 + d1) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      affine.store %vf, %A2[%i, %j] : memref<8192x128xf64>
    }
  }
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 64 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 3 + d1) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      affine.store %vf, %A[%i, %j] : memref<2048x64xf64>
    }
  }
  func.call @rows(%A2, %B2) : (memref<8192x128xf64>, memref<8192x128xf64>) -> ()
  func.call @two_loops(%A, %C) : (memref<2048x64xf64>, memref<2048x2x64xf64>) -> ()
  // sum of B[i][j] * (j + 1) and of C[i][k][j] * (k + 1)
  %z = arith.constant 0.0 : f64
  %sb = affine.for %i = 0 to 8192 iter_args(%acc = %z) -> (f64) {
    %r = affine.for %j = 0 to 128 iter_args(%a2 = %acc) -> (f64) {
      %b = affine.load %B2[%i, %j] : memref<8192x128xf64>
      %w = affine.apply affine_map<(d0) -> (d0 + 1)>(%j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %m = arith.mulf %b, %wf : f64
      %n = arith.addf %a2, %m : f64
      affine.yield %n : f64
    }
    affine.yield %r : f64
  }
  %sc = affine.for %i = 0 to 2048 iter_args(%acc = %z) -> (f64) {
    %r = affine.for %k = 0 to 2 iter_args(%a2 = %acc) -> (f64) {
      %r2 = affine.for %j = 0 to 64 iter_args(%a3 = %a2) -> (f64) {
        %c = affine.load %C[%i, %k, %j] : memref<2048x2x64xf64>
        %w = affine.apply affine_map<(d0) -> (d0 + 1)>(%k)
        %wi = arith.index_cast %w : index to i64
        %wf = arith.sitofp %wi : i64 to f64
        %m = arith.mulf %c, %wf : f64
        %n = arith.addf %a3, %m : f64
        affine.yield %n : f64
      }
      affine.yield %r2 : f64
    }
    affine.yield %r : f64
  }
  %bi = arith.fptosi %sb : f64 to i64
  %ci = arith.fptosi %sc : f64 to i64
  func.call @printI64(%bi) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%ci) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
