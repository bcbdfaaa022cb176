// The stock mlir-opt loads libpolyrs.so and runs our pass by name.
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(poly-detect-scops))' %s --verify-diagnostics -o /dev/null
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(poly-detect-scops{min-depth=2 report-rejected=false}))' %inputs/depths.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --help | FileCheck %s --check-prefix=HELP
// RUN: not %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(poly-detect-scops{min-depth=x}))' %s -o /dev/null

// OPTS: remark: static control part: 1 loop nest, depth 2
// OPTS-NOT: remark
// HELP: --poly-detect-scops
// HELP-NEXT: --min-depth=<ulong> {{ *}}- Smallest loop depth for a region to count as a SCoP (default: 1)

func.func private @f()

func.func @kernel(%A: memref<10x10xf64>) {
  // expected-remark@+1 {{static control part: 1 loop nest, depth 2, 1 statement, 0 parameters}}
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      %a = affine.load %A[%i, %j] : memref<10x10xf64>
      affine.store %a, %A[%j, %i] : memref<10x10xf64>
    }
  }
  // expected-remark@+1 {{loop nest is not a static control part: call 'func.call' may have side effects}}
  affine.for %i = 0 to 10 {
    // expected-note@+1 {{'func.call' breaks the static control part here}}
    func.call @f() : () -> ()
  }
  return
}
