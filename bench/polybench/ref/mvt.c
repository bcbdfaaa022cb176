/* C reference: PolyBench/C 4.2.1 mvt (double). */
#include "common.h"
#include "sizes/mvt.h"

static POLYRS_ALIGNED DATA_TYPE x1[N], x2[N], y_1[N], y_2[N], A[N][N];

static void init_array(int n)
{
  int i, j;
  for (i = 0; i < n; i++) {
    x1[i] = (DATA_TYPE) (i % n) / n;
    x2[i] = (DATA_TYPE) ((i + 1) % n) / n;
    y_1[i] = (DATA_TYPE) ((i + 3) % n) / n;
    y_2[i] = (DATA_TYPE) ((i + 4) % n) / n;
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE) (i*j % n) / n;
  }
}

static void kernel_mvt(int n)
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x1[i] = x1[i] + A[i][j] * y_1[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x2[i] = x2[i] + A[j][i] * y_2[j];
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_mvt(N));
  CHECKSUM(x1);
  CHECKSUM(x2);
  PRINT_CHECKSUM();
  return 0;
}
