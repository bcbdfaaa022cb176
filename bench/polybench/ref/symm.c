/* C reference: PolyBench/C 4.2.1 symm (double). */
#include "common.h"
#include "sizes/symm.h"

static POLYRS_ALIGNED DATA_TYPE C[M][N], A[M][M], B[M][N];

static void init_array(int m, int n, DATA_TYPE *alpha, DATA_TYPE *beta)
{
  int i, j;
  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (DATA_TYPE) ((i+j) % 100) / m;
      B[i][j] = (DATA_TYPE) ((n+i-j) % 100) / m;
    }
  for (i = 0; i < m; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (DATA_TYPE) ((i+j) % 100) / m;
    for (j = i+1; j < m; j++)
      A[i][j] = -999;
  }
}

static void kernel_symm(int m, int n, DATA_TYPE alpha, DATA_TYPE beta)
{
  int i, j, k;
  DATA_TYPE temp2;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      temp2 = 0;
      for (k = 0; k < i; k++) {
        C[k][j] += alpha*B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha*B[i][j] * A[i][i] + alpha * temp2;
    }
}

int main(void)
{
  DATA_TYPE alpha, beta;
  POLYRS_RUN(init_array(M, N, &alpha, &beta), kernel_symm(M, N, alpha, beta));
  CHECKSUM(C);
  PRINT_CHECKSUM();
  return 0;
}
