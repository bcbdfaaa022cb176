// Two nests over one matrix in transposed orders fused into one
// (passes/opt/transposed.rs): mvt's rows' sums x1[i] += A[i][j] * y1[j],
// then, in a nest of its own, the sums down the columns x2[i] += A[j][i] *
// y2[j]. The second nest, interchanged, reads A in the first's order
// (x2[j] += A[i][j] * y2[i]); fused with the first, it is bicg's shape,
// whose column sums are split into blocks with a private copy of x2 per
// thread (passes/opt/partials.rs): one parallel pass over A instead of two.
// Only where the split follows: with reassociate=true (floating point) or
// by default (integers: exact in any grouping); floating point by default
// keeps its nests. Not when the second nest reads what the first writes
// (mvtdep's x1). The values are small integers: every grouping gives the
// same sums (expected values worked out separately, not by polyrs:
// Python's integers).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>&1 | FileCheck %s --check-prefix=INT
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' | %polyrs-runner --threads=2 - > %t.default
// RUN: diff %t.before %t.default
// RUN: %polyrs-opt %s --poly-opt='cpu=haswell threads=2 reassociate=true' | %polyrs-runner --threads=2 - > %t.avx2
// RUN: diff %t.before %t.avx2
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true threads=3' | %polyrs-runner --threads=3 - > %t.three
// RUN: diff %t.before %t.three
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' | %polyrs-runner --threads=2 - > %t.int
// RUN: diff %t.before %t.int
//
// mvt's x1, x2; the integer mvt's; mvtdep's x1, x2.
// SUMS: 1575671
// SUMS-NEXT: 2355442
// SUMS-NEXT: 1575671
// SUMS-NEXT: 2355442
// SUMS-NEXT: 1575671
// SUMS-NEXT: 1209492037
// SUMS-NOT: {{.}}
//
// CHECK: remark: poly-opt: 4 statements, {{.*}}; the nest of the sums into arg2 interchanged and fused with the nest of arg1 (both read arg0 in one order); the reduction into arg2 (addf, a private copy of 3 KB per block) over its outer loop split into 2 blocks of 256 iterations of its outer loop{{.*}}; rows of each block along φ2 taken 8 at a time
// The integers: too few terms for a plan to pay (and the nests given back).
// CHECK: remark: poly-opt: SCoP left unchanged: no profitable transformation
// CHECK-NOT: interchanged
// CHECK-LABEL: func.func @mvt(
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x384xf64>
// One loop over j for both statements, A's cells of 8 rows loaded once for
// both, the copy's cell stored once per 8 rows.
// CHECK: affine.for %[[J:.*]] = 0 to 384 iter_args(
// CHECK-COUNT-8: affine.load %arg0[%{{.*}}, %[[J]]] : memref<512x384xf64>
// CHECK-NOT: affine.load %[[P]]
// CHECK: affine.store %{{.*}}, %[[P]][%{{.*}}, %[[J]]] : memref<2x384xf64>
// CHECK-NOT: affine.store
// CHECK: affine.yield
// CHECK-LABEL: func.func @imvt(
// CHECK-NOT: memref.alloc()
// CHECK-LABEL: func.func @mvtdep(
// CHECK-NOT: memref.alloc()
// CHECK: return
//
// Floating point by default: the nests stay apart.
// DEFAULT-NOT: interchanged
// DEFAULT-LABEL: func.func @mvt(
// DEFAULT-NOT: memref.alloc()
// DEFAULT-LABEL: func.func @imvt(
//
// Integers by default (without the profitability rules): fused and split.
// INT-NOT: interchanged
// INT: remark: poly-opt: 4 statements, {{.*}}; the nest of the sums into arg2 interchanged and fused with the nest of arg1 (both read arg0 in one order); the reduction into arg2 (addi, a private copy of 2 KB per block)
// INT-NOT: interchanged

