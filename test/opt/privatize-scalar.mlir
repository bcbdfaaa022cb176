// A scalar accumulator kept in a 0-d memref cell (the form a front end's
// `iter_args` take once demoted to memory): the cell ties every row of the
// matrix-vector product to the next, so the plan has no parallel loop; it
// is expanded per row (privatized) and the rows run in parallel, the cell
// getting the last row's value back after the loops. The results, the
// cell's included, must be identical, digit for digit (2 threads).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>&1 >/dev/null | FileCheck %s
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false privatize=false' 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// CHECK: remark: poly-opt: 3 statements, {{[0-9]+}} loops ({{[1-9][0-9]*}} parallel){{.*}}temporary {{.*}} expanded per iteration (privatized)
// OFF: remark: poly-opt: 3 statements, {{[0-9]+}} loops (0 parallel)

func.func @mv(%A: memref<256x256xf64>, %x: memref<256xf64>, %y: memref<256xf64>, %cell: memref<f64>) {
  %cst = arith.constant 0.0 : f64
  affine.for %i = 0 to 256 {
    affine.store %cst, %cell[] : memref<f64>
    affine.for %j = 0 to 256 {
      %acc = affine.load %cell[] : memref<f64>
      %a = affine.load %A[%i, %j] : memref<256x256xf64>
      %b = affine.load %x[%j] : memref<256xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %acc, %m : f64
      affine.store %n, %cell[] : memref<f64>
    }
    %s = affine.load %cell[] : memref<f64>
    affine.store %s, %y[%i] : memref<256xf64>
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c7 = arith.constant 7.0 : f64
  %z = arith.constant 0.0 : f64
  %A = memref.alloc() : memref<256x256xf64>
  %x = memref.alloc() : memref<256xf64>
  %y = memref.alloc() : memref<256xf64>
  %cell = memref.alloc() : memref<f64>
  scf.for %i = %c0 to %c256 step %c1 {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<256x256xf64>
    }
    %u = affine.apply affine_map<(d0) -> ((d0 * 5 + 2) mod 13)>(%i)
    %ui = arith.index_cast %u : index to i64
    %uf = arith.sitofp %ui : i64 to f64
    %uw = arith.divf %uf, %c7 : f64
    memref.store %uw, %x[%i] : memref<256xf64>
  }
  memref.store %z, %cell[] : memref<f64>
  func.call @mv(%A, %x, %y, %cell) : (memref<256x256xf64>, memref<256xf64>, memref<256xf64>, memref<f64>) -> ()
  // Σ y[i] · (1 + i mod 5), as bits; then the cell's bits.
  %s = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %y[%i] : memref<256xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 5 + 1)>(%i)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %p = arith.mulf %v, %wf : f64
    %n = arith.addf %acc, %p : f64
    scf.yield %n : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %c = memref.load %cell[] : memref<f64>
  %cb = arith.bitcast %c : f64 to i64
  func.call @printI64(%cb) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %A : memref<256x256xf64>
  memref.dealloc %x : memref<256xf64>
  memref.dealloc %y : memref<256xf64>
  memref.dealloc %cell : memref<f64>
  return
}
