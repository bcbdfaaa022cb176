// poly-opt computes exactly what its input computes: each kernel below runs
// before and after the transformation (parallel loops on 2 OpenMP threads)
// and the printed checksums must be identical, digit for digit. The kernels
// are the cases the upstream affine passes get wrong (design notes): an
// in-place Gauss-Seidel stencil, nests that communicate through a small
// temporary array, a two-statement time-stepped stencil; plus symbolic
// bounds, an if/else and partial tiles (tile size 7).
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' | %polyrs-runner --threads=2 - > %t.default
// RUN: %polyrs-opt %s --poly-opt='%{avx512} tile-sizes=7 profitability=false' | %polyrs-runner --threads=2 - > %t.seven
// RUN: %polyrs-opt %s --poly-opt='%{avx512} fuse=max tile-sizes=3,5 profitability=false' | %polyrs-runner --threads=2 - > %t.fused
// RUN: diff %t.before %t.default
// RUN: diff %t.before %t.seven
// RUN: %polyrs-opt %s --poly-opt='%{avx512} unroll-jam=4 noalias=true profitability=false' | %polyrs-runner --threads=2 - > %t.jam
// RUN: diff %t.before %t.fused
// RUN: diff %t.before %t.jam
// RUN: %polyrs-opt %s --poly-opt='%{avx512} register-tile-sizes=3,5 tile-sizes=30 profitability=false' 2>%t.rt.remarks | %polyrs-runner --threads=2 - > %t.rt
// RUN: diff %t.before %t.rt
// RUN: FileCheck %s --input-file=%t.rt.remarks --check-prefix=RT
// RT: register tile 3x5
// RUN: FileCheck %s --input-file=%t.before
// Every kernel printed one checksum:
// CHECK-COUNT-10: {{[0-9]}}
//
// The transformation did happen (one remark per SCoP, none left unchanged):
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK-NOT: left unchanged
// REMARK-COUNT-8: remark: poly-opt:

func.func private @printI64(i64)
func.func private @printNewline()

// Symbolic bounds.
func.func @transpose(%A: memref<?x?xf64>, %B: memref<?x?xf64>, %n: index, %m: index) {
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %v = affine.load %A[%i, %j] : memref<?x?xf64>
      affine.store %v, %B[%j, %i] : memref<?x?xf64>
    }
  }
  return
}

// In-place Gauss-Seidel in 1-D over time: skewing is required to tile it.
func.func @seidel(%A: memref<?xf64>, %n: index, %t: index) {
  %c3 = arith.constant 3.0 : f64
  affine.for %s = 0 to %t {
    affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
      %a = affine.load %A[%i - 1] : memref<?xf64>
      %b = affine.load %A[%i] : memref<?xf64>
      %c = affine.load %A[%i + 1] : memref<?xf64>
      %ab = arith.addf %a, %b : f64
      %abc = arith.addf %ab, %c : f64
      %d = arith.divf %abc, %c3 : f64
      affine.store %d, %A[%i] : memref<?xf64>
    }
  }
  return
}

// Two nests that communicate through a small temporary: the second reads
// what the last iteration of the first left in T (fusing the i loops would
// be wrong).
func.func @temporary(%A: memref<40x30xf64>, %T: memref<30xf64>, %B: memref<40x30xf64>) {
  %c2 = arith.constant 2.0 : f64
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 30 {
      %a = affine.load %A[%i, %j] : memref<40x30xf64>
      %b = arith.mulf %a, %c2 : f64
      affine.store %b, %T[%j] : memref<30xf64>
    }
  }
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 29 {
      %t0 = affine.load %T[%j] : memref<30xf64>
      %t1 = affine.load %T[%j + 1] : memref<30xf64>
      %a = affine.load %A[%i, %j] : memref<40x30xf64>
      %s = arith.addf %t0, %t1 : f64
      %r = arith.subf %s, %a : f64
      affine.store %r, %B[%i, %j] : memref<40x30xf64>
    }
  }
  return
}

// Two statements per time step (Jacobi 1-D).
func.func @jacobi(%A: memref<60xf64>, %B: memref<60xf64>) {
  %c3 = arith.constant 3.0 : f64
  affine.for %t = 0 to 20 {
    affine.for %i = 1 to 59 {
      %a = affine.load %A[%i - 1] : memref<60xf64>
      %b = affine.load %A[%i] : memref<60xf64>
      %c = affine.load %A[%i + 1] : memref<60xf64>
      %s = arith.addf %a, %b : f64
      %s2 = arith.addf %s, %c : f64
      %d = arith.divf %s2, %c3 : f64
      affine.store %d, %B[%i] : memref<60xf64>
    }
    affine.for %i = 1 to 59 {
      %a = affine.load %B[%i - 1] : memref<60xf64>
      %b = affine.load %B[%i] : memref<60xf64>
      %c = affine.load %B[%i + 1] : memref<60xf64>
      %s = arith.addf %a, %b : f64
      %s2 = arith.addf %s, %c : f64
      %d = arith.divf %s2, %c3 : f64
      affine.store %d, %A[%i] : memref<60xf64>
    }
  }
  return
}

