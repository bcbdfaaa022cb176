// trisolv written by hand in C with OpenMP, five schedules of the same
// solve, to know which one reaches the memory's rate (docs/optimizer.md,
// "Session 58"):
//  - column blocks: for each block of B columns, in order, the diagonal
//    block's rows one after another, then the rows below it in parallel,
//    each adding the block's B terms (8 rows at a time, one chain each;
//    or, reassociated, each row's block as a vector dot product);
//  - pipeline: rows in blocks of R dealt to the two threads in turn, each
//    block first adding the terms of the columns that are final, then,
//    after a flag of the other thread's block, the rest (no barrier);
//  - row steps: the same order with barriers only (what an affine
//    schedule of the rows strip-mined by R can say): for each block of R
//    rows, the terms of the columns before the block in parallel over the
//    rows (8 at a time, one chain each; or as dot products; or one row at a
//    time), then the block's own triangle on one thread.
//  - lookahead (session 67): the row steps, with step s's triangle (and
//    its terms of block s-1's columns) as one task beside the tasks of
//    step s+1's rows' terms of the columns before block s, dealt
//    dynamically: the triangle overlaps the next step's streaming, but
//    the thread on it leaves the other to stream alone (one thread draws
//    less than half of two threads' bandwidth here), and at 8,000 rows
//    it ran no faster than the row steps.
// Every row's terms are added in the original order except in the "dot
// products" variants, so the others are bit-identical to the sequential
// solve (checked below).
//
//   gcc -O3 -march=native -ffp-contract=off -fopenmp bench/trisolv_hand.c -o /tmp/trisolv_hand
//   /tmp/trisolv_hand        (two threads; medians of 60 runs)
//
// PolyBench's EXTRALARGE size by default (L: 4000 x 4000 doubles, 128 MB,
// its lower triangle 64 MB is read once); -DN=... for others.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef N
#define N 4000
#endif
static double *L, x[N], b[N], ref[N];

static void sequential(double *restrict y) {
  for (int i = 0; i < N; i++) {
    y[i] = b[i];
    for (int j = 0; j < i; j++) y[i] -= L[(long)i * N + j] * y[j];
    y[i] = y[i] / L[(long)i * N + i];
  }
}

// rows [lo, hi) take the terms of columns [c0, c1): 8 rows at a time, one
// chain per row (independent chains hide the add's latency).
static void panel(int lo, int hi, int c0, int c1) {
  int i = lo;
  for (; i + 8 <= hi; i += 8) {
    double s[8];
    for (int r = 0; r < 8; r++) s[r] = x[i + r];
    for (int j = c0; j < c1; j++) {
      double xj = x[j];
      for (int r = 0; r < 8; r++) s[r] -= L[(long)(i + r) * N + j] * xj;
    }
    for (int r = 0; r < 8; r++) x[i + r] = s[r];
  }
  for (; i < hi; i++) {
    double s = x[i];
    for (int j = c0; j < c1; j++) s -= L[(long)i * N + j] * x[j];
    x[i] = s;
  }
}

// the same terms with reassociate's freedom: each row's block of terms as a
// vector dot product (partial sums in the lanes, added at the end).
static void panel_dot(int lo, int hi, int c0, int c1) {
  for (int i = lo; i < hi; i++) {
    const double *restrict a = L + (long)i * N;
    double s = 0.0;
    #pragma omp simd reduction(+:s)
    for (int j = c0; j < c1; j++) s += a[j] * x[j];
    x[i] -= s;
  }
}

static void blocked(int B, int dot) {
  #pragma omp parallel num_threads(2)
  {
    #pragma omp for schedule(static)
    for (int i = 0; i < N; i++) x[i] = b[i];
    for (int c0 = 0; c0 < N; c0 += B) {
      int c1 = c0 + B < N ? c0 + B : N;
      #pragma omp single
      for (int i = c0; i < c1; i++) {
        double s = x[i];
        for (int j = c0; j < i; j++) s -= L[(long)i * N + j] * x[j];
        x[i] = s / L[(long)i * N + i];
      }
      int rows = N - c1, chunks = (rows + 7) / 8;
      #pragma omp for schedule(static)
      for (int k = 0; k < chunks; k++) {
        int lo = c1 + 8 * k, hi = lo + 8 < N ? lo + 8 : N;
        if (dot) panel_dot(lo, hi, c0, c1); else panel(lo, hi, c0, c1);
      }
    }
  }
}

// rows in blocks of R dealt to the two threads in turn, each block's terms
// of the columns the other thread's running block does not write first,
// then (after that block's flag) the rest: a pipeline with flags, no
// barrier (OpenMP's parallel loops cannot say it).
static volatile int done[N / 8 + 2];
static void pipeline(int R) {
  int blocks = (N + R - 1) / R;
  for (int k = 0; k < blocks; k++) done[k] = 0;
  #pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    for (int k = t; k < blocks; k += 2) {
      int lo = k * R, hi = lo + R < N ? lo + R : N;
      for (int i = lo; i < hi; i++) x[i] = b[i];
      int ready = k >= 1 ? (k - 1) * R : 0;
      panel(lo, hi, 0, ready);
      if (k >= 1) {
        while (!done[k - 1]) {
          #pragma omp flush
        }
        #pragma omp flush
        panel(lo, hi, ready, lo);
      }
      for (int i = lo; i < hi; i++) {
        double s = x[i];
        for (int j = lo; j < i; j++) s -= L[(long)i * N + j] * x[j];
        x[i] = s / L[(long)i * N + i];
      }
      #pragma omp flush
      done[k] = 1;
      #pragma omp flush
    }
  }
}

