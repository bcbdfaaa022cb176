/* C reference: PolyBench/C 4.2.1 bicg (double). */
#include "common.h"
#include "sizes/bicg.h"

static POLYRS_ALIGNED DATA_TYPE A[N][M], s[M], q[N], p[M], r[N];

static void init_array(int m, int n)
{
  int i, j;
  for (i = 0; i < m; i++)
    p[i] = (DATA_TYPE)(i % m) / m;
  for (i = 0; i < n; i++) {
    r[i] = (DATA_TYPE)(i % n) / n;
    for (j = 0; j < m; j++)
      A[i][j] = (DATA_TYPE) (i*(j+1) % n)/n;
  }
}

static void kernel_bicg(int m, int n)
{
  int i, j;
  for (i = 0; i < m; i++)
    s[i] = 0;
  for (i = 0; i < n; i++) {
    q[i] = SCALAR_VAL(0.0);
    for (j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}

int main(void)
{
  POLYRS_RUN(init_array(M, N), kernel_bicg(M, N));
  CHECKSUM(s);
  CHECKSUM(q);
  PRINT_CHECKSUM();
  return 0;
}
