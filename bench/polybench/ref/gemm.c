/* C reference: PolyBench/C 4.2.1 gemm (double). */
#include "common.h"

#ifdef MINI_DATASET
#define NI 20
#define NJ 25
#define NK 30
#endif
#ifdef SMALL_DATASET
#define NI 60
#define NJ 70
#define NK 80
#endif
#ifdef MEDIUM_DATASET
#define NI 200
#define NJ 220
#define NK 240
#endif
#ifdef LARGE_DATASET
#define NI 1000
#define NJ 1100
#define NK 1200
#endif
#ifdef EXTRALARGE_DATASET
#define NI 2000
#define NJ 2300
#define NK 2600
#endif

static POLYRS_ALIGNED DATA_TYPE C[NI][NJ], A[NI][NK], B[NK][NJ];

static void init_array(int ni, int nj, int nk, DATA_TYPE *alpha, DATA_TYPE *beta)
{
  int i, j;
  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (DATA_TYPE) ((i*j+1) % ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE) (i*(j+1) % nk) / nk;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE) (i*(j+2) % nj) / nj;
}

static void kernel_gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta)
{
  int i, j, k;
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++) {
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
  }
}

int main(void)
{
  DATA_TYPE alpha, beta;
  POLYRS_RUN(init_array(NI, NJ, NK, &alpha, &beta), kernel_gemm(NI, NJ, NK, alpha, beta));
  CHECKSUM(C);
  PRINT_CHECKSUM();
  return 0;
}
