// Found by the fuzzer (fuzz/fuzz.py, family factor, program 2465, default
// options: class no-lower, the transformed program ran past the runner's
// time limit). An LU-like statement under a parameter, `A[i0][i1] -=
// A[i0][i2] * A[i2][i1]` over a triangle: its register tiles' partial
// blocks took 740 loops (8x16 blocks; 6 loops without them), and
// polyrs-runner took 84 s, nearly all of it compiling them (the lowering
// and LLVM's -O3: 58 s in polyrs-translate --emit=llvm), where the
// untransformed program takes 0.25 s, compilation included. A plan
// whose register tiles take more than 512 loops is now made again without
// them (passes/opt/plan.rs, REGISTER_TILE_MAX_LOOPS); 431 loops (znver3's
// 4x8 blocks, about 8 s of LLVM) are still under the limit, as are
// cholesky's 416 at LARGE, the most among the PolyBench kernels.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks
// CHECK: remark: poly-opt: 1 statement, 6 loops (1 parallel), 1 guard;{{.*}} no register tile: the code with them would take 740 loops (more than 512);{{.*}} legality verified
// Without the profitability rules (the guards rule below is one of them):
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNDER
// UNDER: remark: poly-opt: 1 statement, 431 loops (1 parallel), {{[0-9]+}} guards; register tile 4x8;
// With them, znver3's 4x8 blocks leave statement guards in innermost loops
// under the parameter, and are dropped (session 57): on a 1000x1000 array
// (n0 = 1000; AMD EPYC VM, Zen 4) that kernel ran 0.198 s with them,
// slower than the input's 0.148 s, against 0.030 s without; znver4's
// 16x8 blocks (333 loops, no guard in an innermost loop) stay, 0.014 s.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2' -o /dev/null 2>&1 | FileCheck %s --check-prefix=GUARDS
// GUARDS: remark: poly-opt: 1 statement, 6 loops (1 parallel), 1 guard;{{.*}} no register tile: it would leave statement guards in innermost loops (bounds with parameters);
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZEN4
// ZEN4: remark: poly-opt: 1 statement, 333 loops (1 parallel), {{[0-9]+}} guards; register tile 16x8;
// fuzz program, seed 2465
func.func @kernel(%n0: index, %A0: memref<22x22xf64>, %A1: memref<1x1xf64>, %A2: memref<1x1xf64>) {
  affine.for %i2 = 0 to affine_map<()[s0] -> (s0)>()[%n0] {
    affine.for %i0 = affine_map<(d0)[] -> ((d0 + 1))>(%i2)[] to affine_map<()[s0] -> (s0)>()[%n0] {
      affine.for %i1 = affine_map<(d0)[] -> ((d0 + 1))>(%i2)[] to affine_map<()[s0] -> (s0)>()[%n0] {
        %t1 = affine.load %A0[%i0, %i1] : memref<22x22xf64>
        %t2 = affine.load %A0[%i0, %i2] : memref<22x22xf64>
        %t3 = affine.load %A0[%i2, %i1] : memref<22x22xf64>
        %t4 = arith.mulf %t2, %t3 : f64
        %t5 = arith.subf %t1, %t4 : f64
        affine.store %t5, %A0[%i0, %i1] : memref<22x22xf64>
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()
func.func @main() {
  %c37_0 = arith.constant 37 : i64
  %off0 = arith.constant 11 : i64
  %base0 = arith.constant 0.0 : f64
  %c37_1 = arith.constant 37 : i64
  %off1 = arith.constant 112 : i64
  %base1 = arith.constant 1.0 : f64
  %c37_2 = arith.constant 37 : i64
  %off2 = arith.constant 213 : i64
  %base2 = arith.constant 2.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z64 = arith.constant 0 : i64
  %one64 = arith.constant 1 : i64
  %p997 = arith.constant 997 : i64
  %f997 = arith.constant 997.0 : f64
  %half = arith.constant 0.5 : f64
  %nan64 = arith.constant 9221120237041090560 : i64
  %m0 = memref.alloc() : memref<22x22xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [484], strides: [1] : memref<22x22xf64> to memref<484xf64>
  %sz0 = arith.constant 484 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<484xf64>
  }
  %m1 = memref.alloc() : memref<1x1xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [1], strides: [1] : memref<1x1xf64> to memref<1xf64>
  %sz1 = arith.constant 1 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<1xf64>
  }
  %m2 = memref.alloc() : memref<1x1xf64>
  %flat2 = memref.reinterpret_cast %m2 to offset: [0], sizes: [1], strides: [1] : memref<1x1xf64> to memref<1xf64>
  %sz2 = arith.constant 1 : index
  scf.for %k = %c0 to %sz2 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_2 : i64
    %ka = arith.addi %km, %off2 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base2 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat2[%k] : memref<1xf64>
  }
  %pv_n0 = arith.constant 22 : index
  func.call @kernel(%pv_n0, %m0, %m1, %m2) : (index, memref<22x22xf64>, memref<1x1xf64>, memref<1x1xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<484xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum0) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sum1 = scf.for %k = %c0 to %sz1 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat1[%k] : memref<1xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum1) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sum2 = scf.for %k = %c0 to %sz2 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat2[%k] : memref<1xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum2) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %m0 : memref<22x22xf64>
  memref.dealloc %m1 : memref<1x1xf64>
  memref.dealloc %m2 : memref<1x1xf64>
  return
}
