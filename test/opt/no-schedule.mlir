// A SCoP the scheduler gives up on is not left unchanged when its
// original loop order has a parallel loop: @wide (the program inside a
// loop over 4 independent copies of its array) runs that loop in
// parallel, the order of everything else kept; @narrow (the program
// itself) has none and stays unchanged, with the remark saying why. The
// results must be identical, bit for bit, before and after (2 and 3
// OpenMP threads).
//
// The program (the fuzzer's mixed family, seed 131525: one scalar that
// every statement reads and writes, under parametric bounds) makes Farkas
// systems of up to 715 rows, 652 of them facets, and then a
// Fourier-Motzkin step past its row limit, alone and inside the loop over
// copies (about 10 s each in the debug build on this project's 2-core
// machines): without a time budget, the reason the scheduler gives up
// does not depend on the machine's speed or load (with one, the share
// left to the original loop order could run out too).
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false time-budget=0' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: %polyrs-runner --threads=3 %t.mlir > %t.three
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.three
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=CODE
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: no-schedule.mlir:[[@LINE+10]]:3: remark: poly-opt: {{.*}}original loop order kept (no schedule: scheduling ILP: limit exceeded: Fourier-Motzkin row count), loop at dimension 1 parallel; legality verified
// REMARK: no-schedule.mlir:[[@LINE+57]]:3: remark: poly-opt: SCoP left unchanged: no schedule: scheduling ILP: limit exceeded: Fourier-Motzkin row count; the original loop order has no parallel loop
//
// CODE-LABEL: func.func @wide
// CODE-NEXT: affine.parallel (%{{.*}}) = (0) to (4)
// CODE-LABEL: func.func @narrow
// CODE-NOT: affine.parallel
// CODE-LABEL: func.func @main

func.func @wide(%n0: index, %n1: index, %A0: memref<4xf64>) {
  affine.for %p = 0 to 4 {
    affine.for %i0 = max affine_map<()[s0] -> ((s0 - 8), 0)>()[%n0] to affine_map<()[s0] -> ((s0 - 1))>()[%n1] {
      affine.for %i1 = 0 to affine_map<()[s0] -> ((s0 - 1))>()[%n1] {
        affine.for %i2 = max affine_map<()[s0] -> ((s0 - 7), 0)>()[%n0] to 4 {
          affine.for %i3 = 2 to affine_map<()[s0] -> ((s0 - 1))>()[%n1] {
            %t1 = arith.constant 0.5 : f64
            %t2 = affine.load %A0[%p] : memref<4xf64>
            %t3 = affine.load %A0[%p] : memref<4xf64>
            %t4 = arith.addf %t2, %t3 : f64
            %t5 = arith.mulf %t1, %t4 : f64
            affine.store %t5, %A0[%p] : memref<4xf64>
          }
          affine.if affine_set<(d0)[] : (d0 == 0)>(%i0)[] {
            %t6 = affine.load %A0[%p] : memref<4xf64>
            %t7 = affine.load %A0[%p] : memref<4xf64>
            %t8 = arith.mulf %t6, %t7 : f64
            affine.store %t8, %A0[%p] : memref<4xf64>
          }
        }
        affine.for %i4 = max affine_map<(d0)[] -> (0, (d0 - 3))>(%i1)[] to affine_map<()[s0] -> (s0)>()[%n0] {
          affine.for %i5 = max affine_map<()[s0] -> ((s0 - 8), 0)>()[%n1] to affine_map<(d0)[] -> (((d0 floordiv 2) + 2))>(%i4)[] {
            affine.if affine_set<(d0)[s0] : ((s0 + ((-d0) - 2)) >= 0, (d0 - 3) == 0)>(%i0)[%n1] {
              %t9 = affine.load %A0[%p] : memref<4xf64>
              %t10 = affine.load %A0[%p] : memref<4xf64>
              %t11 = affine.load %A0[%p] : memref<4xf64>
              %t12 = arith.mulf %t10, %t11 : f64
              %t13 = arith.addf %t9, %t12 : f64
              affine.store %t13, %A0[%p] : memref<4xf64>
            }
            affine.if affine_set<(d0, d1)[] : ((d0 - 2) >= 0, (d1 - 4) >= 0)>(%i5, %i0)[] {
              %t14 = affine.load %A0[%p] : memref<4xf64>
              affine.store %t14, %A0[%p] : memref<4xf64>
            }
            affine.if affine_set<(d0)[] : ((d0 - 3) >= 0)>(%i4)[] {
              %t15 = arith.constant 0.5 : f64
              %t16 = affine.load %A0[%p] : memref<4xf64>
              %t17 = arith.mulf %t15, %t16 : f64
              affine.store %t17, %A0[%p] : memref<4xf64>
            }
          }
        }
      }
    }
  }
  return
}

