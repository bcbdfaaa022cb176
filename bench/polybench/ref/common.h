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

/* Every array on a 64-byte boundary, the cache line, as the MLIR programs'
   (bench/polybench/gen.py): PolyBench/C's own are page-aligned
   (posix_memalign), and a compiler's choice for a static array varies
   (clang-22 put bicg's A 16 bytes past a line, gcc 64-aligned it). */
#define POLYRS_ALIGNED __attribute__((aligned(64)))
static inline void *polyrs_alloc(size_t bytes)
{
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes) != 0) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  return p;
}
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

/* The initialization INIT, then the kernel call CALL, timed; once, or
   again and again when POLYRS_KERNEL_RUNS (at least that many runs) or
   POLYRS_KERNEL_MIN_TIME (until the timed calls add up to that many
   seconds, at most 4x that in wall time, initialization included, and 200
   runs) is set: polyrs-runner's --repeat and --min-time, for
   bench/bench.py's C pipelines (gcc -O3, Polly). The arrays are static, so
   every run after the first finds them where the previous run left them,
   as the MLIR programs' arrays under polyrs-runner --reuse-memory. With
   POLYRS_KERNEL_TIME set, each call's wall time goes to stderr as
   "kernel time: <seconds>". Every run initializes the arrays again, so the
   results (the checksum, of the last run) do not depend on the runs. */
#include <time.h>
static double polyrs_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static long polyrs_env_long(const char *name, long dflt)
{
  const char *v = getenv(name);
  return v ? atol(v) : dflt;
}
static double polyrs_env_double(const char *name)
{
  const char *v = getenv(name);
  return v ? atof(v) : 0.0;
}
#define POLYRS_RUN(init, call)                                                  \
  do {                                                                          \
    long polyrs_runs = polyrs_env_long("POLYRS_KERNEL_RUNS", 1), polyrs_run;    \
    double polyrs_min = polyrs_env_double("POLYRS_KERNEL_MIN_TIME");            \
    double polyrs_sum = 0.0, polyrs_began = polyrs_now();                       \
    int polyrs_print = getenv("POLYRS_KERNEL_TIME") != NULL;                    \
    for (polyrs_run = 0;                                                        \
         polyrs_run < (polyrs_runs > 0 ? polyrs_runs : 1) ||                    \
         (polyrs_sum < polyrs_min && polyrs_run < 200 &&                        \
          polyrs_now() - polyrs_began < 4.0 * polyrs_min);                      \
         polyrs_run++) {                                                        \
      init;                                                                     \
      double polyrs_t0 = polyrs_now();                                          \
      call;                                                                     \
      double polyrs_t1 = polyrs_now();                                          \
      polyrs_sum += polyrs_t1 - polyrs_t0;                                      \
      if (polyrs_print)                                                         \
        fprintf(stderr, "kernel time: %.9f\n", polyrs_t1 - polyrs_t0);          \
    }                                                                           \
  } while (0)
#endif
