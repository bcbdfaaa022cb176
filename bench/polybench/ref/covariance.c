/* C reference: PolyBench/C 4.2.1 covariance (double). */
#include "common.h"
#include "sizes/covariance.h"

static POLYRS_ALIGNED DATA_TYPE data[N][M], cov[M][M], mean[M];

static void init_array(int m, int n, DATA_TYPE *float_n)
{
  int i, j;
  *float_n = (DATA_TYPE)n;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = ((DATA_TYPE) i*j) / M;
}

static void kernel_covariance(int m, int n, DATA_TYPE float_n)
{
  int i, j, k;
  for (j = 0; j < m; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < m; i++)
    for (j = i; j < m; j++) {
      cov[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < n; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - SCALAR_VAL(1.0));
      cov[j][i] = cov[i][j];
    }
}

int main(void)
{
  DATA_TYPE float_n;
  POLYRS_RUN(init_array(M, N, &float_n), kernel_covariance(M, N, float_n));
  CHECKSUM(cov);
  PRINT_CHECKSUM();
  return 0;
}
