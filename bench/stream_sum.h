/* The parallel read that bench/bandwidth.c and bench/fresh_memory.c time:
 * the sum of a[0..n) (n a multiple of 32) on the OpenMP threads, each
 * summing its share in 32 independent lanes (element k of every block of
 * 32 goes to lane k), which the compiler runs as whole vectors with no
 * reassociation: the reads, not the adds' latency, bound it. */
#ifndef POLYRS_STREAM_SUM_H
#define POLYRS_STREAM_SUM_H
#include <omp.h>

static double stream_sum(const double *a, long n)
{
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    int nt = omp_get_num_threads(), me = omp_get_thread_num();
    long lo = n / 32 * me / nt * 32, hi = n / 32 * (me + 1) / nt * 32;
    /* The threads' shares tile [0, n): hi of the last is n. */
    double acc[32] = {0};
    for (long i = lo; i < hi; i += 32)
      for (int k = 0; k < 32; k++)
        acc[k] += a[i + k];
    for (int k = 0; k < 32; k++)
      total += acc[k];
  }
  return total;
}
#endif
