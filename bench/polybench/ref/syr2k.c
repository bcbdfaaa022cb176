/* C reference: PolyBench/C 4.2.1 syr2k (double). */
#include "common.h"
#include "sizes/syr2k.h"

static POLYRS_ALIGNED DATA_TYPE C[N][N], A[N][M], B[N][M];

static void init_array(int n, int m, DATA_TYPE *alpha, DATA_TYPE *beta)
{
  int i, j;
  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = (DATA_TYPE) ((i*j+1)%n) / n;
      B[i][j] = (DATA_TYPE) ((i*j+2)%m) / m;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (DATA_TYPE) ((i*j+3)%n) / m;
    }
}

static void kernel_syr2k(int n, int m, DATA_TYPE alpha, DATA_TYPE beta)
{
  int i, j, k;
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < m; k++)
      for (j = 0; j <= i; j++) {
        C[i][j] += A[j][k]*alpha*B[i][k] + B[j][k]*alpha*A[i][k];
      }
  }
}

int main(void)
{
  DATA_TYPE alpha, beta;
  POLYRS_RUN(init_array(N, M, &alpha, &beta), kernel_syr2k(N, M, alpha, beta));
  CHECKSUM(C);
  PRINT_CHECKSUM();
  return 0;
}
