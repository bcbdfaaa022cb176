// Found by the fuzzer (fuzz/fuzz.py, family carried, program 97,
// profitability=false; session 56 noted it, session 57 fixed it). A
// cholesky-like kernel under a parameter (`A[i0][i1] -= A[i0][i2] *
// A[i1][i2]` over a triangle of `n0` rows): its register tiles (16x8)
// took 479 loops, under the 512 of REGISTER_TILE_MAX_LOOPS, but 3,382
// copies of statements: 2 MB of MLIR that LLVM's -O3 took 20-40 s to
// compile, for a kernel that ran in microseconds (the same kernel on a
// 1500x1500 array, default options: 3,844 copies, 20.6 s of
// polyrs-translate --emit=obj, and 0.61 s of run time against 0.15 s
// without the blocks). A plan whose register tiles take more than 3,072
// copies is now made again without them (passes/opt/plan.rs,
// REGISTER_TILE_MAX_COPIES; cholesky at LARGE takes 1,541, 2,121 with
// contract=true, and keeps its blocks: the CHOL lines below).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.remarks
// CHECK: remark: poly-opt: 5 statements, {{[0-9][0-9]?}} loops ({{.*}}no register tile: the code with them would take {{[0-9]+}} copies of statements (more than 3072);{{.*}} legality verified
// CHECK-NOT: register tile 16x8
// RUN: %gen --size LARGE --out %t.pb cholesky
// RUN: %polyrs-opt %t.pb/cholesky.mlir --poly-opt='%{avx512} contract=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHOL
// CHOL: cholesky.mlir:{{.*}} remark: poly-opt: 4 statements, {{.*}}; register tile 8x8;
// fuzz program, seed 97
func.func @kernel(%n0: index, %A0: memref<19x19xf64>, %A1: memref<1x1xf64>, %A2: memref<1x1xf64>) {
  affine.for %i0 = 0 to affine_map<()[s0] -> (s0)>()[%n0] {
    affine.for %i1 = 0 to affine_map<(d0)[] -> (d0)>(%i0)[] {
      %t1 = affine.load %A0[%i0, %i1] : memref<19x19xf64>
      %t2 = arith.constant 0.25 : f64
      %t3 = arith.addf %t1, %t2 : f64
      affine.store %t3, %A0[%i0, %i1] : memref<19x19xf64>
      affine.for %i2 = 0 to affine_map<(d0)[] -> ((d0 - 1))>(%i1)[] {
        %t4 = affine.load %A0[%i0, %i1] : memref<19x19xf64>
        %t5 = affine.load %A0[%i0, %i2] : memref<19x19xf64>
        %t6 = affine.load %A0[%i1, %i2] : memref<19x19xf64>
        %t7 = arith.mulf %t5, %t6 : f64
        %t8 = arith.subf %t4, %t7 : f64
        affine.store %t8, %A0[%i0, %i1] : memref<19x19xf64>
      }
      %t9 = affine.load %A0[%i0, %i1] : memref<19x19xf64>
      %t10 = arith.constant 0.5 : f64
      %t11 = arith.mulf %t9, %t10 : f64
      affine.store %t11, %A0[%i0, %i1] : memref<19x19xf64>
    }
    affine.for %i2 = 0 to affine_map<(d0)[] -> (d0)>(%i0)[] {
      %t12 = affine.load %A0[%i0, %i0] : memref<19x19xf64>
      %t13 = affine.load %A0[%i0, %i2] : memref<19x19xf64>
      %t14 = affine.load %A0[%i0, %i2] : memref<19x19xf64>
      %t15 = arith.mulf %t13, %t14 : f64
      %t16 = arith.subf %t12, %t15 : f64
      affine.store %t16, %A0[%i0, %i0] : memref<19x19xf64>
    }
    %t17 = affine.load %A0[%i0, %i0] : memref<19x19xf64>
    %t18 = arith.constant 0.5 : f64
    %t19 = arith.mulf %t17, %t18 : f64
    %t20 = arith.constant 1.0 : f64
    %t21 = arith.addf %t19, %t20 : f64
    affine.store %t21, %A0[%i0, %i0] : memref<19x19xf64>
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
  %m0 = memref.alloc() : memref<19x19xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [361], strides: [1] : memref<19x19xf64> to memref<361xf64>
  %sz0 = arith.constant 361 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<361xf64>
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
  %pv_n0 = arith.constant 19 : index
  func.call @kernel(%pv_n0, %m0, %m1, %m2) : (index, memref<19x19xf64>, memref<1x1xf64>, memref<1x1xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<361xf64>
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
  memref.dealloc %m0 : memref<19x19xf64>
  memref.dealloc %m1 : memref<1x1xf64>
  memref.dealloc %m2 : memref<1x1xf64>
  return
}
