// When the emitted-code check catches a bug (a deliberate one here,
// emit-test-mutation=duplicate: the first statement instance emitted twice),
// the SCoP is left exactly as the input had it, not as poly-opt prepared it
// for its model: the loop carrying a value through iter_args comes back
// (not the memory cell it was demoted to), the dot product into %out is one
// loop again (not split into one block per thread), and no operation keeps
// the fastmath flags (reassoc, contract) that the rewrite set for the new
// code to clone. The output prints as the input does.
//
// RUN: %polyrs-opt %s > %t.plain
//
// Without the bug, both preparations are taken (the rewrite needs them).
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false reassociate=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// OK: remark: poly-opt: {{.*}}the reduction into arg2 (addf) over the whole nest split into 2 blocks{{.*}}emitted code re-checked by interpretation
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false emit-test-mutation=duplicate' 2> %t.d.remarks > %t.d.mlir
// RUN: FileCheck %s --check-prefix=BUG --input-file=%t.d.remarks
// RUN: diff %t.plain %t.d.mlir
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false emit-test-mutation=duplicate reassociate=true' 2> %t.r.remarks > %t.r.mlir
// RUN: FileCheck %s --check-prefix=BUG --input-file=%t.r.remarks
// RUN: diff %t.plain %t.r.mlir
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false emit-test-mutation=duplicate reassociate=true contract=true' 2> %t.c.remarks > %t.c.mlir
// RUN: FileCheck %s --check-prefix=BUG --input-file=%t.c.remarks
// RUN: diff %t.plain %t.c.mlir
// BUG: warning: poly-opt: internal error: the rewritten code does not compute what the SCoP computed: {{.*}}; the SCoP is left unchanged
// BUG-NOT: remark: poly-opt:

func.func @g(%x: memref<256xf64>, %z: memref<256xf64>, %out: memref<f64>, %r: memref<f64>) {
  %cst = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  affine.for %k = 0 to 256 {
    %v = affine.load %x[%k] : memref<256xf64>
    %w = arith.addf %v, %one : f64
    affine.store %w, %x[%k] : memref<256xf64>
  }
  %s = affine.for %j = 0 to 256 iter_args(%acc = %cst) -> (f64) {
    %a = affine.load %x[%j] : memref<256xf64>
    %b = affine.load %z[%j] : memref<256xf64>
    %m = arith.mulf %a, %b : f64
    %n = arith.addf %acc, %m : f64
    affine.yield %n : f64
  }
  affine.store %s, %r[] : memref<f64>
  affine.for %j = 0 to 256 {
    %o = affine.load %out[] : memref<f64>
    %a = affine.load %x[%j] : memref<256xf64>
    %b = affine.load %z[%j] : memref<256xf64>
    %m = arith.mulf %a, %b : f64
    %n = arith.addf %o, %m : f64
    affine.store %n, %out[] : memref<f64>
  }
  return
}
