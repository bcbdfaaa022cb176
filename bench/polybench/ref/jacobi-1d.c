/* C reference: PolyBench/C 4.2.1 jacobi-1d (double). */
#include "common.h"
#include "sizes/jacobi-1d.h"

static POLYRS_ALIGNED DATA_TYPE A[N], B[N];

static void init_array(int n)
{
  int i;
  for (i = 0; i < n; i++) {
    A[i] = ((DATA_TYPE) i+ 2) / n;
    B[i] = ((DATA_TYPE) i+ 3) / n;
  }
}

static void kernel_jacobi_1d(int tsteps, int n)
{
  int t, i;
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i-1] + A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i-1] + B[i] + B[i + 1]);
  }
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_jacobi_1d(TSTEPS, N));
  CHECKSUM(A);
  PRINT_CHECKSUM();
  return 0;
}
