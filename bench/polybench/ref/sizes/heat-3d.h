/* PolyBench/C 4.2.1 heat-3d dataset sizes (from heat-3d.h). */
#ifdef MINI_DATASET
#define TSTEPS 20
#define N 10
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 20
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 40
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 120
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 200
#endif
