/* C reference: PolyBench/C 4.2.1 jacobi-2d (double). */
#include "common.h"

#ifdef MINI_DATASET
#define TSTEPS 20
#define N 30
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 90
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 250
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 1300
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 2800
#endif

static POLYRS_ALIGNED DATA_TYPE A[N][N], B[N][N];

static void init_array(int n)
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = ((DATA_TYPE) i*(j+2) + 2) / n;
      B[i][j] = ((DATA_TYPE) i*(j+3) + 3) / n;
    }
}

static void kernel_jacobi_2d(int tsteps, int n)
{
  int t, i, j;
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j-1] + A[i][1+j] + A[1+i][j] + A[i-1][j]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = SCALAR_VAL(0.2) * (B[i][j] + B[i][j-1] + B[i][1+j] + B[1+i][j] + B[i-1][j]);
  }
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_jacobi_2d(TSTEPS, N));
  CHECKSUM(A);
  PRINT_CHECKSUM();
  return 0;
}
