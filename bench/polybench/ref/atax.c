/* C reference: PolyBench/C 4.2.1 atax (double). */
#include "common.h"

#ifdef MINI_DATASET
#define M 38
#define N 42
#endif
#ifdef SMALL_DATASET
#define M 116
#define N 124
#endif
#ifdef MEDIUM_DATASET
#define M 390
#define N 410
#endif
#ifdef LARGE_DATASET
#define M 1900
#define N 2100
#endif
#ifdef EXTRALARGE_DATASET
#define M 1800
#define N 2200
#endif

static POLYRS_ALIGNED DATA_TYPE A[M][N], x[N], y[N], tmp[M];

static void init_array(int m, int n)
{
  int i, j;
  DATA_TYPE fn;
  fn = (DATA_TYPE)n;
  for (i = 0; i < n; i++)
    x[i] = 1 + (i / fn);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE) ((i+j) % n) / (5*m);
}

static void kernel_atax(int m, int n)
{
  int i, j;
  for (i = 0; i < n; i++)
    y[i] = 0;
  for (i = 0; i < m; i++) {
    tmp[i] = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}

int main(void)
{
  POLYRS_RUN(init_array(M, N), kernel_atax(M, N));
  CHECKSUM(y);
  PRINT_CHECKSUM();
  return 0;
}
