// bicg as C front ends give it: the rows' sums q[i] carried in iter_args
// beside the column sums s[j] += r[i] * A[i][j] in the same loop. Once
// the carried value is a cell (passes/opt/demote.rs), one scalar cell for
// every row ties each row to the next: no parallel loop. Expanded per row
// (privatize), the cells are q's own, whose rows the fused schedule runs
// in the column sums' loops in transposed orders, still with no parallel
// loop; with each statement in a nest of its own (the privatize stage's
// second try), each has one, and the two nests' tiles are interleaved
// between the threads, as bicg's memref form is. Bit for bit with the
// default options. The values are small integers (expected sums worked out
// separately, not by polyrs: Python's integers).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 | FileCheck %s
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: %polyrs-opt %s --poly-opt='cpu=haswell threads=2' | %polyrs-runner --threads=2 - > %t.avx2
// RUN: diff %t.before %t.avx2
//
// SUMS: 8179884
// SUMS-NEXT: 12273000
// SUMS-NOT: {{.}}
//
// CHECK: remark: poly-opt: {{.*}}(3 parallel){{.*}}; temporary {{.*}} expanded per iteration (privatized);{{.*}} interleaved: one parallel loop over 2 threads
// CHECK-LABEL: func.func @bicg(
// CHECK: affine.parallel

func.func @bicg(%A: memref<1024x1000xf64>, %r: memref<1024xf64>, %p: memref<1000xf64>, %s: memref<1000xf64>, %q: memref<1024xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to 1024 {
    %ri = affine.load %r[%i] : memref<1024xf64>
    %t = affine.for %j = 0 to 1000 iter_args(%acc = %z) -> (f64) {
      %a = affine.load %A[%i, %j] : memref<1024x1000xf64>
      %o = affine.load %s[%j] : memref<1000xf64>
      %m = arith.mulf %ri, %a : f64
      %n = arith.addf %o, %m : f64
      affine.store %n, %s[%j] : memref<1000xf64>
      %pj = affine.load %p[%j] : memref<1000xf64>
      %m2 = arith.mulf %a, %pj : f64
      %n2 = arith.addf %acc, %m2 : f64
      affine.yield %n2 : f64
    }
    affine.store %t, %q[%i] : memref<1024xf64>
  }
  return
}

// sum of v[k] * (k mod 7 + 1), as an integer.
func.func @check(%v: memref<?xf64>) -> i64 {
  %c0 = arith.constant 0 : index
  %n = memref.dim %v, %c0 : memref<?xf64>
  %z = arith.constant 0.0 : f64
  %s = affine.for %k = 0 to %n iter_args(%acc = %z) -> (f64) {
    %a = affine.load %v[%k] : memref<?xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %m = arith.mulf %a, %wf : f64
    %x = arith.addf %acc, %m : f64
    affine.yield %x : f64
  }
  %r = arith.fptosi %s : f64 to i64
  return %r : i64
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() {
  %A = memref.alloc() : memref<1024x1000xf64>
  %r = memref.alloc() : memref<1024xf64>
  %p = memref.alloc() : memref<1000xf64>
  %s = memref.alloc() : memref<1000xf64>
  %q = memref.alloc() : memref<1024xf64>
  affine.for %i = 0 to 1024 {
    affine.for %j = 0 to 1000 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5)>(%i, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f64
      affine.store %vf, %A[%i, %j] : memref<1024x1000xf64>
    }
    %w = affine.apply affine_map<(d0) -> (d0 mod 3)>(%i)
    %wi = arith.index_cast %w : index to i32
    %wf = arith.sitofp %wi : i32 to f64
    affine.store %wf, %r[%i] : memref<1024xf64>
  }
  affine.for %j = 0 to 1000 {
    %w = affine.apply affine_map<(d0) -> (d0 mod 4)>(%j)
    %wi = arith.index_cast %w : index to i32
    %wf = arith.sitofp %wi : i32 to f64
    affine.store %wf, %p[%j] : memref<1000xf64>
    %u = affine.apply affine_map<(d0) -> (d0 mod 2)>(%j)
    %ui = arith.index_cast %u : index to i32
    %uf = arith.sitofp %ui : i32 to f64
    affine.store %uf, %s[%j] : memref<1000xf64>
  }
  func.call @bicg(%A, %r, %p, %s, %q) : (memref<1024x1000xf64>, memref<1024xf64>, memref<1000xf64>, memref<1000xf64>, memref<1024xf64>) -> ()
  %sd = memref.cast %s : memref<1000xf64> to memref<?xf64>
  %qd = memref.cast %q : memref<1024xf64> to memref<?xf64>
  %c0 = func.call @check(%sd) : (memref<?xf64>) -> i64
  func.call @printI64(%c0) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %c1 = func.call @check(%qd) : (memref<?xf64>) -> i64
  func.call @printI64(%c1) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}
