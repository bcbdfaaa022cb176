/* C reference: PolyBench/C 4.2.1 trisolv (double). */
#include "common.h"
#include "sizes/trisolv.h"

static POLYRS_ALIGNED DATA_TYPE L[N][N], x[N], b[N];

static void init_array(int n)
{
  int i, j;
  for (i = 0; i < n; i++) {
    x[i] = - 999;
    b[i] =  i ;
    for (j = 0; j <= i; j++)
      L[i][j] = (DATA_TYPE) (i+n-j+1)*2/n;
  }
}

static void kernel_trisolv(int n)
{
  int i, j;
  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_trisolv(N));
  CHECKSUM(x);
  PRINT_CHECKSUM();
  return 0;
}
