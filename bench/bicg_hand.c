// bicg at PolyBench's LARGE size (A: 2100 x 1900 doubles, 32 MB), written by
// hand with AVX-512 intrinsics: what the two-pass plan polyrs makes and the
// one-pass scheme it does not make cost on a machine (docs/optimizer.md,
// "bicg").
//
//   clang-22 -O3 -march=native -ffp-contract=off -fopenmp bench/bicg_hand.c -o /tmp/bicg_hand
//   OMP_NUM_THREADS=2 /tmp/bicg_hand [offset [reinit]]
//   (OMP_NUM_THREADS=2 /tmp/bicg_hand 2 1: the benchmark runner's conditions)
//
// Needs AVX-512F. Every scheme computes bicg bit for bit (each s[j] and q[i]
// a sum in the input's order; -ffp-contract=off keeps mul and add apart):
// the program checks each against the plain loop nest before timing it, and
// reads the timed results afterwards, so that no pass is dead code (a store
// nothing reads is deleted by the compiler, and a pass with it).
//   s        the s pass alone: s[j] += r[i] * A[i][j], columns split between
//            the threads, 8 rows jammed (a column stream)
//   q8, q16  the q pass alone: q[i] += A[i][j] * p[j], rows split between the
//            threads, 8 or 16 rows in the lanes of one or two vectors (8x8
//            blocks transposed in registers)
//   s+q16    both passes, one after the other (the plan polyrs makes)
//   one-pass a wavefront over tiles of 64 rows and two column halves: each
//            tile's rows are read once by both statements while in cache
//   interleaved  no synchronization at all (the statements share no cell):
//            each thread runs, tile of 64 rows by tile, s over its column
//            share, then q over its half of the tile's rows, which the two
//            threads' s have just read
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI 2100
#define NJ 1900
#define RUNS 300

// A sits `offset` doubles into a 64-byte aligned buffer (argument 1,
// default 0): 2 puts it where malloc puts a large block, 16 bytes past a
// page, as in polyrs-runner.
static double A_buf[NI * NJ + 8] __attribute__((aligned(64)));
static double (*A)[NJ];
static double s[NJ], q[NI], p[NJ], r[NI], s_ref[NJ], q_ref[NI];

// o[l] = column l of the 8x8 block whose rows are in[0..8].
static inline void transpose8(const __m512d in[8], __m512d o[8]) {
  __m512d t[8], u[8];
  for (int k = 0; k < 4; k++) {
    t[2 * k] = _mm512_unpacklo_pd(in[2 * k], in[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_pd(in[2 * k], in[2 * k + 1]);
  }
  const __m512i i0 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i i1 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int k = 0; k < 2; k++)
    for (int h = 0; h < 2; h++) {
      u[4 * k + h] = _mm512_permutex2var_pd(t[4 * k + h], i0, t[4 * k + h + 2]);
      u[4 * k + h + 2] = _mm512_permutex2var_pd(t[4 * k + h], i1, t[4 * k + h + 2]);
    }
  const __m512i j0 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
  const __m512i j1 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
  for (int h = 0; h < 4; h++) {
    o[h] = _mm512_permutex2var_pd(u[h], j0, u[h + 4]);
    o[h + 4] = _mm512_permutex2var_pd(u[h], j1, u[h + 4]);
  }
}

// Rows [i0, i1) of s's update over columns [ja, jb), 8 rows jammed.
static void s_rows(int i0, int i1, int ja, int jb) {
  int i = i0;
  for (; i + 8 <= i1; i += 8)
    for (int j = ja; j < jb; j++) {
      double v = s[j];
      for (int l = 0; l < 8; l++) v += r[i + l] * A[i + l][j];
      s[j] = v;
    }
  for (; i < i1; i++)
    for (int j = ja; j < jb; j++) s[j] += r[i] * A[i][j];
}

// Rows [i0, i1) of q's sums over columns [ja, jb): `rows` (8 or 16) rows in
// the lanes of one or two vectors, the rest scalar.
static void q_rows(int i0, int i1, int ja, int jb, int rows) {
  int i = i0;
  for (; i + rows <= i1; i += rows) {
    __m512d a0 = _mm512_loadu_pd(&q[i]), a1 = rows == 16 ? _mm512_loadu_pd(&q[i + 8]) : a0;
    int j = ja;
    for (; j + 8 <= jb; j += 8) {
      __m512d in[8], o[8], in2[8], o2[8];
      for (int l = 0; l < 8; l++) in[l] = _mm512_loadu_pd(&A[i + l][j]);
      transpose8(in, o);
      if (rows == 16) {
        for (int l = 0; l < 8; l++) in2[l] = _mm512_loadu_pd(&A[i + 8 + l][j]);
        transpose8(in2, o2);
      }
      for (int l = 0; l < 8; l++) {
        __m512d pv = _mm512_set1_pd(p[j + l]);
        a0 = _mm512_add_pd(a0, _mm512_mul_pd(o[l], pv));
        if (rows == 16) a1 = _mm512_add_pd(a1, _mm512_mul_pd(o2[l], pv));
      }
    }
    _mm512_storeu_pd(&q[i], a0);
    if (rows == 16) _mm512_storeu_pd(&q[i + 8], a1);
    for (; j < jb; j++)
      for (int l = 0; l < rows; l++) q[i + l] += A[i + l][j] * p[j];
  }
  for (; i < i1; i++)
    for (int j = ja; j < jb; j++) q[i] += A[i][j] * p[j];
}

static void s_pass(void) {
#pragma omp parallel
  {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    int ja = NJ / 8 * t / T * 8, jb = t == T - 1 ? NJ : NJ / 8 * (t + 1) / T * 8;
    s_rows(0, NI, ja, jb);
  }
}

static void q_pass(int rows) {
  int blocks = NI / rows;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < blocks; b++)
    q_rows(b * rows, b == blocks - 1 ? NI : (b + 1) * rows, 0, NJ, rows);
}

