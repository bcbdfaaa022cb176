// Initializes the arrays like Inputs/gemm_driver.c, calls @kernel_gemm and
// prints the bits of the checksum sum(C[i][j] * (1 + (i*70+j) mod 7)).
func.func private @printI64(i64)
func.func private @printNewline()

func.func private @init(%X: memref<?x?xf64>, %off: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf64>
  %cols = memref.dim %X, %c1 : memref<?x?xf64>
  %mi = arith.index_cast %m : index to i64
  %mf = arith.sitofp %mi : i64 to f64
  affine.for %i = 0 to %rows {
    affine.for %j = 0 to %cols {
      %ij = arith.muli %i, %j : index
      %ijo = arith.addi %ij, %off : index
      %v = arith.remui %ijo, %m : index
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %x = arith.divf %vf, %mf : f64
      affine.store %x, %X[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

func.func @main() {
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c60 = arith.constant 60 : index
  %c70 = arith.constant 70 : index
  %c80 = arith.constant 80 : index
  %C = memref.alloc() : memref<60x70xf64>
  %A = memref.alloc() : memref<60x80xf64>
  %B = memref.alloc() : memref<80x70xf64>
  %Cd = memref.cast %C : memref<60x70xf64> to memref<?x?xf64>
  %Ad = memref.cast %A : memref<60x80xf64> to memref<?x?xf64>
  %Bd = memref.cast %B : memref<80x70xf64> to memref<?x?xf64>
  func.call @init(%Cd, %c1, %c60) : (memref<?x?xf64>, index, index) -> ()
  func.call @init(%Ad, %c1, %c80) : (memref<?x?xf64>, index, index) -> ()
  func.call @init(%Bd, %c2, %c70) : (memref<?x?xf64>, index, index) -> ()
  func.call @kernel_gemm(%alpha, %beta, %C, %A, %B)
    : (f64, f64, memref<60x70xf64>, memref<60x80xf64>, memref<80x70xf64>) -> ()
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %sum = affine.for %i = 0 to 60 iter_args(%acc = %zero) -> (f64) {
    %row = affine.for %j = 0 to 70 iter_args(%r = %acc) -> (f64) {
      %v = affine.load %C[%i, %j] : memref<60x70xf64>
      %lin = affine.apply affine_map<(d0, d1) -> ((d0 * 70 + d1) mod 7)>(%i, %j)
      %li = arith.index_cast %lin : index to i64
      %lf = arith.sitofp %li : i64 to f64
      %w = arith.addf %one, %lf : f64
      %vw = arith.mulf %v, %w : f64
      %s = arith.addf %r, %vw : f64
      affine.yield %s : f64
    }
    affine.yield %row : f64
  }
  %bits = arith.bitcast %sum : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %C : memref<60x70xf64>
  memref.dealloc %A : memref<60x80xf64>
  memref.dealloc %B : memref<80x70xf64>
  return
}
