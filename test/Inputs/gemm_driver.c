/* Calls the C entry point of @kernel_gemm (polyrs-translate --c-interface)
   with arrays initialized like Inputs/main-gemm.mlir and prints the bits of
   the same checksum. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  double *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} memref2d;

void _mlir_ciface_kernel_gemm(double alpha, double beta, memref2d *C,
                              memref2d *A, memref2d *B);

static double C[60][70], A[60][80], B[80][70];

static void init(double *x, int rows, int cols, int off, int m) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      x[i * cols + j] = (double)((i * j + off) % m) / m;
}

static memref2d view(double *p, int rows, int cols) {
  memref2d d = {p, p, 0, {rows, cols}, {cols, 1}};
  return d;
}

int main(void) {
  init(&C[0][0], 60, 70, 1, 60);
  init(&A[0][0], 60, 80, 1, 80);
  init(&B[0][0], 80, 70, 2, 70);
  memref2d c = view(&C[0][0], 60, 70), a = view(&A[0][0], 60, 80),
           b = view(&B[0][0], 80, 70);
  _mlir_ciface_kernel_gemm(1.5, 1.2, &c, &a, &b);
  double sum = 0.0;
  for (int i = 0; i < 60; i++)
    for (int j = 0; j < 70; j++)
      sum += C[i][j] * (1.0 + (double)((i * 70 + j) % 7));
  int64_t bits;
  memcpy(&bits, &sum, sizeof bits);
  printf("%lld\n", (long long)bits);
  return 0;
}
