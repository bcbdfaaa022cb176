/* C reference: PolyBench/C 4.2.1 fdtd-2d (double). */
#include "common.h"
#include "sizes/fdtd-2d.h"

static POLYRS_ALIGNED DATA_TYPE ex[NX][NY], ey[NX][NY], hz[NX][NY], _fict_[TMAX];

static void init_array(int tmax, int nx, int ny)
{
  int i, j;
  for (i = 0; i < tmax; i++)
    _fict_[i] = (DATA_TYPE) i;
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      ex[i][j] = ((DATA_TYPE) i*(j+1)) / nx;
      ey[i][j] = ((DATA_TYPE) i*(j+2)) / ny;
      hz[i][j] = ((DATA_TYPE) i*(j+3)) / nx;
    }
}

static void kernel_fdtd_2d(int tmax, int nx, int ny)
{
  int t, i, j;
  for (t = 0; t < tmax; t++) {
    for (j = 0; j < ny; j++)
      ey[0][j] = _fict_[t];
    for (i = 1; i < nx; i++)
      for (j = 0; j < ny; j++)
        ey[i][j] = ey[i][j] - SCALAR_VAL(0.5)*(hz[i][j]-hz[i-1][j]);
    for (i = 0; i < nx; i++)
      for (j = 1; j < ny; j++)
        ex[i][j] = ex[i][j] - SCALAR_VAL(0.5)*(hz[i][j]-hz[i][j-1]);
    for (i = 0; i < nx - 1; i++)
      for (j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] - SCALAR_VAL(0.7)*  (ex[i][j+1] - ex[i][j] +
                                                 ey[i+1][j] - ey[i][j]);
  }
}

int main(void)
{
  POLYRS_RUN(init_array(TMAX, NX, NY), kernel_fdtd_2d(TMAX, NX, NY));
  CHECKSUM(ex);
  CHECKSUM(ey);
  CHECKSUM(hz);
  PRINT_CHECKSUM();
  return 0;
}
