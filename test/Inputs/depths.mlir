func.func private @f()
func.func @depths(%A: memref<10x10xf64>) {
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      %a = affine.load %A[%i, %j] : memref<10x10xf64>
      affine.store %a, %A[%j, %i] : memref<10x10xf64>
    }
  }
  affine.for %i = 0 to 10 {
    func.call @f() : () -> ()
  }
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i, 0] : memref<10x10xf64>
    affine.store %a, %A[%i, 1] : memref<10x10xf64>
  }
  return
}
