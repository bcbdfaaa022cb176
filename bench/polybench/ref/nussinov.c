/* C reference: PolyBench/C 4.2.1 nussinov (DATA_TYPE forced to double; PolyBench default is int). */
#include "common.h"

#ifdef MINI_DATASET
#define N 60
#endif
#ifdef SMALL_DATASET
#define N 180
#endif
#ifdef MEDIUM_DATASET
#define N 500
#endif
#ifdef LARGE_DATASET
#define N 2500
#endif
#ifdef EXTRALARGE_DATASET
#define N 5500
#endif

typedef char base;
#define match(b1, b2) (((b1)+(b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)

static POLYRS_ALIGNED base seq[N];
static POLYRS_ALIGNED DATA_TYPE table[N][N];

static void init_array(int n)
{
  int i, j;
  for (i = 0; i < n; i++) {
    seq[i] = (base)((i+1)%4);
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = 0;
}

static void kernel_nussinov(int n)
{
  int i, j, k;
  for (i = n-1; i >= 0; i--) {
    for (j = i+1; j < n; j++) {
      if (j-1 >= 0)
        table[i][j] = max_score(table[i][j], table[i][j-1]);
      if (i+1 < n)
        table[i][j] = max_score(table[i][j], table[i+1][j]);
      if (j-1 >= 0 && i+1 < n) {
        if (i < j-1)
          table[i][j] = max_score(table[i][j], table[i+1][j-1]+match(seq[i], seq[j]));
        else
          table[i][j] = max_score(table[i][j], table[i+1][j-1]);
      }
      for (k = i+1; k < j; k++) {
        table[i][j] = max_score(table[i][j], table[i][k] + table[k+1][j]);
      }
    }
  }
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_nussinov(N));
  CHECKSUM(table);
  PRINT_CHECKSUM();
  return 0;
}
