/* C reference: PolyBench/C 4.2.1 adi (double). */
#include "common.h"

#ifdef MINI_DATASET
#define TSTEPS 20
#define N 20
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 60
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 200
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 1000
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 2000
#endif

static POLYRS_ALIGNED DATA_TYPE u[N][N], v[N][N], p[N][N], q[N][N];

static void init_array(int n)
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      u[i][j] = (DATA_TYPE)(i + n-j) / n;
    }
}

static void kernel_adi(int tsteps, int n)
{
  int t, i, j;
  DATA_TYPE DX, DY, DT;
  DATA_TYPE B1, B2;
  DATA_TYPE mul1, mul2;
  DATA_TYPE a, b, c, d, e, f;

  DX = SCALAR_VAL(1.0)/(DATA_TYPE)n;
  DY = SCALAR_VAL(1.0)/(DATA_TYPE)n;
  DT = SCALAR_VAL(1.0)/(DATA_TYPE)tsteps;
  B1 = SCALAR_VAL(2.0);
  B2 = SCALAR_VAL(1.0);
  mul1 = B1 * DT / (DX * DX);
  mul2 = B2 * DT / (DY * DY);

  a = -mul1 /  SCALAR_VAL(2.0);
  b = SCALAR_VAL(1.0)+mul1;
  c = a;
  d = -mul2 / SCALAR_VAL(2.0);
  e = SCALAR_VAL(1.0)+mul2;
  f = d;

  for (t=1; t<=tsteps; t++) {
    for (i=1; i<n-1; i++) {
      v[0][i] = SCALAR_VAL(1.0);
      p[i][0] = SCALAR_VAL(0.0);
      q[i][0] = v[0][i];
      for (j=1; j<n-1; j++) {
        p[i][j] = -c / (a*p[i][j-1]+b);
        q[i][j] = (-d*u[j][i-1]+(SCALAR_VAL(1.0)+SCALAR_VAL(2.0)*d)*u[j][i] - f*u[j][i+1]-a*q[i][j-1])/(a*p[i][j-1]+b);
      }
      v[n-1][i] = SCALAR_VAL(1.0);
      for (j=n-2; j>=1; j--) {
        v[j][i] = p[i][j] * v[j+1][i] + q[i][j];
      }
    }
    for (i=1; i<n-1; i++) {
      u[i][0] = SCALAR_VAL(1.0);
      p[i][0] = SCALAR_VAL(0.0);
      q[i][0] = u[i][0];
      for (j=1; j<n-1; j++) {
        p[i][j] = -f / (d*p[i][j-1]+e);
        q[i][j] = (-a*v[i-1][j]+(SCALAR_VAL(1.0)+SCALAR_VAL(2.0)*a)*v[i][j] - c*v[i+1][j]-d*q[i][j-1])/(d*p[i][j-1]+e);
      }
      u[i][n-1] = SCALAR_VAL(1.0);
      for (j=n-2; j>=1; j--) {
        u[i][j] = p[i][j] * u[i][j+1] + q[i][j];
      }
    }
  }
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_adi(TSTEPS, N));
  CHECKSUM(u);
  PRINT_CHECKSUM();
  return 0;
}
