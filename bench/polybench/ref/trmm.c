/* C reference: PolyBench/C 4.2.1 trmm (double). */
#include "common.h"
#include "sizes/trmm.h"

static POLYRS_ALIGNED DATA_TYPE A[M][M], B[M][N];

static void init_array(int m, int n, DATA_TYPE *alpha)
{
  int i, j;
  *alpha = 1.5;
  for (i = 0; i < m; i++) {
    for (j = 0; j < i; j++) {
      A[i][j] = (DATA_TYPE)((i+j) % m)/m;
    }
    A[i][i] = 1.0;
    for (j = 0; j < n; j++) {
      B[i][j] = (DATA_TYPE)((n+(i-j)) % n)/n;
    }
  }
}

static void kernel_trmm(int m, int n, DATA_TYPE alpha)
{
  int i, j, k;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i+1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}

int main(void)
{
  DATA_TYPE alpha;
  POLYRS_RUN(init_array(M, N, &alpha), kernel_trmm(M, N, alpha));
  CHECKSUM(B);
  PRINT_CHECKSUM();
  return 0;
}
