/* C reference: PolyBench/C 4.2.1 correlation (double). */
#include "common.h"
#include "sizes/correlation.h"

static POLYRS_ALIGNED DATA_TYPE data[N][M], corr[M][M], mean[M], stddev[M];

static void init_array(int m, int n, DATA_TYPE *float_n)
{
  int i, j;
  *float_n = (DATA_TYPE)N;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (DATA_TYPE)(i*j)/M + i;
}

static void kernel_correlation(int m, int n, DATA_TYPE float_n)
{
  int i, j, k;
  DATA_TYPE eps = SCALAR_VAL(0.1);
  for (j = 0; j < m; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (j = 0; j < m; j++) {
    stddev[j] = SCALAR_VAL(0.0);
    for (i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = SQRT_FUN(stddev[j]);
    stddev[j] = stddev[j] <= eps ? SCALAR_VAL(1.0) : stddev[j];
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= SQRT_FUN(float_n) * stddev[j];
    }
  for (i = 0; i < m-1; i++) {
    corr[i][i] = SCALAR_VAL(1.0);
    for (j = i+1; j < m; j++) {
      corr[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < n; k++)
        corr[i][j] += (data[k][i] * data[k][j]);
      corr[j][i] = corr[i][j];
    }
  }
  corr[m-1][m-1] = SCALAR_VAL(1.0);
}

int main(void)
{
  DATA_TYPE float_n;
  POLYRS_RUN(init_array(M, N, &float_n), kernel_correlation(M, N, float_n));
  CHECKSUM(corr);
  PRINT_CHECKSUM();
  return 0;
}
