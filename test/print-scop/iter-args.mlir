// Loop-carried SSA values: detection rejects the nest, so nothing is modeled.
// RUN: %polyrs-opt %s --pass-pipeline='builtin.module(func.func(poly-detect-scops,poly-print-scop))' --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s
// CHECK: iter-args.mlir:[[@LINE+5]]:10: remark: loop nest is not a static control part: 'affine.for' carries values through iter_args
// CHECK-NOT: scop @iter_args
// CHECK: scop @plain
func.func @iter_args(%A: memref<10xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %sum = affine.for %i = 0 to 10 iter_args(%acc = %zero) -> (f64) {
    %a = affine.load %A[%i] : memref<10xf64>
    %s = arith.addf %acc, %a : f64
    affine.yield %s : f64
  }
  return %sum : f64
}
func.func @plain(%A: memref<10xf64>) {
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i] : memref<10xf64>
    affine.store %a, %A[%i] : memref<10xf64>
  }
  return
}
