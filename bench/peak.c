/* The machine's floating-point peak for separate multiplies and adds (what
 * bit-exact code gets: no FMA contraction), in GFLOP/s on OMP_NUM_THREADS
 * threads: 16 independent chains a = a + a*b per thread, one AVX-512
 * multiply and one add each, so that throughput, not latency, bounds it.
 *
 *   gcc -O2 -march=native -fopenmp -ffp-contract=off bench/peak.c -o /tmp/polyrs-peak
 *   OMP_NUM_THREADS=2 /tmp/polyrs-peak
 *
 * The chains overflow to inf early on; AVX-512 arithmetic on inf runs at
 * full speed, and the sum is printed only so that the work is not removed.
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  const long steps = 12500000; /* per chain and thread */
  double best = 0, sum = 0;
  for (int round = 0; round < 3; round++) {
    double t0 = now();
#pragma omp parallel reduction(+ : sum)
    {
      __m512d a[16], b = _mm512_set1_pd(1.0000001);
      for (int i = 0; i < 16; i++) a[i] = _mm512_set1_pd(i);
      for (long n = 0; n < steps; n++) {
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) a[i] = _mm512_add_pd(a[i], _mm512_mul_pd(a[i], b));
      }
      for (int i = 0; i < 16; i++) sum += _mm512_reduce_add_pd(a[i]);
    }
    double t = now() - t0;
    /* 16 chains x 8 lanes x 2 flops per step and thread */
    double gflops = (double)steps * 16 * 8 * 2 * omp_get_max_threads() / t / 1e9;
    if (gflops > best) best = gflops;
  }
  printf("threads %d: peak %.0f GFLOP/s (separate multiply and add, AVX-512) [%g]\n", omp_get_max_threads(), best, sum);
  return 0;
}
