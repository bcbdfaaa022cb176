/* C reference: PolyBench/C 4.2.1 doitgen (double). */
#include "common.h"
#include "sizes/doitgen.h"

static POLYRS_ALIGNED DATA_TYPE A[NR][NQ][NP], sum[NP], C4[NP][NP];

static void init_array(int nr, int nq, int np)
{
  int i, j, k;
  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        A[i][j][k] = (DATA_TYPE) ((i*j + k)%np) / np;
  for (i = 0; i < np; i++)
    for (j = 0; j < np; j++)
      C4[i][j] = (DATA_TYPE) (i*j % np) / np;
}

static void kernel_doitgen(int nr, int nq, int np)
{
  int r, q, p, s;
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = SCALAR_VAL(0.0);
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
}

int main(void)
{
  POLYRS_RUN(init_array(NR, NQ, NP), kernel_doitgen(NR, NQ, NP));
  CHECKSUM(A);
  PRINT_CHECKSUM();
  return 0;
}
