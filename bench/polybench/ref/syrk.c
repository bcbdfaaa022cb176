/* C reference: PolyBench/C 4.2.1 syrk (double). */
#include "common.h"
#include "sizes/syrk.h"

static POLYRS_ALIGNED DATA_TYPE C[N][N], A[N][M];

static void init_array(int n, int m, DATA_TYPE *alpha, DATA_TYPE *beta)
{
  int i, j;
  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = (DATA_TYPE) ((i*j+1)%n) / n;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (DATA_TYPE) ((i*j+2)%m) / m;
}

static void kernel_syrk(int n, int m, DATA_TYPE alpha, DATA_TYPE beta)
{
  int i, j, k;
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < m; k++) {
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
  }
}

int main(void)
{
  DATA_TYPE alpha, beta;
  POLYRS_RUN(init_array(N, M, &alpha, &beta), kernel_syrk(N, M, alpha, beta));
  CHECKSUM(C);
  PRINT_CHECKSUM();
  return 0;
}
