/* C reference: PolyBench/C 4.2.1 durbin (double). */
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

static POLYRS_ALIGNED DATA_TYPE r[N], y[N];

static void init_array(int n)
{
  int i;
  for (i = 0; i < n; i++)
    r[i] = (n+1-i);
}

static void kernel_durbin(int n)
{
  DATA_TYPE z[N];
  DATA_TYPE alpha;
  DATA_TYPE beta;
  DATA_TYPE sum;
  int i, k;

  y[0] = -r[0];
  beta = SCALAR_VAL(1.0);
  alpha = -r[0];
  for (k = 1; k < n; k++) {
    beta = (1-alpha*alpha)*beta;
    sum = SCALAR_VAL(0.0);
    for (i = 0; i < k; i++) {
      sum += r[k-i-1]*y[i];
    }
    alpha = - (r[k] + sum)/beta;
    for (i = 0; i < k; i++) {
      z[i] = y[i] + alpha*y[k-i-1];
    }
    for (i = 0; i < k; i++) {
      y[i] = z[i];
    }
    y[k] = alpha;
  }
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_durbin(N));
  CHECKSUM(y);
  PRINT_CHECKSUM();
  return 0;
}
