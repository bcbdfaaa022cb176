/* C reference: PolyBench/C 4.2.1 gramschmidt (double). */
#include "common.h"
#include "sizes/gramschmidt.h"

static POLYRS_ALIGNED DATA_TYPE A[M][N], R[N][N], Q[M][N];

static void init_array(int m, int n)
{
  int i, j;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (((DATA_TYPE) ((i*j) % m) / m )*100) + 10;
      Q[i][j] = 0.0;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i][j] = 0.0;
}

static void kernel_gramschmidt(int m, int n)
{
  int i, j, k;
  DATA_TYPE nrm;
  for (k = 0; k < n; k++) {
    nrm = SCALAR_VAL(0.0);
    for (i = 0; i < m; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = SQRT_FUN(nrm);
    for (i = 0; i < m; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < n; j++) {
      R[k][j] = SCALAR_VAL(0.0);
      for (i = 0; i < m; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < m; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
}

int main(void)
{
  POLYRS_RUN(init_array(M, N), kernel_gramschmidt(M, N));
  CHECKSUM(R);
  CHECKSUM(Q);
  PRINT_CHECKSUM();
  return 0;
}