// An if/else inside the nest: the else branch reads the other triangle.
func.func @guarded(%A: memref<50x50xf64>, %x: f64) {
  affine.for %i = 0 to 50 {
    affine.for %j = 0 to 50 {
      affine.if affine_set<(d0, d1) : (d0 - d1 >= 0)>(%i, %j) {
        %v = affine.load %A[%i, %j] : memref<50x50xf64>
        %w = arith.addf %v, %x : f64
        affine.store %w, %A[%i, %j] : memref<50x50xf64>
      } else {
        %v = affine.load %A[%j, %i] : memref<50x50xf64>
        affine.store %v, %A[%i, %j] : memref<50x50xf64>
      }
    }
  }
  return
}

// A matrix product with a reduction loop.
func.func @matmul(%A: memref<37x41xf64>, %B: memref<41x43xf64>, %C: memref<37x43xf64>) {
  affine.for %i = 0 to 37 {
    affine.for %j = 0 to 43 {
      affine.for %k = 0 to 41 {
        %a = affine.load %A[%i, %k] : memref<37x41xf64>
        %b = affine.load %B[%k, %j] : memref<41x43xf64>
        %c = affine.load %C[%i, %j] : memref<37x43xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<37x43xf64>
      }
    }
  }
  return
}

// ---- driver (not a SCoP: its loops call functions and use iter_args) ----

// Fills a 2-D array with (i * 7 + j * 3) mod 11 / 7.
func.func @fill2(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Σ A[i][j] · (1 + (i + 2j) mod 5).
func.func @sum2(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %m step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<?x?xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %p = arith.mulf %v, %wf : f64
      %n2 = arith.addf %a2, %p : f64
      scf.yield %n2 : f64
    }
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

// Fills and sums a 1-D array through a 1 x n view of a copy.
func.func @fill1(%A: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %T = memref.alloc(%c1, %n) : memref<?x?xf64>
  func.call @fill2(%T, %c1, %n) : (memref<?x?xf64>, index, index) -> ()
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %T[%c0, %i] : memref<?x?xf64>
    memref.store %v, %A[%i] : memref<?xf64>
  }
  memref.dealloc %T : memref<?x?xf64>
  return
}

func.func @sum1(%A: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %T = memref.alloc(%c1, %n) : memref<?x?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %A[%i] : memref<?xf64>
    memref.store %v, %T[%c0, %i] : memref<?x?xf64>
  }
  func.call @sum2(%T, %c1, %n) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %T : memref<?x?xf64>
  return
}

// A scalar temporary re-initialized in every (i, j) iteration: privatized
// (expanded per iteration) when that gives parallel loops; its final value
// is read after the loops.
func.func @privatized(%A: memref<40x30xf64>, %B: memref<30x30xf64>, %C: memref<40x30xf64>, %T: memref<1xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 30 {
      affine.store %z, %T[0] : memref<1xf64>
      affine.for %k = 0 to affine_map<(d0) -> (d0)>(%j) {
        %a = affine.load %A[%i, %k] : memref<40x30xf64>
        %b = affine.load %B[%k, %j] : memref<30x30xf64>
        %t = affine.load %T[0] : memref<1xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %t, %p : f64
        affine.store %s, %T[0] : memref<1xf64>
      }
      %t2 = affine.load %T[0] : memref<1xf64>
      %c = affine.load %C[%i, %j] : memref<40x30xf64>
      %r = arith.addf %t2, %c : f64
      affine.store %r, %C[%i, %j] : memref<40x30xf64>
    }
  }
  return
}

