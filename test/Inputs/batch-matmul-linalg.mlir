// A batched matmul, 16 x (256x64 · 64x256), as linalg (for test/opt/parallel-extent.mlir).
func.func @bmm(%A: memref<16x256x64xf32>, %B: memref<16x64x256xf32>, %C: memref<16x256x256xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<16x256x64xf32>, memref<16x64x256xf32>) outs(%C : memref<16x256x256xf32>)
  return
}
