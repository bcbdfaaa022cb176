// A syntax error: file:line:col and the message, exit code 1.
// RUN: not %polyrs-opt %s --poly-detect-scops 2>&1 | FileCheck %s
// RUN: sh -c '%polyrs-opt %s > /dev/null 2>&1; test $? -eq 1'

// CHECK: parse-error.mlir:[[@LINE+2]]:{{[0-9]+}}: error: {{.*}}
func.func @broken(%A: memref<10xf64>) {
  %a = affine.load %A[%i] : memref<10xf64>
  return
}
