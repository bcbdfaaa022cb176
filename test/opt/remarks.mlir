// One remark per SCoP and per rejected loop nest; what poly-opt cannot do
// exactly it leaves unchanged, and bad options are errors.
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>/dev/null | FileCheck %s
// RUN: not %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=0' 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not %polyrs-opt %s --poly-opt='%{avx512} fuse=sometimes' 2>&1 | FileCheck %s --check-prefix=FUSE
// RUN: %polyrs-opt %s --poly-opt='%{avx512} verify=false profitability=false' 2>&1 | FileCheck %s --check-prefix=NOVERIFY
// The same pass runs inside the stock mlir-opt through the plugin:
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(poly-opt{%{avx512} profitability=false}))' %s 2>&1 | FileCheck %s --check-prefix=PLUGIN

// A strided loop is modeled and scanned (test/opt/strides.mlir), but 500
// instances are too little work: with the default heuristics the nest stays
// as it was.
// REMARK: remarks.mlir:[[@LINE+2]]:3: remark: poly-opt: SCoP left unchanged: no profitable transformation: about {{[0-9]+}} statement instances in all, too few for tiles or parallel loops to pay
func.func @strided(%A: memref<100xf64>) {
  affine.for %i = 0 to 100 step 2 {
    affine.for %j = 0 to 10 {
      %v = affine.load %A[%i + %j floordiv 10] : memref<100xf64>
      affine.store %v, %A[%i] : memref<100xf64>
    }
  }
  return
}
// CHECK-LABEL: func.func @strided
// CHECK: affine.for %{{.*}} = 0 to 100 step 2 {

// A SCoP inside a non-affine loop: the outer counter is a parameter that
// only the statement uses, so the new loops do not need it as a symbol (see
// PLUGIN, which forces the rewrite). With the default heuristics, its 99 x 99
// instances are too little work: it stays as it is.
// REMARK: remarks.mlir:[[@LINE+5]]:5: remark: poly-opt: SCoP left unchanged: no profitable transformation: about {{[0-9]+}} statement instances in all, too few for tiles or parallel loops to pay
func.func @inside_scf(%A: memref<100x100xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %t = %c0 to %n step %c1 {
    affine.for %i = 0 to 99 {
      affine.for %j = 0 to 99 {
        %v = memref.load %A[%t, %j] : memref<100x100xf64>
        affine.store %v, %A[%i + 1, %j] : memref<100x100xf64>
      }
    }
  }
  return
}
// CHECK-LABEL: func.func @inside_scf
// CHECK: scf.for %[[T:.*]] = %{{.*}} to
// CHECK-NEXT: affine.for %{{.*}} = 0 to 99 {
// CHECK: memref.load %{{.*}}[%[[T]], %{{.*}}]

// Index arithmetic that could overflow 64 bits is outside the model: unrolled,
// i * 2^62 at i = 2 would fold to -2^63, which MLIR cannot even parse back.
// REMARK: remarks.mlir:[[@LINE+5]]:7: remark: poly-opt: SCoP left unchanged: not modeled exactly: an index expression with a coefficient above 2^31
func.func @huge_coefficient(%A: memref<?xf64>, %v: f64) {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 8 {
      %a = affine.load %A[%i * 4611686018427387904 + %j] : memref<?xf64>
      affine.store %a, %A[%i * 4611686018427387904 + %j + 1] : memref<?xf64>
    }
  }
  return
}
// CHECK-LABEL: func.func @huge_coefficient
// CHECK: 4611686018427387904

// A loop-carried SSA value is modeled in a memory cell (iter-args); this
// nest is too small to pay and comes back as it was.
// REMARK: remarks.mlir:[[@LINE+3]]:8: remark: poly-opt: SCoP left unchanged: no profitable transformation: about 100 statement instances
func.func @reduction(%A: memref<100xf64>) -> f64 {
  %z = arith.constant 0.0 : f64
  %s = affine.for %i = 0 to 100 iter_args(%a = %z) -> f64 {
    %v = affine.load %A[%i] : memref<100xf64>
    %n = arith.addf %a, %v : f64
    affine.yield %n : f64
  }
  return %s : f64
}
// CHECK-LABEL: func.func @reduction
// CHECK: affine.for %{{.*}} = 0 to 100 iter_args

// ZERO: error: {{.*}}invalid value '0' for option 'tile-sizes': tile sizes must be positive
// FUSE: invalid value 'sometimes' for option 'fuse': fuse must be smart, max or no
// NOVERIFY: remark: poly-opt: 1 statement, 4 loops (1 parallel), 0 guards; point loop φ0 moved innermost (stride-1 accesses); band of 2 loops tiled 32x32; target znver4 (
// NOVERIFY-NOT: legality verified
// PLUGIN: remark: poly-opt: 1 statement, 4 loops (1 parallel)
// PLUGIN: affine.parallel
