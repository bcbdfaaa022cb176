/* C reference: PolyBench/C 4.2.1 seidel-2d (double). */
#include "common.h"

#ifdef MINI_DATASET
#define TSTEPS 20
#define N 40
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 120
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 400
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 2000
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 4000
#endif

static POLYRS_ALIGNED DATA_TYPE A[N][N];

static void init_array(int n)
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = ((DATA_TYPE) i*(j+2) + 2) / n;
}

static void kernel_seidel_2d(int tsteps, int n)
{
  int t, i, j;
  for (t = 0; t <= tsteps - 1; t++)
    for (i = 1; i <= n - 2; i++)
      for (j = 1; j <= n - 2; j++)
        A[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1]
                   + A[i][j-1] + A[i][j] + A[i][j+1]
                   + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1])/SCALAR_VAL(9.0);
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_seidel_2d(TSTEPS, N));
  CHECKSUM(A);
  PRINT_CHECKSUM();
  return 0;
}