// A running sum carried across all iterations: not privatizable.
func.func @carried(%A: memref<40x30xf64>, %B: memref<40x30xf64>, %T: memref<1xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 30 {
      %t = affine.load %T[0] : memref<1xf64>
      %a = affine.load %A[%i, %j] : memref<40x30xf64>
      %s = arith.addf %t, %a : f64
      affine.store %s, %T[0] : memref<1xf64>
      %t2 = affine.load %T[0] : memref<1xf64>
      affine.store %t2, %B[%i, %j] : memref<40x30xf64>
    }
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c30 = arith.constant 30 : index
  %c37 = arith.constant 37 : index
  %c40 = arith.constant 40 : index
  %c41 = arith.constant 41 : index
  %c43 = arith.constant 43 : index
  %c50 = arith.constant 50 : index
  %c60 = arith.constant 60 : index
  %c70 = arith.constant 70 : index
  %c90 = arith.constant 90 : index
  %c100 = arith.constant 100 : index
  %c25 = arith.constant 25 : index
  %half = arith.constant 0.5 : f64

  // transpose 70 x 90
  %A = memref.alloc(%c70, %c90) : memref<?x?xf64>
  %B = memref.alloc(%c90, %c70) : memref<?x?xf64>
  func.call @fill2(%A, %c70, %c90) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill2(%B, %c90, %c70) : (memref<?x?xf64>, index, index) -> ()
  func.call @transpose(%A, %B, %c70, %c90) : (memref<?x?xf64>, memref<?x?xf64>, index, index) -> ()
  func.call @sum2(%B, %c90, %c70) : (memref<?x?xf64>, index, index) -> ()

  // seidel: n = 100, 25 steps
  %S = memref.alloc(%c100) : memref<?xf64>
  func.call @fill1(%S, %c100) : (memref<?xf64>, index) -> ()
  func.call @seidel(%S, %c100, %c25) : (memref<?xf64>, index, index) -> ()
  func.call @sum1(%S, %c100) : (memref<?xf64>, index) -> ()

  // temporary
  %TA = memref.alloc() : memref<40x30xf64>
  %TB = memref.alloc() : memref<40x30xf64>
  %TT = memref.alloc() : memref<30xf64>
  %TAd = memref.cast %TA : memref<40x30xf64> to memref<?x?xf64>
  %TBd = memref.cast %TB : memref<40x30xf64> to memref<?x?xf64>
  func.call @fill2(%TAd, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill2(%TBd, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @temporary(%TA, %TT, %TB) : (memref<40x30xf64>, memref<30xf64>, memref<40x30xf64>) -> ()
  func.call @sum2(%TBd, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()

  // jacobi
  %JA = memref.alloc() : memref<60xf64>
  %JB = memref.alloc() : memref<60xf64>
  %JAd = memref.cast %JA : memref<60xf64> to memref<?xf64>
  %JBd = memref.cast %JB : memref<60xf64> to memref<?xf64>
  func.call @fill1(%JAd, %c60) : (memref<?xf64>, index) -> ()
  func.call @fill1(%JBd, %c60) : (memref<?xf64>, index) -> ()
  func.call @jacobi(%JA, %JB) : (memref<60xf64>, memref<60xf64>) -> ()
  func.call @sum1(%JAd, %c60) : (memref<?xf64>, index) -> ()

  // guarded
  %G = memref.alloc() : memref<50x50xf64>
  %Gd = memref.cast %G : memref<50x50xf64> to memref<?x?xf64>
  func.call @fill2(%Gd, %c50, %c50) : (memref<?x?xf64>, index, index) -> ()
  func.call @guarded(%G, %half) : (memref<50x50xf64>, f64) -> ()
  func.call @sum2(%Gd, %c50, %c50) : (memref<?x?xf64>, index, index) -> ()

  // matmul
  %MA = memref.alloc() : memref<37x41xf64>
  %MB = memref.alloc() : memref<41x43xf64>
  %MC = memref.alloc() : memref<37x43xf64>
  %MAd = memref.cast %MA : memref<37x41xf64> to memref<?x?xf64>
  %MBd = memref.cast %MB : memref<41x43xf64> to memref<?x?xf64>
  %MCd = memref.cast %MC : memref<37x43xf64> to memref<?x?xf64>
  func.call @fill2(%MAd, %c37, %c41) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill2(%MBd, %c41, %c43) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill2(%MCd, %c37, %c43) : (memref<?x?xf64>, index, index) -> ()
  func.call @matmul(%MA, %MB, %MC) : (memref<37x41xf64>, memref<41x43xf64>, memref<37x43xf64>) -> ()
  func.call @sum2(%MCd, %c37, %c43) : (memref<?x?xf64>, index, index) -> ()
  // privatized: C, then the temporary's final value
  %PA = memref.alloc() : memref<40x30xf64>
  %PB = memref.alloc() : memref<30x30xf64>
  %PC = memref.alloc() : memref<40x30xf64>
  %PT = memref.alloc() : memref<1xf64>
  %PAd = memref.cast %PA : memref<40x30xf64> to memref<?x?xf64>
  %PBd = memref.cast %PB : memref<30x30xf64> to memref<?x?xf64>
  %PCd = memref.cast %PC : memref<40x30xf64> to memref<?x?xf64>
  %PTd = memref.cast %PT : memref<1xf64> to memref<?xf64>
  func.call @fill2(%PAd, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill2(%PBd, %c30, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill2(%PCd, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill1(%PTd, %c1) : (memref<?xf64>, index) -> ()
  func.call @privatized(%PA, %PB, %PC, %PT) : (memref<40x30xf64>, memref<30x30xf64>, memref<40x30xf64>, memref<1xf64>) -> ()
  func.call @sum2(%PCd, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum1(%PTd, %c1) : (memref<?xf64>, index) -> ()

  // carried: B, then the running sum
  %QB = memref.alloc() : memref<40x30xf64>
  %QBd = memref.cast %QB : memref<40x30xf64> to memref<?x?xf64>
  func.call @fill2(%QBd, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill1(%PTd, %c1) : (memref<?xf64>, index) -> ()
  func.call @carried(%PA, %QB, %PT) : (memref<40x30xf64>, memref<40x30xf64>, memref<1xf64>) -> ()
  func.call @sum2(%QBd, %c40, %c30) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum1(%PTd, %c1) : (memref<?xf64>, index) -> ()
  return
}
