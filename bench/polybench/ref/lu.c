/* C reference: PolyBench/C 4.2.1 lu (double). */
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

static void kernel_lu(int n)
{
  int i, j, k;
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++) {
        A[i][j] -= A[i][k] * A[k][j];
      }
      A[i][j] /= A[j][j];
    }
    for (j = i; j < n; j++) {
      for (k = 0; k < i; k++) {
        A[i][j] -= A[i][k] * A[k][j];
      }
    }
  }
}

int main(void)
{
  POLYRS_RUN(init_psd(N), kernel_lu(N));
  CHECKSUM(A);
  PRINT_CHECKSUM();
  return 0;
}
