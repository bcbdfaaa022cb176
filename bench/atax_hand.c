// atax written by hand in C with OpenMP: the one-pass scheme polyrs makes
// under reassociate=true (rows split into one block per thread, each
// block's dot products and its sums into a private copy of y, the copies
// added after them; docs/optimizer.md, "Array reductions"), the same with
// each row's dot product fused with the previous row's update (a skew:
// the memory stream never waits for the update), and the two passes of
// the default plan (dot products parallel along rows, then sums parallel
// along column tiles): what each costs on a machine.
//
//   gcc -O3 -march=native -fopenmp bench/atax_hand.c -o /tmp/atax_hand
//   gcc -O3 -march=native -fopenmp -DM=4000 -DN=4200 bench/atax_hand.c -o /tmp/atax_big
//   /tmp/atax_hand; /tmp/atax_big      (two threads; medians of 60 runs)
//
// PolyBench's LARGE size by default (A: 1900 x 2100 doubles, 32 MB);
// -DM=4000 -DN=4200 (134 MB) is past this VM's L3. The sums reassociate
// (omp simd reductions): timings only, no result is checked.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#ifndef M
#define M 1900
#endif
#ifndef N
#define N 2100
#endif
static double *A, x[N], y[N], tmp[M], P[2][N] __attribute__((aligned(64)));
static double now(void) { return omp_get_wtime(); }
static void onepass(int skew) {
  #pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    double *restrict p = P[t];
    for (int j = 0; j < N; j++) p[j] = -0.0;
    int lo = t * (M / 2), hi = t ? M : M / 2;
    if (!skew) {
      for (int i = lo; i < hi; i++) {
        const double *restrict a = A + (long)i * N;
        double s = 0.0;
        #pragma omp simd reduction(+:s)
        for (int j = 0; j < N; j++) s += a[j] * x[j];
        tmp[i] = s;
        #pragma omp simd
        for (int j = 0; j < N; j++) p[j] += a[j] * s;
      }
    } else {
      // dot of row i+1 fused with the update of row i
      const double *restrict a = A + (long)lo * N;
      double s = 0.0;
      #pragma omp simd reduction(+:s)
      for (int j = 0; j < N; j++) s += a[j] * x[j];
      tmp[lo] = s;
      for (int i = lo; i < hi; i++) {
        const double *restrict a0 = A + (long)i * N;
        const double *restrict a1 = A + (long)(i + 1) * N;
        double si = tmp[i], s1 = 0.0;
        if (i + 1 < hi) {
          #pragma omp simd reduction(+:s1)
          for (int j = 0; j < N; j++) { s1 += a1[j] * x[j]; p[j] += a0[j] * si; }
          tmp[i + 1] = s1;
        } else {
          #pragma omp simd
          for (int j = 0; j < N; j++) p[j] += a0[j] * si;
        }
      }
    }
    #pragma omp barrier
    #pragma omp for
    for (int j = 0; j < N; j++) y[j] = (0.0 + P[0][j]) + P[1][j];
  }
}
static void twopass(void) {
  #pragma omp parallel for num_threads(2)
  for (int i = 0; i < M; i++) { double s = 0; 
    #pragma omp simd reduction(+:s)
    for (int j = 0; j < N; j++) s += A[(long)i*N+j]*x[j]; tmp[i] = s; }
  #pragma omp parallel for num_threads(2)
  for (int jj = 0; jj < N; jj += 256) {
    int je = jj + 256 < N ? jj + 256 : N;
    for (int j = jj; j < je; j++) y[j] = 0;
    for (int i = 0; i < M; i++) {
      #pragma omp simd
      for (int j = jj; j < je; j++) y[j] += A[(long)i*N+j]*tmp[i];
    }
  }
}
int main(void) {
  A = aligned_alloc(64, sizeof(double) * (long)M * N + 64);
  for (long k = 0; k < (long)M * N; k++) A[k] = (k % 7) * 0.25;
  for (int j = 0; j < N; j++) x[j] = 1 + (j % 5);
  const char *names[3] = {"one-pass", "one-pass-skewed", "two-pass"};
  for (int round = 0; round < 2; round++)
  for (int v = 0; v < 3; v++) {
    double times[60];
    for (int r = 0; r < 60; r++) {
      double t0 = now();
      if (v == 2) twopass(); else onepass(v);
      times[r] = now() - t0;
    }
    // median
    for (int a = 0; a < 60; a++) for (int b = a + 1; b < 60; b++) if (times[b] < times[a]) { double t = times[a]; times[a] = times[b]; times[b] = t; }
    printf("%s M=%d N=%d: min %.3f ms median %.3f ms (%.1f GB/s at median) y[7]=%g\n", names[v], M, N, times[0]*1e3, times[30]*1e3, (double)M*N*8/times[30]/1e9, y[7]);
  }
  return 0;
}
