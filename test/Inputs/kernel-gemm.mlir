// C += alpha * A * B on 60x70 (A 60x80, B 80x70), PolyBench's gemm statement order.
func.func @kernel_gemm(%alpha: f64, %beta: f64, %C: memref<60x70xf64>,
                       %A: memref<60x80xf64>, %B: memref<80x70xf64>) {
  affine.for %i = 0 to 60 {
    affine.for %j = 0 to 70 {
      %c = affine.load %C[%i, %j] : memref<60x70xf64>
      %cb = arith.mulf %c, %beta : f64
      affine.store %cb, %C[%i, %j] : memref<60x70xf64>
    }
    affine.for %k = 0 to 80 {
      affine.for %j = 0 to 70 {
        %a = affine.load %A[%i, %k] : memref<60x80xf64>
        %aa = arith.mulf %alpha, %a : f64
        %b = affine.load %B[%k, %j] : memref<80x70xf64>
        %p = arith.mulf %aa, %b : f64
        %c = affine.load %C[%i, %j] : memref<60x70xf64>
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<60x70xf64>
      }
    }
  }
  return
}
