/* PolyBench/C 4.2.1 jacobi-1d dataset sizes (from jacobi-1d.h). */
#ifdef MINI_DATASET
#define TSTEPS 20
#define N 30
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 120
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 400
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 2000
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 4000
#endif
