// A front end's own tiles around a reduction: `ii` runs over tiles of 32
// rows, `i` over the rows of one tile, and `s[i]` sums row `i` along `j`,
// set to zero first inside `ii`. The cell does not mention `ii`, but each
// row lies in one tile (32·ii ≤ i < 32·ii + 32): `ii` is no loop the sum
// runs over (`analysis::reductions::fixed_by`), so the zeroing inside it
// does not stop the statement from being a reduction along `j`, which
// reassociate=true reassociates. Before, the zeroing counted as an access
// inside the reduction's loops and nothing was reassociated. The values
// are small integers: every order of the terms gives the same sums.
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true register-tile=false' 2>&1 | FileCheck %s
// RUN: %polyrs-runner %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} reassociate=true register-tile=false' | %polyrs-runner - > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// Row 0: 146 cycles of 0..6 (3066) and j = 1022, 1023 (0 + 1); row 5: 3066 + 5 + 6.
// SUMS: 3067
// SUMS-NEXT: 3077
// CHECK: reassociate-tiled.mlir:27:3: remark: poly-opt: {{.*}}reduction S1 (addf along i2) reassociated
// CHECK: arith.addf {{.*}} fastmath<reassoc> : f64

func.func private @printF64(f64)
func.func private @printNewline()

func.func @rowsums(%A: memref<1024x1024xf64>, %s: memref<1024xf64>) {
  %zero = arith.constant 0.0 : f64
  affine.for %ii = 0 to 32 {
    affine.for %i = affine_map<(d0) -> (d0 * 32)>(%ii) to affine_map<(d0) -> (d0 * 32 + 32)>(%ii) {
      affine.store %zero, %s[%i] : memref<1024xf64>
      affine.for %j = 0 to 1024 {
        %a = affine.load %A[%i, %j] : memref<1024x1024xf64>
        %c = affine.load %s[%i] : memref<1024xf64>
        %d = arith.addf %c, %a : f64
        affine.store %d, %s[%i] : memref<1024xf64>
      }
    }
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<1024x1024xf64>
  %s = memref.alloc() : memref<1024xf64>
  affine.for %i = 0 to 1024 {
    affine.for %j = 0 to 1024 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 + d1) mod 7)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      affine.store %vf, %A[%i, %j] : memref<1024x1024xf64>
    }
  }
  func.call @rowsums(%A, %s) : (memref<1024x1024xf64>, memref<1024xf64>) -> ()
  %a = affine.load %s[0] : memref<1024xf64>
  func.call @printF64(%a) : (f64) -> ()
  func.call @printNewline() : () -> ()
  %b = affine.load %s[5] : memref<1024xf64>
  func.call @printF64(%b) : (f64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %A : memref<1024x1024xf64>
  memref.dealloc %s : memref<1024xf64>
  return
}
