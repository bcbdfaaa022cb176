// Parallel tile loops for some statements of a band: gramschmidt's band
// of `R[k][j] += Q[i][k] * A[i][j]` and `A[i][j] -= Q[i][k] * R[k][j]`
// (parallel along j) also holds the norm's reduction along i, in a loop of
// its own (an outer scalar dimension splits them). The band's first
// dimension is parallel for every statement but the norm's, whose tiles
// form a line: those run in order, the others' in parallel, and no
// wavefront of tiles is restarted at every k (the plan before: 1.8x slower
// at LARGE). The results must be identical, digit for digit, before and
// after (parallel loops on 2 OpenMP threads), with the default tiles and
// partial ones.
//
// With embed=false throughout: embedded (test/opt/embed.mlir), the norm and
// the division would join k and j in one tiled band instead.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false embed=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false embed=false tile-sizes=7' | %polyrs-runner --threads=2 - > %t.seven
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.seven
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false embed=false' 2>/dev/null | FileCheck %s
//
// SUMS-COUNT-3: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: 7 statements, {{.*}}tile loop of φ3 parallel for S0, S2, S3, S4, S5, S6 only (S1 in order: loops of their own, along one dimension of the band);{{.*}}legality verified
// REMARK-NOT: wavefront
//
// The zeroing of R[k][j] first, in a nest of its own; then, inside the k
// loop: the norm's tiles in order, then the division and both updates
// over parallel tiles (the updates in one loop over tiles of j:
// test/opt/tile-fusion.mlir).
// CHECK-LABEL: func.func @gs
// CHECK: affine.for %{{.*}} = 0 to 44 {
// CHECK-NEXT: affine.parallel
// CHECK: affine.for %{{.*}} = 0 to 44 {
// CHECK-NEXT: affine.store %{{.*}}, %{{.*}}[0] : memref<1xf64>
// CHECK-NEXT: affine.for
// CHECK-NOT: affine.for %{{.*}} = 0 to 44
// CHECK: affine.parallel
// CHECK-NOT: affine.for %{{.*}} = 0 to 44
// CHECK: affine.parallel

func.func private @printI64(i64)
func.func private @printNewline()

func.func @gs(%A: memref<37x45xf64>, %R: memref<45x45xf64>, %Q: memref<37x45xf64>, %nrm: memref<1xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %k = 0 to 45 {
    affine.store %z, %nrm[0] : memref<1xf64>
    affine.for %i = 0 to 37 {
      %a = affine.load %nrm[0] : memref<1xf64>
      %b = affine.load %A[%i, %k] : memref<37x45xf64>
      %c = arith.mulf %b, %b : f64
      %d = arith.addf %a, %c : f64
      affine.store %d, %nrm[0] : memref<1xf64>
    }
    %e = affine.load %nrm[0] : memref<1xf64>
    %f = math.sqrt %e : f64
    affine.store %f, %R[%k, %k] : memref<45x45xf64>
    affine.for %i = 0 to 37 {
      %g = affine.load %A[%i, %k] : memref<37x45xf64>
      %h = affine.load %R[%k, %k] : memref<45x45xf64>
      %q = arith.divf %g, %h : f64
      affine.store %q, %Q[%i, %k] : memref<37x45xf64>
    }
    affine.for %j = affine_map<(d0) -> (d0 + 1)>(%k) to 45 {
      affine.store %z, %R[%k, %j] : memref<45x45xf64>
      affine.for %i = 0 to 37 {
        %r = affine.load %R[%k, %j] : memref<45x45xf64>
        %s = affine.load %Q[%i, %k] : memref<37x45xf64>
        %t = affine.load %A[%i, %j] : memref<37x45xf64>
        %u = arith.mulf %s, %t : f64
        %v = arith.addf %r, %u : f64
        affine.store %v, %R[%k, %j] : memref<45x45xf64>
      }
      affine.for %i = 0 to 37 {
        %w = affine.load %A[%i, %j] : memref<37x45xf64>
        %x = affine.load %Q[%i, %k] : memref<37x45xf64>
        %y = affine.load %R[%k, %j] : memref<45x45xf64>
        %m = arith.mulf %x, %y : f64
        %n = arith.subf %w, %m : f64
        affine.store %n, %A[%i, %j] : memref<37x45xf64>
      }
    }
  }
  return
}

func.func @fill(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      %x = arith.addf %w, %one : f64
      memref.store %x, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Prints the bits of the sum of A[i][j] * (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<?x?xf64>, %n: index, %m: index) {
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

func.func @main() {
  %c1 = arith.constant 1 : index
  %c37 = arith.constant 37 : index
  %c45 = arith.constant 45 : index
  %A = memref.alloc() : memref<37x45xf64>
  %R = memref.alloc() : memref<45x45xf64>
  %Q = memref.alloc() : memref<37x45xf64>
  %nrm = memref.alloc() : memref<1xf64>
  %Ad = memref.cast %A : memref<37x45xf64> to memref<?x?xf64>
  %Rd = memref.cast %R : memref<45x45xf64> to memref<?x?xf64>
  %Qd = memref.cast %Q : memref<37x45xf64> to memref<?x?xf64>
  func.call @fill(%Ad, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Rd, %c45, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Qd, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @gs(%A, %R, %Q, %nrm) : (memref<37x45xf64>, memref<45x45xf64>, memref<37x45xf64>, memref<1xf64>) -> ()
  func.call @sum(%Ad, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%Rd, %c45, %c45) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%Qd, %c37, %c45) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %A : memref<37x45xf64>
  memref.dealloc %R : memref<45x45xf64>
  memref.dealloc %Q : memref<37x45xf64>
  memref.dealloc %nrm : memref<1xf64>
  return
}
