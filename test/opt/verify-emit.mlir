// The emitted-code check (verify-emit): the SCoP and the code that replaces
// it run in an interpreter of symbolic values and must leave every cell with
// the same tree of operations. Two deliberate bugs of code generation
// (emit-test-mutation, applied after the loop tree's own check): a statement
// instance emitted twice, and one emitted one loop level too high. Each is
// caught: an internal-error warning, and the SCoP put back as it was (the
// program computes what it computed). Without the check (verify-emit=0) the
// same bugs reach the output and change the results.
//
// RUN: %polyrs-runner %s > %t.before
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.ok.remarks > %t.ok.mlir
// RUN: FileCheck %s --check-prefix=OK --input-file=%t.ok.remarks
// RUN: %polyrs-runner %t.ok.mlir | diff %t.before -
// OK: remark: poly-opt: {{.*}}legality verified; {{.*}}; emitted code re-checked by interpretation ({{[0-9]+}} operations)
// OK-NOT: warning
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false emit-test-mutation=duplicate' 2> %t.dup.remarks > %t.dup.mlir
// RUN: FileCheck %s --check-prefix=DUP --input-file=%t.dup.remarks
// RUN: %polyrs-runner %t.dup.mlir | diff %t.before -
// DUP: warning: poly-opt: internal error: the rewritten code does not compute what the SCoP computed: arg2 ends as addf({{.*}}) where the input leaves addf({{.*}}) (parameters none); the SCoP is left unchanged
// DUP-NOT: remark: poly-opt:
//
// The SCoP is back as it was: both loops and the load between them.
// RUN: FileCheck %s --check-prefix=BACK --input-file=%t.dup.mlir
// BACK-LABEL: func.func @f(
// BACK: affine.for %{{.*}} = 0 to 32 {
// BACK: memref.store
// BACK: }
// BACK-NEXT: memref.load %arg2[]
// BACK-NEXT: affine.for %{{.*}} = 0 to 64 {
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false emit-test-mutation=hoist' 2> %t.hoist.remarks > %t.hoist.mlir
// RUN: FileCheck %s --check-prefix=HOIST --input-file=%t.hoist.remarks
// RUN: %polyrs-runner %t.hoist.mlir | diff %t.before -
// HOIST: warning: poly-opt: internal error: the rewritten code does not compute what the SCoP computed: {{.*}}; the SCoP is left unchanged
//
// Without the check, the mutations reach the output and the results change.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false emit-test-mutation=duplicate verify-emit=0' | %polyrs-runner - > %t.dup.unchecked
// RUN: not diff %t.before %t.dup.unchecked
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false emit-test-mutation=hoist verify-emit=0' | %polyrs-runner - > %t.hoist.unchecked
// RUN: not diff %t.before %t.hoist.unchecked
//
// Past its budget the check is skipped, silently (the big kernels all are).
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false verify-emit=50' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: remark: poly-opt:
// BUDGET-NOT: re-checked
// BUDGET-NOT: warning
//
// A bad value of the testing option is refused.
// RUN: not %polyrs-opt %s --poly-opt='emit-test-mutation=twice' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: emit-test-mutation{{.*}}expected duplicate or hoist

func.func private @printI64(i64)
func.func private @printNewline()

// A sum into a 0-d cell, read back between the nests.
func.func @f(%A: memref<32xf64>, %B: memref<64xf64>, %sum: memref<f64>) {
  affine.for %d = 0 to 32 {
    %a = affine.load %A[%d] : memref<32xf64>
    %s0 = memref.load %sum[] : memref<f64>
    %t = arith.addf %s0, %a : f64
    memref.store %t, %sum[] : memref<f64>
  }
  %s = memref.load %sum[] : memref<f64>
  affine.for %i = 0 to 64 {
    %b = affine.load %B[%i] : memref<64xf64>
    %r = arith.mulf %b, %s : f64
    affine.store %r, %B[%i] : memref<64xf64>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 997.0 : f64
  %A = memref.alloc() : memref<32xf64>
  %B = memref.alloc() : memref<64xf64>
  %S = memref.alloc() : memref<f64>
  scf.for %i = %c0 to %c64 step %c1 {
    %ii = arith.index_cast %i : index to i64
    %x = arith.sitofp %ii : i64 to f64
    %y = arith.divf %x, %f : f64
    memref.store %y, %B[%i] : memref<64xf64>
    %lt = arith.cmpi ult, %i, %c32 : index
    scf.if %lt {
      %z = arith.addf %y, %y : f64
      memref.store %z, %A[%i] : memref<32xf64>
    }
  }
  %half = arith.constant 0.5 : f64
  memref.store %half, %S[] : memref<f64>
  func.call @f(%A, %B, %S) : (memref<32xf64>, memref<64xf64>, memref<f64>) -> ()
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %z) -> (i64) {
    %v = memref.load %B[%i] : memref<64xf64>
    %bits = arith.bitcast %v : f64 to i64
    %ii = arith.index_cast %i : index to i64
    %w = arith.addi %ii, %one : i64
    %q = arith.muli %bits, %w : i64
    %nx = arith.addi %acc, %q : i64
    scf.yield %nx : i64
  }
  func.call @printI64(%s) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sv = memref.load %S[] : memref<f64>
  %sb = arith.bitcast %sv : f64 to i64
  func.call @printI64(%sb) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
