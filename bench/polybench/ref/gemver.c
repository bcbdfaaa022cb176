/* C reference: PolyBench/C 4.2.1 gemver (double). */
#include "common.h"
#include "sizes/gemver.h"

static POLYRS_ALIGNED DATA_TYPE A[N][N], u1[N], v1[N], u2[N], v2[N], w[N], x[N], y[N], z[N];

static void init_array(int n, DATA_TYPE *alpha, DATA_TYPE *beta)
{
  int i, j;
  *alpha = 1.5;
  *beta = 1.2;
  DATA_TYPE fn = (DATA_TYPE)n;
  for (i = 0; i < n; i++) {
    u1[i] = i;
    u2[i] = ((i+1)/fn)/2.0;
    v1[i] = ((i+1)/fn)/4.0;
    v2[i] = ((i+1)/fn)/6.0;
    y[i] = ((i+1)/fn)/8.0;
    z[i] = ((i+1)/fn)/9.0;
    x[i] = 0.0;
    w[i] = 0.0;
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE) (i*j % n) / n;
  }
}

static void kernel_gemver(int n, DATA_TYPE alpha, DATA_TYPE beta)
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (i = 0; i < n; i++)
    x[i] = x[i] + z[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i] = w[i] +  alpha * A[i][j] * x[j];
}

int main(void)
{
  DATA_TYPE alpha, beta;
  POLYRS_RUN(init_array(N, &alpha, &beta), kernel_gemver(N, alpha, beta));
  CHECKSUM(w);
  PRINT_CHECKSUM();
  return 0;
}
