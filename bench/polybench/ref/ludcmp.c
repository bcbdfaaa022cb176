/* C reference: PolyBench/C 4.2.1 ludcmp (double). */
#include "common.h"
#include "sizes/ludcmp.h"

static POLYRS_ALIGNED DATA_TYPE A[N][N], b[N], x[N], y[N];
#include "psd_init.h"

static void init_array(int n)
{
  int i;
  DATA_TYPE fn = (DATA_TYPE)n;
  for (i = 0; i < n; i++) {
    x[i] = 0;
    y[i] = 0;
    b[i] = (i+1)/fn/2.0 + 4;
  }
  init_psd(n);
}

static void kernel_ludcmp(int n)
{
  int i, j, k;
  DATA_TYPE w;
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++) {
        w -= A[i][k] * A[k][j];
      }
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++) {
        w -= A[i][k] * A[k][j];
      }
      A[i][j] = w;
    }
  }
  for (i = 0; i < n; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = n-1; i >= 0; i--) {
    w = y[i];
    for (j = i+1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_ludcmp(N));
  CHECKSUM(x);
  PRINT_CHECKSUM();
  return 0;
}