func.func @mvt(%A: memref<512x384xf64>, %x1: memref<512xf64>, %x2: memref<384xf64>, %y1: memref<384xf64>, %y2: memref<512xf64>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 384 {
      %o = affine.load %x1[%i] : memref<512xf64>
      %a = affine.load %A[%i, %j] : memref<512x384xf64>
      %b = affine.load %y1[%j] : memref<384xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %o, %m : f64
      affine.store %n, %x1[%i] : memref<512xf64>
    }
  }
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 512 {
      %o = affine.load %x2[%i] : memref<384xf64>
      %a = affine.load %A[%j, %i] : memref<512x384xf64>
      %b = affine.load %y2[%j] : memref<512xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %o, %m : f64
      affine.store %n, %x2[%i] : memref<384xf64>
    }
  }
  return
}

func.func @imvt(%A: memref<512x384xi32>, %x1: memref<512xi32>, %x2: memref<384xi32>, %y1: memref<384xi32>, %y2: memref<512xi32>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 384 {
      %o = affine.load %x1[%i] : memref<512xi32>
      %a = affine.load %A[%i, %j] : memref<512x384xi32>
      %b = affine.load %y1[%j] : memref<384xi32>
      %m = arith.muli %a, %b : i32
      %n = arith.addi %o, %m : i32
      affine.store %n, %x1[%i] : memref<512xi32>
    }
  }
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 512 {
      %o = affine.load %x2[%i] : memref<384xi32>
      %a = affine.load %A[%j, %i] : memref<512x384xi32>
      %b = affine.load %y2[%j] : memref<512xi32>
      %m = arith.muli %a, %b : i32
      %n = arith.addi %o, %m : i32
      affine.store %n, %x2[%i] : memref<384xi32>
    }
  }
  return
}

// The second nest reads x1, which the first writes: kept apart.
func.func @mvtdep(%A: memref<512x384xf64>, %x1: memref<512xf64>, %x2: memref<384xf64>, %y1: memref<384xf64>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 384 {
      %o = affine.load %x1[%i] : memref<512xf64>
      %a = affine.load %A[%i, %j] : memref<512x384xf64>
      %b = affine.load %y1[%j] : memref<384xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %o, %m : f64
      affine.store %n, %x1[%i] : memref<512xf64>
    }
  }
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 512 {
      %o = affine.load %x2[%i] : memref<384xf64>
      %a = affine.load %A[%j, %i] : memref<512x384xf64>
      %b = affine.load %x1[%j] : memref<512xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %o, %m : f64
      affine.store %n, %x2[%i] : memref<384xf64>
    }
  }
  return
}

// sum of v[k] * (k mod 7 + 1), as an integer.
func.func @check512(%v: memref<512xf64>) -> i64 {
  %z = arith.constant 0.0 : f64
  %s = affine.for %k = 0 to 512 iter_args(%acc = %z) -> (f64) {
    %a = affine.load %v[%k] : memref<512xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %m = arith.mulf %a, %wf : f64
    %n = arith.addf %acc, %m : f64
    affine.yield %n : f64
  }
  %r = arith.fptosi %s : f64 to i64
  return %r : i64
}

func.func @check384(%v: memref<384xf64>) -> i64 {
  %z = arith.constant 0.0 : f64
  %s = affine.for %k = 0 to 384 iter_args(%acc = %z) -> (f64) {
    %a = affine.load %v[%k] : memref<384xf64>
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %m = arith.mulf %a, %wf : f64
    %n = arith.addf %acc, %m : f64
    affine.yield %n : f64
  }
  %r = arith.fptosi %s : f64 to i64
  return %r : i64
}

func.func @icheck512(%v: memref<512xi32>) -> i64 {
  %z = arith.constant 0 : i64
  %s = affine.for %k = 0 to 512 iter_args(%acc = %z) -> (i64) {
    %a = affine.load %v[%k] : memref<512xi32>
    %ai = arith.extsi %a : i32 to i64
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %m = arith.muli %ai, %wi : i64
    %n = arith.addi %acc, %m : i64
    affine.yield %n : i64
  }
  return %s : i64
}

