/* PolyBench/C 4.2.1 gesummv dataset sizes (from gesummv.h). */
#ifdef MINI_DATASET
#define N 30
#endif
#ifdef SMALL_DATASET
#define N 90
#endif
#ifdef MEDIUM_DATASET
#define N 250
#endif
#ifdef LARGE_DATASET
#define N 1300
#endif
#ifdef EXTRALARGE_DATASET
#define N 2800
#endif