// the pipeline's order with OpenMP's barriers only, what an affine
// schedule of the rows strip-mined by R can say: for each block of R rows,
// its rows' terms of the columns before the block in parallel (those x[j]
// are final), then the block's own triangle on one thread.
// one row at a time, each row's terms a chain (no interleaving of rows)
static void panel_rows(int lo, int hi, int c0, int c1) {
  for (int i = lo; i < hi; i++) {
    double s = x[i];
    for (int j = c0; j < c1; j++) s -= L[(long)i * N + j] * x[j];
    x[i] = s;
  }
}

static void steps(int R, int how) {
  #pragma omp parallel num_threads(2)
  {
    for (int lo = 0; lo < N; lo += R) {
      int hi = lo + R < N ? lo + R : N, chunks = (hi - lo + 7) / 8;
      #pragma omp for schedule(static)
      for (int k = 0; k < chunks; k++) {
        int r0 = lo + 8 * k, r1 = r0 + 8 < hi ? r0 + 8 : hi;
        for (int i = r0; i < r1; i++) x[i] = b[i];
        if (how == 0) panel(r0, r1, 0, lo);
        else if (how == 1) panel_dot(r0, r1, 0, lo);
        else panel_rows(r0, r1, 0, lo);
      }
      #pragma omp single
      for (int i = lo; i < hi; i++) {
        double s = x[i];
        for (int j = lo; j < i; j++) s -= L[(long)i * N + j] * x[j];
        x[i] = s / L[(long)i * N + i];
      }
    }
  }
}


// the row steps with a lookahead: in step s, one task adds block s's terms
// of block s-1's columns and runs block s's triangle, while the other tasks
// (8 rows each, dealt as threads come free: dynamic) add block s+1's terms
// of the columns before block s, whose x[j] are final; one barrier a step.
// Every row's terms still in the original order: bit-identical.
static void lookahead(int R) {
  int blocks = (N + R - 1) / R;
  #pragma omp parallel num_threads(2)
  {
    #pragma omp for schedule(static)
    for (int i = 0; i < (R < N ? R : N); i++) x[i] = b[i];
    for (int s = 0; s < blocks; s++) {
      int lo = s * R, hi = lo + R < N ? lo + R : N;
      int nlo = hi, nhi = nlo + R < N ? nlo + R : N, chunks = (nhi - nlo + 7) / 8;
      #pragma omp for schedule(dynamic, 1)
      for (int k = 0; k <= chunks; k++) {
        if (k == 0) {
          if (s >= 1) panel(lo, hi, lo - R, lo);
          for (int i = lo; i < hi; i++) {
            double v = x[i];
            for (int j = lo; j < i; j++) v -= L[(long)i * N + j] * x[j];
            x[i] = v / L[(long)i * N + i];
          }
        } else {
          int r0 = nlo + 8 * (k - 1), r1 = r0 + 8 < nhi ? r0 + 8 : nhi;
          for (int i = r0; i < r1; i++) x[i] = b[i];
          panel(r0, r1, 0, lo);
        }
      }
    }
  }
}

static int cmp(const void *a, const void *b) {
  double d = *(const double *)a - *(const double *)b;
  return (d > 0) - (d < 0);
}

int main(void) {
  L = aligned_alloc(64, sizeof(double) * N * N);
  for (int i = 0; i < N; i++) {
    b[i] = i;
    for (int j = 0; j <= i; j++) L[(long)i * N + j] = (double)(i + N - j + 1) * 2 / N;
    for (int j = i + 1; j < N; j++) L[(long)i * N + j] = 0;
  }
  sequential(ref);
  int sizes[] = {64, 128, 256, 512};
  for (int v = -1; v < 22; v++) {
    double t[60];
    for (int r = 0; r < 60; r++) {
      double t0 = omp_get_wtime();
      if (v < 0) sequential(x); else if (v < 8) blocked(sizes[v % 4], v >= 4); else if (v < 12) pipeline(sizes[v % 4] / 2); else if (v < 16) steps(sizes[v % 4] / 2, 0);
      else if (v < 18) steps(64, v - 15);
      else lookahead(sizes[v % 4]);
      t[r] = omp_get_wtime() - t0;
    }
    qsort(t, 60, sizeof t[0], cmp);
    int same = memcmp(x, ref, sizeof x) == 0;
    if (v < 0) printf("sequential rows:     %.3f ms (min %.3f)\n", t[30] * 1e3, t[0] * 1e3);
    else if (v >= 18) printf("lookahead R=%-4d      %.3f ms (min %.3f) %s\n", sizes[v % 4], t[30] * 1e3, t[0] * 1e3, same ? "bit-identical" : "DIFFERENT");
    else if (v >= 16) printf("row steps R=64 %s %.3f ms (min %.3f) %s\n", v == 16 ? "dot products" : "row chains  ", t[30] * 1e3, t[0] * 1e3, same ? "bit-identical" : "reassociated");
    else if (v >= 12) printf("row steps R=%-4d      %.3f ms (min %.3f) %s\n", sizes[v % 4] / 2, t[30] * 1e3, t[0] * 1e3, same ? "bit-identical" : "DIFFERENT");
    else if (v >= 8) printf("pipeline R=%-4d       %.3f ms (min %.3f) %s\n", sizes[v % 4] / 2, t[30] * 1e3, t[0] * 1e3, same ? "bit-identical" : "DIFFERENT");
    else printf("column blocks B=%-4d %s %.3f ms (min %.3f) %s\n", sizes[v % 4],
                v >= 4 ? "dot products " : "8-row chains", t[30] * 1e3, t[0] * 1e3,
                same ? "bit-identical" : "reassociated");
  }
  return 0;
}
