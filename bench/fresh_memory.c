/* What a stream of reads costs in memory the process just mapped, against
 * memory it reads again: each of 60 rounds initializes an array of SIZE
 * bytes (on all threads, each thread its share, as the read below), then
 * times one parallel read of it, like bench/bandwidth.c; with `fresh` the
 * array is unmapped and mapped again before each round's initialization
 * (what a program that allocates and frees its arrays around every call
 * does, and every run of PolyBench's C code, whose arrays are static: one
 * run per process), with `reused` it stays mapped. Medians and minima in
 * ms, on OMP_NUM_THREADS threads.
 *
 *   gcc -O3 -march=native -fopenmp bench/fresh_memory.c -o /tmp/polyrs-fresh
 *   OMP_NUM_THREADS=2 /tmp/polyrs-fresh 27000000
 *
 * On the machine of docs/benchmarks.md (a VM on an AMD EPYC; 2026-11-26)
 * the fresh array reads 1.3-2x slower, though the initialization wrote
 * every cell of it just before: the cost is in the fresh pages, not in
 * the caches. bench/bench.py therefore times every pipeline on arrays it
 * reads again (polyrs-runner --reuse-memory; the C references' runs in
 * one process), unless --fresh-memory.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "stream_sum.h"
#include <sys/mman.h>

#define ROUNDS 60

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double run(long n, int fresh, double *keep)
{
  size_t bytes = n * sizeof(double);
  double *a = NULL, t[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    if (!a || fresh) {
      if (a)
        munmap(a, bytes);
      a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (a == MAP_FAILED) {
        perror("mmap");
        exit(1);
      }
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
      a[i] = i * 1e-9;
    double t0 = omp_get_wtime(), total = stream_sum(a, n);
    t[r] = omp_get_wtime() - t0;
    *keep += total;
  }
  munmap(a, bytes);
  qsort(t, ROUNDS, sizeof(double), by_value);
  printf("%-6s median %.3f ms, min %.3f ms\n", fresh ? "fresh" : "reused", t[ROUNDS / 2] * 1e3,
         t[0] * 1e3);
  return t[ROUNDS / 2];
}

int main(int argc, char **argv)
{
  if (argc != 2 || atol(argv[1]) < 256) {
    fprintf(stderr, "usage: %s SIZE_IN_BYTES (at least 256)\n", argv[0]);
    return 2;
  }
  long n = atol(argv[1]) / 256 * 32; /* whole blocks of 32 doubles */
  double keep = 0;
  printf("%.1f MB on %d threads\n", n * 8 / 1e6, omp_get_max_threads());
  double f = run(n, 1, &keep), r = run(n, 0, &keep);
  printf("fresh / reused: %.2fx (checksum %g)\n", f / r, keep);
  return 0;
}
