// RUN: %polyrs-opt %s --split-input-file --mlir-disable-threading --pass-pipeline='builtin.module(func.func(poly-print-scop))' -o /dev/null 2>&1 | FileCheck %s

// Parametric bounds, triangular loop, symbols from memref.dim.
// CHECK-LABEL: scop @parametric
// CHECK-NEXT:   params: [arg1]
// CHECK-NEXT:   statement S0 ('affine.store' at {{.*}}constructs.mlir:[[@LINE+9]]:7)
// CHECK-NEXT:     domain: [arg1] -> { S0[i0, i1] : i0 >= 0 and arg1 >= i0 + 1 and i1 >= 0 and i0 >= i1 + 1 }
// CHECK-NEXT:     schedule: [arg1] -> { S0[i0, i1] -> [0, i0, 0, i1, 0] }
// CHECK-NEXT:     write arg0: [arg1] -> { S0[i0, i1] -> arg0[o0, o1] : i0 = o0 and i1 = o1 and {{.*}} }
// CHECK-NEXT:     read arg0: [arg1] -> { S0[i0, i1] -> arg0[o0, o1] : i1 = o0 and i0 = o1 and {{.*}} }
func.func @parametric(%A: memref<?x?xf64>, %n: index) {
  affine.for %i = 0 to %n {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %a = affine.load %A[%j, %i] : memref<?x?xf64>
      affine.store %a, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// -----

// A step becomes a stride with a local; max/min bounds become several bounds.
// CHECK-LABEL: scop @steps_maxmin
// CHECK-NEXT:   params: [arg1, arg2]
// CHECK-NEXT:   statement S0
// CHECK-NEXT:     domain: [arg1, arg2] -> { S0[i0, i1] : exists (e0 : i0 = 4*e0 and i0 >= 0 and arg1 >= i0 + 1 and i1 >= i0 and i1 >= arg2 and i0 + 3 >= i1 and arg1 >= i1 + 1 and e0 >= 0) }
// CHECK-NEXT:     schedule: [arg1, arg2] -> { S0[i0, i1] -> [0, i0, 0, i1, 0] }
func.func @steps_maxmin(%A: memref<?xf64>, %n: index, %m: index) {
  affine.for %t = 0 to %n step 4 {
    affine.for %i = max affine_map<(d0)[s0] -> (d0, s0)>(%t)[%m] to min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%t)[%n] {
      %a = affine.load %A[%i] : memref<?xf64>
      %b = arith.addf %a, %a : f64
      affine.store %b, %A[%i] : memref<?xf64>
    }
  }
  return
}

// -----

// affine.if with an else branch: the else domain is the negated condition, a union.
// CHECK-LABEL: scop @guards
// CHECK:   statement S0
// CHECK-NEXT:     domain: { S0[i0] : i0 >= 2 and 9 >= i0 }
// CHECK:   statement S1
// CHECK-NEXT:     domain: { S1[i0] : i0 >= 0 and 1 >= i0 }
func.func @guards(%A: memref<10xf64>, %z: f64) {
  affine.for %i = 0 to 10 {
    affine.if affine_set<(d0) : (d0 - 2 >= 0, 20 - d0 >= 0)>(%i) {
      %a = affine.load %A[%i - 2] : memref<10xf64>
      affine.store %a, %A[%i] : memref<10xf64>
    } else {
      affine.store %z, %A[%i] : memref<10xf64>
    }
  }
  return
}

// -----

// floordiv and mod in an index become locals of the access relation.
// CHECK-LABEL: scop @divisions
// CHECK:     write arg0: { S0[i0] -> arg0[o0, o1] : exists (e0 : {{.*}}) }
func.func @divisions(%A: memref<4x8xf64>, %v: f64) {
  affine.for %i = 0 to 32 {
    affine.store %v, %A[%i floordiv 8, %i mod 8] : memref<4x8xf64>
  }
  return
}

// -----

// A value loaded before a store that may overwrite it is not modeled.
// CHECK: constructs.mlir:[[@LINE+4]]:10: remark: static control part not modeled: the value loaded here is used by a later store after 'affine.store' may have changed it
// CHECK-NOT: scop @hazard
func.func @hazard(%A: memref<10xf64>, %B: memref<10xf64>, %v: f64) {
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i] : memref<10xf64>
    affine.store %v, %A[%i] : memref<10xf64>
    affine.store %a, %B[%i] : memref<10xf64>
  }
  return
}

// -----

// Accesses through views are not modeled.
// CHECK: constructs.mlir:[[@LINE+4]]:5: remark: static control part not modeled: access through 'memref.subview' (a view) is not modeled
func.func @views(%A: memref<10xf64>, %v: f64) {
  %s = memref.subview %A[2] [4] [1] : memref<10xf64> to memref<4xf64, strided<[1], offset: 2>>
  affine.for %i = 0 to 4 {
    affine.store %v, %s[%i] : memref<4xf64, strided<[1], offset: 2>>
  }
  return
}