// Tiles of RB rows x (NJ / CT) columns; tile (rt, ct) runs in wave rt + ct.
enum { RB = 64, CT = 2 };
static void one_pass(void) {
  int nrt = (NI + RB - 1) / RB, cw = NJ / 8 / CT * 8;
  for (int w = 0; w < nrt + CT - 1; w++) {
#pragma omp parallel for schedule(static, 1)
    for (int ct = 0; ct < CT; ct++) {
      int rt = w - ct;
      if (rt < 0 || rt >= nrt) continue;
      int i0 = rt * RB, i1 = i0 + RB < NI ? i0 + RB : NI;
      int ja = ct * cw, jb = ct == CT - 1 ? NJ : (ct + 1) * cw;
      s_rows(i0, i1, ja, jb);
      q_rows(i0, i1, ja, jb, 16);
    }
  }
}

// Interleaved passes, no synchronization: thread t runs, for each tile of
// RI rows, s over those rows and its column share, then q over its half of
// the tile's rows (halves dealt out round-robin), while the tile is in cache.
enum { RI = 64 };
static void interleaved(void) {
#pragma omp parallel
  {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    int ja = NJ / 8 * t / T * 8, jb = t == T - 1 ? NJ : NJ / 8 * (t + 1) / T * 8;
    for (int i0 = 0; i0 < NI; i0 += RI) {
      int i1 = i0 + RI < NI ? i0 + RI : NI;
      s_rows(i0, i1, ja, jb);
      int h = (i1 - i0) / T / 16 * 16, q0 = i0 + t * h, q1 = t == T - 1 ? i1 : q0 + h;
      q_rows(q0, q1, 0, NJ, 16);
    }
  }
}

static void run(int mode) {
  memset(s, 0, sizeof s);
  memset(q, 0, sizeof q);
  switch (mode) {
    case 0: s_pass(); break;
    case 1: q_pass(8); break;
    case 2: q_pass(16); break;
    case 3: s_pass(); q_pass(16); break;
    case 4: one_pass(); break;
    default: interleaved(); break;
  }
}

static int cmp(const void *a, const void *b) {
  double d = *(const double *)a - *(const double *)b;
  return d < 0 ? -1 : d > 0;
}

static void init_A(void) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) A[i][j] = (i * j % 7) * 0.1 + 0.01;
}

// Arguments: the offset of A in doubles (default 0) and 1 to write A again
// before each timed run, as the benchmark's initialization does (default
// 0).
int main(int argc, char **argv) {
  static const char *names[] = {"s", "q8", "q16", "s+q16", "one-pass", "interleaved"};
  int offset = argc > 1 ? atoi(argv[1]) : 0, reinit = argc > 2 && atoi(argv[2]);
  if (offset < 0 || offset > 8) {
    fprintf(stderr, "offset must be 0 to 8 doubles\n");
    return 2;
  }
  A = (double (*)[NJ])(A_buf + offset);
  init_A();
  for (int i = 0; i < NI; i++) r[i] = (i % 97) * 1e-3 + 0.25;
  for (int j = 0; j < NJ; j++) p[j] = (j % 89) * 1e-3 + 0.5;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      s_ref[j] += r[i] * A[i][j];
      q_ref[i] += A[i][j] * p[j];
    }
  printf("bicg %dx%d, %d threads, %d runs each (ms), A at +%d doubles%s\n", NI, NJ,
         omp_get_max_threads(), RUNS, offset, reinit ? ", written again before each run" : "");
  int bad = 0;
  for (int mode = 0; mode < 6; mode++) {
    run(mode);
    int has_s = mode == 0 || mode >= 3, has_q = mode != 0;
    int exact = (!has_s || memcmp(s, s_ref, sizeof s) == 0) &&
                (!has_q || memcmp(q, q_ref, sizeof q) == 0);
    bad |= !exact;
    static double ts[RUNS];
    double sum = 0;
    for (int k = 0; k < RUNS; k++) {
      if (reinit) init_A();
      double t = omp_get_wtime();
      run(mode);
      ts[k] = omp_get_wtime() - t;
      sum += s[k % NJ] + q[k % NI];
    }
    qsort(ts, RUNS, sizeof ts[0], cmp);
    printf("%-9s min %.3f median %.3f  %s (%g)\n", names[mode], ts[0] * 1e3,
           ts[RUNS / 2] * 1e3, exact ? "bit-exact" : "DIFFERENT", sum);
  }
  return bad;
}
