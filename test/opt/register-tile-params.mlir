// Register tiles and bounds with parameters (passes/opt/plan.rs). A
// cholesky-like kernel whose rows run to a parameter `%n` (the fuzzer's
// carried program 97 on a 1500x1500 array): with register tiles, code
// generation does not separate the full blocks from the edges and the
// interior tiles run as scans with statement guards in their innermost
// loops; on 1500 rows that kernel ran 0.51-0.72 s against the input's
// 0.55 s and 0.14-0.15 s without the blocks (AMD EPYC VM, Zen 4; AVX2 and
// AVX-512 sizes; the same kernel with constant bounds gets full blocks and
// runs 2.5x faster with them). So with parameters in the bounds, register
// tiles that leave guards in innermost loops are dropped. A gemm and a
// triangle (j <= i) under the same parameter keep theirs: no guard is left
// in an innermost loop (3-4x faster with them on that machine).
//
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2' -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2' -o /dev/null 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY
//
// CHECK: register-tile-params.mlir:31:{{.*}} remark: poly-opt: 5 statements,
// CHECK-SAME: no register tile:
// AVX2-SAME: it would leave statement guards in innermost loops (bounds with parameters);
// CHECK-SAME: legality verified
// CHECK-NOT: register tile {{[0-9]+}}x
// CHECK: register-tile-params.mlir:68:{{.*}} remark: poly-opt: 1 statement, {{.*}}; register tile {{[0-9]+}}x8;
// CHECK: register-tile-params.mlir:84:{{.*}} remark: poly-opt: 1 statement, {{.*}}; register tile {{[0-9]+}}x8;
// (With AVX-512's 16x8 blocks the kernel's code would take more copies of
// statements than allowed: test/fuzz/register-tile-copies-97.mlir.)
// Without the profitability rules, the guards are accepted as before.
// ANY: register-tile-params.mlir:31:{{.*}} remark: poly-opt: 5 statements, {{.*}}; register tile 4x8;

func.func @cholesky_like(%n0: index, %A0: memref<1500x1500xf64>) {
  affine.for %i0 = 0 to %n0 {
    affine.for %i1 = 0 to affine_map<(d0) -> (d0)>(%i0) {
      %t1 = affine.load %A0[%i0, %i1] : memref<1500x1500xf64>
      %t2 = arith.constant 0.25 : f64
      %t3 = arith.addf %t1, %t2 : f64
      affine.store %t3, %A0[%i0, %i1] : memref<1500x1500xf64>
      affine.for %i2 = 0 to affine_map<(d0) -> (d0 - 1)>(%i1) {
        %t4 = affine.load %A0[%i0, %i1] : memref<1500x1500xf64>
        %t5 = affine.load %A0[%i0, %i2] : memref<1500x1500xf64>
        %t6 = affine.load %A0[%i1, %i2] : memref<1500x1500xf64>
        %t7 = arith.mulf %t5, %t6 : f64
        %t8 = arith.subf %t4, %t7 : f64
        affine.store %t8, %A0[%i0, %i1] : memref<1500x1500xf64>
      }
      %t9 = affine.load %A0[%i0, %i1] : memref<1500x1500xf64>
      %t10 = arith.constant 0.5 : f64
      %t11 = arith.mulf %t9, %t10 : f64
      affine.store %t11, %A0[%i0, %i1] : memref<1500x1500xf64>
    }
    affine.for %i2 = 0 to affine_map<(d0) -> (d0)>(%i0) {
      %t12 = affine.load %A0[%i0, %i0] : memref<1500x1500xf64>
      %t13 = affine.load %A0[%i0, %i2] : memref<1500x1500xf64>
      %t15 = arith.mulf %t13, %t13 : f64
      %t16 = arith.subf %t12, %t15 : f64
      affine.store %t16, %A0[%i0, %i0] : memref<1500x1500xf64>
    }
    %t17 = affine.load %A0[%i0, %i0] : memref<1500x1500xf64>
    %t18 = arith.constant 0.5 : f64
    %t19 = arith.mulf %t17, %t18 : f64
    %t20 = arith.constant 1.0 : f64
    %t21 = arith.addf %t19, %t20 : f64
    affine.store %t21, %A0[%i0, %i0] : memref<1500x1500xf64>
  }
  return
}

func.func @gemm(%n: index, %A: memref<1000x1000xf64>, %B: memref<1000x1000xf64>, %C: memref<1000x1000xf64>) {
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %n {
      affine.for %k = 0 to %n {
        %a = affine.load %A[%i, %k] : memref<1000x1000xf64>
        %b = affine.load %B[%k, %j] : memref<1000x1000xf64>
        %c = affine.load %C[%i, %j] : memref<1000x1000xf64>
        %m = arith.mulf %a, %b : f64
        %s = arith.addf %c, %m : f64
        affine.store %s, %C[%i, %j] : memref<1000x1000xf64>
      }
    }
  }
  return
}

func.func @triangle(%n: index, %A: memref<1000x1000xf64>, %B: memref<1000x1000xf64>, %C: memref<1000x1000xf64>) {
  affine.for %i = 0 to %n {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      affine.for %k = 0 to %n {
        %a = affine.load %A[%i, %k] : memref<1000x1000xf64>
        %b = affine.load %B[%j, %k] : memref<1000x1000xf64>
        %c = affine.load %C[%i, %j] : memref<1000x1000xf64>
        %m = arith.mulf %a, %b : f64
        %s = arith.addf %c, %m : f64
        affine.store %s, %C[%i, %j] : memref<1000x1000xf64>
      }
    }
  }
  return
}
