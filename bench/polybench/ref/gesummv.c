/* C reference: PolyBench/C 4.2.1 gesummv (double). */
#include "common.h"
#include "sizes/gesummv.h"

static POLYRS_ALIGNED DATA_TYPE A[N][N], B[N][N], tmp[N], x[N], y[N];

static void init_array(int n, DATA_TYPE *alpha, DATA_TYPE *beta)
{
  int i, j;
  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++) {
    x[i] = (DATA_TYPE)( i % n) / n;
    for (j = 0; j < n; j++) {
      A[i][j] = (DATA_TYPE) ((i*j+1) % n) / n;
      B[i][j] = (DATA_TYPE) ((i*j+2) % n) / n;
    }
  }
}

static void kernel_gesummv(int n, DATA_TYPE alpha, DATA_TYPE beta)
{
  int i, j;
  for (i = 0; i < n; i++) {
    tmp[i] = SCALAR_VAL(0.0);
    y[i] = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

int main(void)
{
  DATA_TYPE alpha, beta;
  POLYRS_RUN(init_array(N, &alpha, &beta), kernel_gesummv(N, alpha, beta));
  CHECKSUM(y);
  PRINT_CHECKSUM();
  return 0;
}
