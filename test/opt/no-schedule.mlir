// A SCoP the scheduler gives up on (its Farkas elimination passes the
// Fourier-Motzkin row limit, whatever the machine's speed: a program of
// the fuzzer's mixed family, seed 116868) is not left unchanged when its
// original loop order has a parallel loop: @wide (the program inside a
// loop over 4 independent copies of its arrays) runs that loop in
// parallel, the order of everything else kept; @narrow (the program
// itself) has none and stays unchanged, with the remark saying why. The
// results must be identical, bit for bit, before and after (2 and 3
// OpenMP threads).
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: %polyrs-runner --threads=3 %t.mlir > %t.three
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.three
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=CODE
//
// SUMS-COUNT-6: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: no-schedule.mlir:[[@LINE+10]]:3: remark: poly-opt: {{.*}}original loop order kept (no schedule: scheduling ILP: limit exceeded: Fourier-Motzkin row count), loop at dimension 1 parallel; legality verified
// REMARK: no-schedule.mlir:[[@LINE+50]]:3: remark: poly-opt: SCoP left unchanged: no schedule: scheduling ILP: limit exceeded: Fourier-Motzkin row count; the original loop order has no parallel loop
//
// CODE-LABEL: func.func @wide
// CODE-NEXT: affine.parallel (%{{.*}}) = (0) to (4)
// CODE-LABEL: func.func @narrow
// CODE-NOT: affine.parallel
// CODE-LABEL: func.func @main

func.func @wide(%A0: memref<4xf64>, %A1: memref<4x5x10x13xf64>, %A2: memref<4x5xf64>) {
  affine.for %p = 0 to 4 {
    affine.for %i0 = 0 to 7 {
      affine.for %i1 = affine_map<(d0)[] -> ((d0 floordiv 2))>(%i0)[] to min affine_map<(d0)[] -> (6, (d0 + 4))>(%i0)[] {
        affine.for %i2 = affine_map<(d0)[] -> ((d0 - 1))>(%i1)[] to 6 step 2 {
          affine.for %i3 = affine_map<(d0)[] -> (d0)>(%i0)[] to affine_map<(d0)[] -> ((d0 + 3))>(%i1)[] {
            affine.if affine_set<(d0, d1)[] : ((d0 + (-d1)) >= 0)>(%i2, %i3)[] {
              %t1 = affine.load %A0[%p] : memref<4xf64>
              affine.store %t1, %A2[%p, ((%i0 + 2) floordiv 3)] : memref<4x5xf64>
            } else {
              %t2 = affine.load %A2[%p, (%i3 ceildiv 2)] : memref<4x5xf64>
              %t3 = arith.constant 1.25 : f64
              %t4 = arith.addf %t2, %t3 : f64
              affine.store %t4, %A0[%p] : memref<4xf64>
            }
          }
        }
      }
    }
    affine.for %i4 = 0 to 6 {
      affine.for %i5 = affine_map<(d0)[] -> ((d0 floordiv 2))>(%i4)[] to affine_map<(d0)[] -> ((d0 + 3))>(%i4)[] {
        affine.for %i6 = 0 to 8 {
          affine.if affine_set<(d0)[] : ((d0 - 4) >= 0)>(%i5)[] {
            %t5 = affine.load %A1[%p, (%i4 - 1), (%i5 + 2), (((-%i4) + 7) + %i6)] : memref<4x5x10x13xf64>
            affine.store %t5, %A0[%p] : memref<4xf64>
          }
          affine.if affine_set<(d0, d1)[] : (d0 == 0, (d1 mod 2) == 0)>(%i6, %i5)[] {
            %t6 = affine.load %A0[%p] : memref<4xf64>
            %t7 = arith.constant 2.0 : f64
            %t8 = affine.load %A2[%p, (%i5 mod 4)] : memref<4x5xf64>
            %t9 = arith.mulf %t7, %t8 : f64
            %t10 = arith.addf %t6, %t9 : f64
            affine.store %t10, %A0[%p] : memref<4xf64>
          }
        }
      }
    }
  }
  return
}

