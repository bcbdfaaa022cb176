// gemm (C = alpha*A*B + beta*C) in the affine dialect, with a main that
// initializes the arrays as PolyBench does and prints a checksum.
// scripts/example.sh runs it through polyrs-opt and the JIT.

func.func @kernel_gemm(%alpha: f64, %beta: f64, %C: memref<800x900xf64>,
                       %A: memref<800x1000xf64>, %B: memref<1000x900xf64>) {
  affine.for %i = 0 to 800 {
    affine.for %j = 0 to 900 {
      %c = affine.load %C[%i, %j] : memref<800x900xf64>
      %cb = arith.mulf %c, %beta : f64
      affine.store %cb, %C[%i, %j] : memref<800x900xf64>
    }
    affine.for %k = 0 to 1000 {
      affine.for %j = 0 to 900 {
        %a = affine.load %A[%i, %k] : memref<800x1000xf64>
        %aa = arith.mulf %alpha, %a : f64
        %b = affine.load %B[%k, %j] : memref<1000x900xf64>
        %p = arith.mulf %aa, %b : f64
        %c = affine.load %C[%i, %j] : memref<800x900xf64>
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<800x900xf64>
      }
    }
  }
  return
}

// X[i][j] = ((i*j + off) mod m) / m
func.func private @fill(%X: memref<?x?xf64>, %off: index, %m: index) {
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

func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() {
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ni = arith.constant 800 : index
  %nj = arith.constant 900 : index
  %nk = arith.constant 1000 : index
  %C = memref.alloc() : memref<800x900xf64>
  %A = memref.alloc() : memref<800x1000xf64>
  %B = memref.alloc() : memref<1000x900xf64>
  %Cd = memref.cast %C : memref<800x900xf64> to memref<?x?xf64>
  %Ad = memref.cast %A : memref<800x1000xf64> to memref<?x?xf64>
  %Bd = memref.cast %B : memref<1000x900xf64> to memref<?x?xf64>
  func.call @fill(%Cd, %c1, %ni) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Ad, %c1, %nk) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Bd, %c2, %nj) : (memref<?x?xf64>, index, index) -> ()
  func.call @kernel_gemm(%alpha, %beta, %C, %A, %B)
    : (f64, f64, memref<800x900xf64>, memref<800x1000xf64>, memref<1000x900xf64>) -> ()
  %zero = arith.constant 0.0 : f64
  %sum = affine.for %i = 0 to 800 iter_args(%acc = %zero) -> (f64) {
    %row = affine.for %j = 0 to 900 iter_args(%r = %acc) -> (f64) {
      %v = affine.load %C[%i, %j] : memref<800x900xf64>
      %s = arith.addf %r, %v : f64
      affine.yield %s : f64
    }
    affine.yield %row : f64
  }
  func.call @printF64(%sum) : (f64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %C : memref<800x900xf64>
  memref.dealloc %A : memref<800x1000xf64>
  memref.dealloc %B : memref<1000x900xf64>
  return
}