func.func @narrow(%n0: index, %n1: index, %A0: memref<f64>) {
  affine.for %i0 = max affine_map<()[s0] -> ((s0 - 8), 0)>()[%n0] to affine_map<()[s0] -> ((s0 - 1))>()[%n1] {
    affine.for %i1 = 0 to affine_map<()[s0] -> ((s0 - 1))>()[%n1] {
      affine.for %i2 = max affine_map<()[s0] -> ((s0 - 7), 0)>()[%n0] to 4 {
        affine.for %i3 = 2 to affine_map<()[s0] -> ((s0 - 1))>()[%n1] {
          %t1 = arith.constant 0.5 : f64
          %t2 = affine.load %A0[] : memref<f64>
          %t3 = affine.load %A0[] : memref<f64>
          %t4 = arith.addf %t2, %t3 : f64
          %t5 = arith.mulf %t1, %t4 : f64
          affine.store %t5, %A0[] : memref<f64>
        }
        affine.if affine_set<(d0)[] : (d0 == 0)>(%i0)[] {
          %t6 = affine.load %A0[] : memref<f64>
          %t7 = affine.load %A0[] : memref<f64>
          %t8 = arith.mulf %t6, %t7 : f64
          affine.store %t8, %A0[] : memref<f64>
        }
      }
      affine.for %i4 = max affine_map<(d0)[] -> (0, (d0 - 3))>(%i1)[] to affine_map<()[s0] -> (s0)>()[%n0] {
        affine.for %i5 = max affine_map<()[s0] -> ((s0 - 8), 0)>()[%n1] to affine_map<(d0)[] -> (((d0 floordiv 2) + 2))>(%i4)[] {
          affine.if affine_set<(d0)[s0] : ((s0 + ((-d0) - 2)) >= 0, (d0 - 3) == 0)>(%i0)[%n1] {
            %t9 = affine.load %A0[] : memref<f64>
            %t10 = affine.load %A0[] : memref<f64>
            %t11 = affine.load %A0[] : memref<f64>
            %t12 = arith.mulf %t10, %t11 : f64
            %t13 = arith.addf %t9, %t12 : f64
            affine.store %t13, %A0[] : memref<f64>
          }
          affine.if affine_set<(d0, d1)[] : ((d0 - 2) >= 0, (d1 - 4) >= 0)>(%i5, %i0)[] {
            %t14 = affine.load %A0[] : memref<f64>
            affine.store %t14, %A0[] : memref<f64>
          }
          affine.if affine_set<(d0)[] : ((d0 - 3) >= 0)>(%i4)[] {
            %t15 = arith.constant 0.5 : f64
            %t16 = affine.load %A0[] : memref<f64>
            %t17 = arith.mulf %t15, %t16 : f64
            affine.store %t17, %A0[] : memref<f64>
          }
        }
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// Prints the bits of sum over cells of cell * (1 + index mod 7), the
// array seen as N doubles.
func.func @sum(%a: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %a[%i] : memref<?xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%i)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %p = arith.mulf %v, %wf : f64
    %r = arith.addf %acc, %p : f64
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

// a[i] = ((37 i + 11) mod 97) / 97 + 0.5.
func.func @fill(%a: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %f97 = arith.constant 97.0 : f64
  %half = arith.constant 0.5 : f64
  scf.for %i = %c0 to %n step %c1 {
    %w = affine.apply affine_map<(d0) -> ((d0 * 37 + 11) mod 97)>(%i)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %d = arith.divf %wf, %f97 : f64
    %v = arith.addf %d, %half : f64
    memref.store %v, %a[%i] : memref<?xf64>
  }
  return
}

func.func @main() {
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %c6 = arith.constant 6 : index
  %b0 = memref.alloc(%c4) : memref<?xf64>
  func.call @fill(%b0) : (memref<?xf64>) -> ()
  %w0 = memref.reinterpret_cast %b0 to offset: [0], sizes: [4], strides: [1] : memref<?xf64> to memref<4xf64>
  func.call @wide(%c12, %c6, %w0) : (index, index, memref<4xf64>) -> ()
  func.call @sum(%b0) : (memref<?xf64>) -> ()
  func.call @fill(%b0) : (memref<?xf64>) -> ()
  %n0 = memref.reinterpret_cast %b0 to offset: [0], sizes: [], strides: [] : memref<?xf64> to memref<f64>
  func.call @narrow(%c12, %c6, %n0) : (index, index, memref<f64>) -> ()
  func.call @sum(%b0) : (memref<?xf64>) -> ()
  memref.dealloc %b0 : memref<?xf64>
  return
}
