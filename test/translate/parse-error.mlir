// RUN: not %polyrs-translate %s 2>&1 | FileCheck %s
// CHECK: parse-error.mlir:[[@LINE+2]]:{{[0-9]+}}: error: use of undeclared SSA value name
func.func @broken(%A: memref<10xf64>) {
  %a = affine.load %A[%i] : memref<10xf64>
  return
}