func.func @narrow(%A0: memref<f64>, %A1: memref<5x10x13xf64>, %A2: memref<5xf64>) {
  affine.for %i0 = 0 to 7 {
    affine.for %i1 = affine_map<(d0)[] -> ((d0 floordiv 2))>(%i0)[] to min affine_map<(d0)[] -> (6, (d0 + 4))>(%i0)[] {
      affine.for %i2 = affine_map<(d0)[] -> ((d0 - 1))>(%i1)[] to 6 step 2 {
        affine.for %i3 = affine_map<(d0)[] -> (d0)>(%i0)[] to affine_map<(d0)[] -> ((d0 + 3))>(%i1)[] {
          affine.if affine_set<(d0, d1)[] : ((d0 + (-d1)) >= 0)>(%i2, %i3)[] {
            %t1 = affine.load %A0[] : memref<f64>
            affine.store %t1, %A2[((%i0 + 2) floordiv 3)] : memref<5xf64>
          } else {
            %t2 = affine.load %A2[(%i3 ceildiv 2)] : memref<5xf64>
            %t3 = arith.constant 1.25 : f64
            %t4 = arith.addf %t2, %t3 : f64
            affine.store %t4, %A0[] : memref<f64>
          }
        }
      }
    }
  }
  affine.for %i4 = 0 to 6 {
    affine.for %i5 = affine_map<(d0)[] -> ((d0 floordiv 2))>(%i4)[] to affine_map<(d0)[] -> ((d0 + 3))>(%i4)[] {
      affine.for %i6 = 0 to 8 {
        affine.if affine_set<(d0)[] : ((d0 - 4) >= 0)>(%i5)[] {
          %t5 = affine.load %A1[(%i4 - 1), (%i5 + 2), (((-%i4) + 7) + %i6)] : memref<5x10x13xf64>
          affine.store %t5, %A0[] : memref<f64>
        }
        affine.if affine_set<(d0, d1)[] : (d0 == 0, (d1 mod 2) == 0)>(%i6, %i5)[] {
          %t6 = affine.load %A0[] : memref<f64>
          %t7 = arith.constant 2.0 : f64
          %t8 = affine.load %A2[(%i5 mod 4)] : memref<5xf64>
          %t9 = arith.mulf %t7, %t8 : f64
          %t10 = arith.addf %t6, %t9 : f64
          affine.store %t10, %A0[] : memref<f64>
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
  %c2600 = arith.constant 2600 : index
  %c20 = arith.constant 20 : index
  %b0 = memref.alloc(%c4) : memref<?xf64>
  %b1 = memref.alloc(%c2600) : memref<?xf64>
  %b2 = memref.alloc(%c20) : memref<?xf64>
  func.call @fill(%b0) : (memref<?xf64>) -> ()
  func.call @fill(%b1) : (memref<?xf64>) -> ()
  func.call @fill(%b2) : (memref<?xf64>) -> ()
  %w0 = memref.reinterpret_cast %b0 to offset: [0], sizes: [4], strides: [1] : memref<?xf64> to memref<4xf64>
  %w1 = memref.reinterpret_cast %b1 to offset: [0], sizes: [4, 5, 10, 13], strides: [650, 130, 13, 1] : memref<?xf64> to memref<4x5x10x13xf64>
  %w2 = memref.reinterpret_cast %b2 to offset: [0], sizes: [4, 5], strides: [5, 1] : memref<?xf64> to memref<4x5xf64>
  func.call @wide(%w0, %w1, %w2) : (memref<4xf64>, memref<4x5x10x13xf64>, memref<4x5xf64>) -> ()
  func.call @sum(%b0) : (memref<?xf64>) -> ()
  func.call @sum(%b1) : (memref<?xf64>) -> ()
  func.call @sum(%b2) : (memref<?xf64>) -> ()
  func.call @fill(%b0) : (memref<?xf64>) -> ()
  func.call @fill(%b1) : (memref<?xf64>) -> ()
  func.call @fill(%b2) : (memref<?xf64>) -> ()
  %n0 = memref.reinterpret_cast %b0 to offset: [0], sizes: [], strides: [] : memref<?xf64> to memref<f64>
  %n1 = memref.reinterpret_cast %b1 to offset: [0], sizes: [5, 10, 13], strides: [130, 13, 1] : memref<?xf64> to memref<5x10x13xf64>
  %n2 = memref.reinterpret_cast %b2 to offset: [0], sizes: [5], strides: [1] : memref<?xf64> to memref<5xf64>
  func.call @narrow(%n0, %n1, %n2) : (memref<f64>, memref<5x10x13xf64>, memref<5xf64>) -> ()
  func.call @sum(%b0) : (memref<?xf64>) -> ()
  func.call @sum(%b1) : (memref<?xf64>) -> ()
  func.call @sum(%b2) : (memref<?xf64>) -> ()
  memref.dealloc %b0 : memref<?xf64>
  memref.dealloc %b1 : memref<?xf64>
  memref.dealloc %b2 : memref<?xf64>
  return
}
