/* C reference: PolyBench/C 4.2.1 floyd-warshall (DATA_TYPE forced to double; PolyBench default is int). */
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
#define N 2800
#endif
#ifdef EXTRALARGE_DATASET
#define N 5600
#endif

static POLYRS_ALIGNED DATA_TYPE path[N][N];

static void init_array(int n)
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      path[i][j] = i*j%7+1;
      if ((i+j)%13 == 0 || (i+j)%7==0 || (i+j)%11 == 0)
        path[i][j] = 999;
    }
}

static void kernel_floyd_warshall(int n)
{
  int i, j, k;
  for (k = 0; k < n; k++) {
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ?
          path[i][j] : path[i][k] + path[k][j];
  }
}

int main(void)
{
  POLYRS_RUN(init_array(N), kernel_floyd_warshall(N));
  CHECKSUM(path);
  PRINT_CHECKSUM();
  return 0;
}