func.func @icheck384(%v: memref<384xi32>) -> i64 {
  %z = arith.constant 0 : i64
  %s = affine.for %k = 0 to 384 iter_args(%acc = %z) -> (i64) {
    %a = affine.load %v[%k] : memref<384xi32>
    %ai = arith.extsi %a : i32 to i64
    %w = affine.apply affine_map<(d0) -> (d0 mod 7 + 1)>(%k)
    %wi = arith.index_cast %w : index to i64
    %m = arith.muli %ai, %wi : i64
    %n = arith.addi %acc, %m : i64
    affine.yield %n : i64
  }
  return %s : i64
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @print(%v: i64) {
  func.call @printI64(%v) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<512x384xf64>
  %Ai = memref.alloc() : memref<512x384xi32>
  %x1 = memref.alloc() : memref<512xf64>
  %x2 = memref.alloc() : memref<384xf64>
  %x1i = memref.alloc() : memref<512xi32>
  %x2i = memref.alloc() : memref<384xi32>
  %d1 = memref.alloc() : memref<512xf64>
  %d2 = memref.alloc() : memref<384xf64>
  %y1 = memref.alloc() : memref<384xf64>
  %y2 = memref.alloc() : memref<512xf64>
  %y1i = memref.alloc() : memref<384xi32>
  %y2i = memref.alloc() : memref<512xi32>
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 384 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5)>(%i, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f64
      affine.store %vf, %A[%i, %j] : memref<512x384xf64>
      affine.store %vi, %Ai[%i, %j] : memref<512x384xi32>
    }
  }
  affine.for %i = 0 to 512 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 4)>(%i)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f64
    affine.store %vf, %y2[%i] : memref<512xf64>
    affine.store %vi, %y2i[%i] : memref<512xi32>
    %w = affine.apply affine_map<(d0) -> (d0 mod 6)>(%i)
    %wi = arith.index_cast %w : index to i32
    %wf = arith.sitofp %wi : i32 to f64
    affine.store %wf, %x1[%i] : memref<512xf64>
    affine.store %wi, %x1i[%i] : memref<512xi32>
    affine.store %wf, %d1[%i] : memref<512xf64>
  }
  affine.for %j = 0 to 384 {
    %v = affine.apply affine_map<(d0) -> (d0 mod 3)>(%j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f64
    affine.store %vf, %y1[%j] : memref<384xf64>
    affine.store %vi, %y1i[%j] : memref<384xi32>
    %w = affine.apply affine_map<(d0) -> (d0 mod 2)>(%j)
    %wi = arith.index_cast %w : index to i32
    %wf = arith.sitofp %wi : i32 to f64
    affine.store %wf, %x2[%j] : memref<384xf64>
    affine.store %wi, %x2i[%j] : memref<384xi32>
    affine.store %wf, %d2[%j] : memref<384xf64>
  }
  func.call @mvt(%A, %x1, %x2, %y1, %y2) : (memref<512x384xf64>, memref<512xf64>, memref<384xf64>, memref<384xf64>, memref<512xf64>) -> ()
  func.call @imvt(%Ai, %x1i, %x2i, %y1i, %y2i) : (memref<512x384xi32>, memref<512xi32>, memref<384xi32>, memref<384xi32>, memref<512xi32>) -> ()
  func.call @mvtdep(%A, %d1, %d2, %y1) : (memref<512x384xf64>, memref<512xf64>, memref<384xf64>, memref<384xf64>) -> ()
  %c0 = func.call @check512(%x1) : (memref<512xf64>) -> i64
  func.call @print(%c0) : (i64) -> ()
  %c1 = func.call @check384(%x2) : (memref<384xf64>) -> i64
  func.call @print(%c1) : (i64) -> ()
  %c2 = func.call @icheck512(%x1i) : (memref<512xi32>) -> i64
  func.call @print(%c2) : (i64) -> ()
  %c3 = func.call @icheck384(%x2i) : (memref<384xi32>) -> i64
  func.call @print(%c3) : (i64) -> ()
  %c4 = func.call @check512(%d1) : (memref<512xf64>) -> i64
  func.call @print(%c4) : (i64) -> ()
  %c5 = func.call @check384(%d2) : (memref<384xf64>) -> i64
  func.call @print(%c5) : (i64) -> ()
  return
}
