/* C reference: PolyBench/C 4.2.1 cholesky (double). */
#include "common.h"

#ifdef MINI_DATASET
#define N 40
#endif
#ifdef SMALL_DATASET
#define N 120
#endif
#ifdef MEDIUM_DATASET
#define N 400
#endif
#ifdef LARGE_DATASET
#define N 2000
#endif
#ifdef EXTRALARGE_DATASET
#define N 4000
#endif

static POLYRS_ALIGNED DATA_TYPE A[N][N];
#include "psd_init.h"

static void kernel_cholesky(int n)
{
  int i, j, k;
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++) {
        A[i][j] -= A[i][k] * A[j][k];
      }
      A[i][j] /= A[j][j];
    }
    for (k = 0; k < i; k++) {
      A[i][i] -= A[i][k] * A[i][k];
    }
    A[i][i] = SQRT_FUN(A[i][i]);
  }
}

int main(void)
{
  POLYRS_RUN(init_psd(N), kernel_cholesky(N));
  CHECKSUM(A);
  PRINT_CHECKSUM();
  return 0;
}
