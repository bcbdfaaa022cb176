/* C reference: PolyBench/C 4.2.1 heat-3d (double). */
#include "common.h"
#include "sizes/heat-3d.h"

static POLYRS_ALIGNED DATA_TYPE A[N][N][N], B[N][N][N];

static void init_array(int n)
{
  int i, j, k;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        A[i][j][k] = B[i][j][k] = (DATA_TYPE) (i + j + (n-k))* 10 / (n);
}

static void kernel_heat_3d(int tsteps, int n)
{
  int t, i, j, k;
  for (t = 1; t <= TSTEPS; t++) {
    for (i = 1; i < n-1; i++) {
      for (j = 1; j < n-1; j++) {
        for (k = 1; k < n-1; k++) {
          B[i][j][k] =   SCALAR_VAL(0.125) * (A[i+1][j][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i-1][j][k])
                       + SCALAR_VAL(0.125) * (A[i][j+1][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j-1][k])
                       + SCALAR_VAL(0.125) * (A[i][j][k+1] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j][k-1])
                       + A[i][j][k];
        }
      }
    }
    for (i = 1; i < n-1; i++) {
      for (j = 1; j < n-1; j++) {
        for (k = 1; k < n-1; k++) {
          A[i][j][k] =   SCALAR_VAL(0.125) * (B[i+1][j][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i-1][j][k])
                       + SCALAR_VAL(0.125) * (B[i][j+1][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j-1][k])
                       + SCALAR_VAL(0.125) * (B[i][j][k+1] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j][k-1])
                       + B[i][j][k];
        }
      }
    }
  }
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_heat_3d(TSTEPS, N));
  CHECKSUM(A);
  PRINT_CHECKSUM();
  return 0;
}
