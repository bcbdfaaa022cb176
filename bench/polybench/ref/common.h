/* Shared helpers for the C references of bench/polybench (mirrors PolyBench/C 4.2.1
   with DATA_TYPE forced to double, and the checksum printed by the MLIR @main). */
#ifndef POLYRS_REF_COMMON_H
#define POLYRS_REF_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) && \
    !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#define LARGE_DATASET
#endif

#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define SQRT_FUN(x) sqrt(x)
#define EXP_FUN(x) exp(x)
#define POW_FUN(x, y) pow(x, y)

/* checksum = sum_k v[k] * (1 + k mod 7), k = row-major linear index inside each array,
   accumulated over the output arrays in PolyBench's print_array order. */
static double polyrs_checksum = 0.0;
static void checksum_array(const double *p, long count)
{
  long k;
  for (k = 0; k < count; k++)
    polyrs_checksum += p[k] * (double)(1 + k % 7);
}
#define CHECKSUM(arr) checksum_array((const double *)(arr), (long)(sizeof(arr) / sizeof(double)))
#define PRINT_CHECKSUM() printf("%.17g\n", polyrs_checksum)

/* The kernel call, timed when POLYRS_KERNEL_TIME is set in the environment
   (bench/bench.py's C pipelines: gcc -O3, Polly): its wall time goes to
   stderr as "kernel time: <seconds>". No effect on the results. */
#include <time.h>
static double polyrs_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#define POLYRS_TIMED(call)                                                  \
  do {                                                                      \
    double polyrs_t0 = polyrs_now();                                        \
    call;                                                                   \
    double polyrs_t1 = polyrs_now();                                        \
    if (getenv("POLYRS_KERNEL_TIME"))                                       \
      fprintf(stderr, "kernel time: %.9f\n", polyrs_t1 - polyrs_t0);       \
  } while (0)
#endif
