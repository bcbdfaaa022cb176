/* What the caches and memory deliver to a stream of reads: the best of 30
 * passes summing an array of SIZE bytes (already in cache after the first
 * pass when it fits), on OMP_NUM_THREADS threads, each summing its share,
 * in ms and GB/s. The ceiling of a kernel that must read that many bytes
 * (gesummv's A and B at LARGE: 27 MB; bicg's A: 32 MB; a pass over
 * gramschmidt's trailing matrix) whatever its schedule.
 *
 *   gcc -O3 -march=native -fopenmp bench/bandwidth.c -o /tmp/polyrs-bandwidth
 *   OMP_NUM_THREADS=2 /tmp/polyrs-bandwidth 27000000
 *   OMP_NUM_THREADS=2 /tmp/polyrs-bandwidth 27000000 rewrite   (the benchmark's case)
 *
 * Each thread keeps 32 independent sums (element k of every block of 32
 * goes to sum k), which the compiler runs as whole vectors with no
 * reassociation: the reads, not the adds' latency, bound it. (An earlier
 * version summed each block of 8 into one scalar: the horizontal adds
 * bound it at 60 % of what the caches deliver, 0.25 ms for 27 MB on the
 * machine below instead of 0.14-0.17.)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "stream_sum.h"

static int by_value(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || atol(argv[1]) < 256) {
    fprintf(stderr, "usage: %s SIZE_IN_BYTES [rewrite] (size at least 256)\n", argv[0]);
    return 2;
  }
  /* `rewrite`: one thread writes the array again before each pass, as the
     benchmark's runs do (init, then the kernel), and the median is reported
     beside the minimum. */
  int rewrite = argc == 3;
  long n = atol(argv[1]) / 256 * 32; /* whole blocks of 32 doubles */
  double *a = aligned_alloc(64, n * sizeof(double));
  if (!a) {
    fprintf(stderr, "cannot allocate %ld bytes\n", n * (long)sizeof(double));
    return 1;
  }
  for (long i = 0; i < n; i++)
    a[i] = i * 1e-9;
  enum { ROUNDS = 60 };
  double times[ROUNDS], keep = 0;
  for (int round = 0; round < ROUNDS; round++) {
    if (rewrite)
      for (long i = 0; i < n; i++)
        a[i] = (i + round) * 1e-9;
    double t = omp_get_wtime(), total = stream_sum(a, n);
    times[round] = omp_get_wtime() - t;
    keep += total;
  }
  qsort(times, ROUNDS, sizeof(double), by_value);
  double best = times[0];
  printf("%.1f MB on %d threads%s: %.3f ms (median %.3f), %.1f GB/s (checksum %g)\n",
         n * 8 / 1e6, omp_get_max_threads(), rewrite ? ", rewritten before each pass" : "",
         best * 1e3, times[ROUNDS / 2] * 1e3, n * 8 / best / 1e9, keep);
  free(a);
  return 0;
}
