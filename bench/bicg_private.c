// bicg with reassociate=true's scheme written by hand in C with OpenMP:
// the rows split into one block per thread, each block's column sums into
// a private copy of s (P[t][j] += r[i] * A[i][j]) beside its rows' sums
// q[i], the copies added to s after the blocks (docs/optimizer.md, "bicg's
// blocks"). Three ways to run a block's rows:
//   two-sweep  per row, the column sums along j, then the row's sum along j
//   fused      per row, both along j in one loop
//   fused4     4 rows at a time in one loop along j: the copy's cell and
//              p[j] read once for 4 rows, the 4 rows' sums advanced together
//              (the shape polyrs's plan takes, with 8 rows on AVX-512)
//
//   gcc -O3 -march=native -fopenmp bench/bicg_private.c -o /tmp/bicg_private
//   /tmp/bicg_private            (two threads; medians of 20 runs, three rounds)
//
// 8400 x 8000 doubles (537.6 MB) by default, past the L3 of the machines
// it was written on; -DNI=... -DNJ=... for others (NI a multiple of 8).
// The sums reassociate (omp simd reductions): timings only, no result is
// checked. Compare with bench/bandwidth.c for the same bytes, run right
// before and after (bench/paired.py does that for polyrs's own kernels).
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#ifndef NI
#define NI 8400
#endif
#ifndef NJ
#define NJ 8000
#endif
static double *A, s[NJ], q[NI], p[NJ], r[NI], P[2][NJ] __attribute__((aligned(64)));
static void priv(int fused) {
  #pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    double *restrict pc = P[t];
    for (int j = 0; j < NJ; j++) pc[j] = -0.0;
    int lo = t * (NI / 2), hi = t ? NI : NI / 2;
    for (int i = lo; i < hi; i++) {
      const double *restrict a = A + (long)i * NJ;
      double acc = 0.0, ri = r[i];
      if (fused) {
        #pragma omp simd reduction(+:acc)
        for (int j = 0; j < NJ; j++) { pc[j] += ri * a[j]; acc += a[j] * p[j]; }
      } else {
        #pragma omp simd
        for (int j = 0; j < NJ; j++) pc[j] += ri * a[j];
        #pragma omp simd reduction(+:acc)
        for (int j = 0; j < NJ; j++) acc += a[j] * p[j];
      }
      q[i] = acc;
    }
    #pragma omp barrier
    #pragma omp for
    for (int j = 0; j < NJ; j++) s[j] = (s[j] + P[0][j]) + P[1][j];
  }
}
static void priv4(void) {  /* 4 rows at a time, fused */
  #pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    double *restrict pc = P[t];
    for (int j = 0; j < NJ; j++) pc[j] = -0.0;
    int lo = t * (NI / 2), hi = t ? NI : NI / 2;
    for (int i = lo; i < hi; i += 4) {
      const double *restrict a0 = A + (long)i * NJ, *restrict a1 = a0 + NJ, *restrict a2 = a1 + NJ, *restrict a3 = a2 + NJ;
      double c0 = 0, c1 = 0, c2 = 0, c3 = 0, r0 = r[i], r1 = r[i+1], r2 = r[i+2], r3 = r[i+3];
      #pragma omp simd reduction(+:c0,c1,c2,c3)
      for (int j = 0; j < NJ; j++) {
        pc[j] = (((pc[j] + r0 * a0[j]) + r1 * a1[j]) + r2 * a2[j]) + r3 * a3[j];
        c0 += a0[j] * p[j]; c1 += a1[j] * p[j]; c2 += a2[j] * p[j]; c3 += a3[j] * p[j];
      }
      q[i] = c0; q[i+1] = c1; q[i+2] = c2; q[i+3] = c3;
    }
    #pragma omp barrier
    #pragma omp for
    for (int j = 0; j < NJ; j++) s[j] = (s[j] + P[0][j]) + P[1][j];
  }
}
int main(void) {
  A = aligned_alloc(64, sizeof(double) * (long)NI * NJ + 64);
  for (long k = 0; k < (long)NI * NJ; k++) A[k] = (k % 7) * 0.25;
  for (int j = 0; j < NJ; j++) p[j] = 1 + (j % 5);
  for (int i = 0; i < NI; i++) r[i] = 1 + (i % 3);
  const char *names[3] = {"two-sweep", "fused", "fused4"};
  for (int round = 0; round < 3; round++)
  for (int v = 0; v < 3; v++) {
    double times[20];
    for (int k = 0; k < 20; k++) {
      double t0 = omp_get_wtime();
      if (v == 2) priv4(); else priv(v);
      times[k] = omp_get_wtime() - t0;
    }
    for (int a = 0; a < 20; a++) for (int b = a + 1; b < 20; b++) if (times[b] < times[a]) { double x = times[a]; times[a] = times[b]; times[b] = x; }
    printf("%-10s min %.2f med %.2f ms (%.1f GB/s med)\n", names[v], times[0]*1e3, times[10]*1e3, (double)NI*NJ*8/times[10]/1e9);
  }
  return 0;
}
