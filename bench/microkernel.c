/* The inner loop of a register block alone, on one core, its operands in
 * L1: GFLOP/s of a U x (V vectors) block of accumulators updated along
 * k = 0..63, per k V vector loads of the streamed operand (gemm's packed
 * B[k][j..]) and, per row, one value of the other operand (gemm's hoisted
 * alpha * A[i][k]) multiplied into every vector of the row. Three forms:
 *
 *   mul+add, broadcast  what poly-opt's bit-exact blocks compile to: the
 *                       value broadcast from a double (vbroadcastsd), then
 *                       a multiply and an add per vector
 *   mul+add, vector     the value read as a whole vector from a buffer that
 *                       holds it in every lane (no broadcast instruction)
 *   fma, broadcast      contract=true's blocks
 *
 * for the block shapes of the CPU's vector width (AVX-512: 8 lanes, AVX2:
 * 4). The ceiling of a register block's loop on this core, by shape and
 * form, beside bench/peak.c's (independent chains, no loads).
 *
 *   clang-22 -O3 -march=native -ffp-contract=off bench/microkernel.c -o /tmp/polyrs-microkernel
 *   taskset -c 0 /tmp/polyrs-microkernel
 *
 * (-ffp-contract=off keeps the multiplies and adds apart; the fma form
 * uses the intrinsic.) See docs/optimizer.md, "What bounds the bit-exact
 * blocks on Zen 4".
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__)
#define LANES 8
typedef __m512d vec;
#define LOAD _mm512_load_pd
#define LOADU _mm512_loadu_pd
#define STOREU _mm512_storeu_pd
#define SPLAT _mm512_set1_pd
#define MUL _mm512_mul_pd
#define ADD _mm512_add_pd
#define FMA _mm512_fmadd_pd
#define ISA "AVX-512"
#elif defined(__AVX2__) && defined(__FMA__)
#define LANES 4
typedef __m256d vec;
#define LOAD _mm256_load_pd
#define LOADU _mm256_loadu_pd
#define STOREU _mm256_storeu_pd
#define SPLAT _mm256_set1_pd
#define MUL _mm256_mul_pd
#define ADD _mm256_add_pd
#define FMA _mm256_fmadd_pd
#define ISA "AVX2"
#else
#error "needs AVX2 with FMA, or AVX-512"
#endif

enum { K = 64, MAX_ROWS = 16, MAX_VECS = 4 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* a: K x MAX_ROWS values (broadcast forms) or K x MAX_ROWS vectors of one
   value each (vector form); b: K x V vectors; c: U x V vectors. */
#define BLOCK(NAME, U, V, ROW_VALUE, UPDATE)                                   \
  __attribute__((noinline)) static void NAME(const double *a, const double *b, \
                                             double *c, long reps) {           \
    for (long r = 0; r < reps; r++) {                                          \
      vec acc[U][V];                                                           \
      for (int u = 0; u < U; u++)                                              \
        for (int v = 0; v < V; v++) acc[u][v] = LOADU(c + (u * V + v) * LANES); \
      for (int k = 0; k < K; k++) {                                            \
        vec bv[V];                                                             \
        for (int v = 0; v < V; v++) bv[v] = LOAD(b + (k * V + v) * LANES);     \
        _Pragma("GCC unroll 16") for (int u = 0; u < U; u++) {                 \
          vec x = ROW_VALUE;                                                   \
          _Pragma("GCC unroll 4") for (int v = 0; v < V; v++)                  \
              acc[u][v] = UPDATE;                                              \
        }                                                                      \
      }                                                                        \
      for (int u = 0; u < U; u++)                                              \
        for (int v = 0; v < V; v++) STOREU(c + (u * V + v) * LANES, acc[u][v]); \
    }                                                                          \
  }

#define BROADCAST SPLAT(a[k * MAX_ROWS + u])
#define WHOLE LOAD(a + (k * MAX_ROWS + u) * LANES)
#define MULADD ADD(acc[u][v], MUL(x, bv[v]))
#define FUSED FMA(x, bv[v], acc[u][v])

/* Shapes: the bit-exact block (half the registers accumulate, two vectors
   wide; one vector wide, every accumulator a row, where 512-bit broadcasts
   are slow), contract=true's (three quarters), and blocks four vectors
   wide with as many or fewer rows. */
#if LANES == 8
#define SHAPES(F) F(8, 2) F(16, 1) F(12, 2) F(4, 4) F(6, 4)
#else
#define SHAPES(F) F(4, 2) F(6, 2) F(2, 4) F(3, 4)
#endif

#define DEFINE(U, V)                                 \
  BLOCK(bc_##U##x##V, U, V, BROADCAST, MULADD)       \
  BLOCK(whole_##U##x##V, U, V, WHOLE, MULADD)        \
  BLOCK(fma_##U##x##V, U, V, BROADCAST, FUSED)
SHAPES(DEFINE)

typedef void (*kernel)(const double *, const double *, double *, long);

static double gflops(kernel f, int u, int v, const double *a, const double *b,
                     double *c) {
  const long reps = 100000;
  double best = 1e30;
  for (int t = 0; t < 5; t++) {
    double t0 = now();
    f(a, b, c, reps);
    double d = now() - t0;
    if (d < best) best = d;
  }
  return (double)reps * K * u * v * LANES * 2 / best / 1e9;
}

int main(void) {
  double *a = aligned_alloc(64, sizeof(double) * K * MAX_ROWS * LANES);
  double *b = aligned_alloc(64, sizeof(double) * K * MAX_VECS * LANES);
  double *c = aligned_alloc(64, sizeof(double) * MAX_ROWS * MAX_VECS * LANES);
  if (!a || !b || !c) return 1;
  for (int i = 0; i < K * MAX_ROWS * LANES; i++) a[i] = 1e-9 * (i / LANES);
  for (int i = 0; i < K * MAX_VECS * LANES; i++) b[i] = 1e-9 * i;
  for (int i = 0; i < MAX_ROWS * MAX_VECS * LANES; i++) c[i] = 0;
  printf("%s, %d doubles per vector, one core, GFLOP/s\n", ISA, LANES);
  printf("%-8s %20s %20s %20s\n", "block", "mul+add, broadcast", "mul+add, vector",
         "fma, broadcast");
#define ROW(U, V)                                                            \
  printf("%2dx%-5d %20.1f %20.1f %20.1f\n", U, V * LANES,                    \
         gflops(bc_##U##x##V, U, V, a, b, c), gflops(whole_##U##x##V, U, V, a, b, c), \
         gflops(fma_##U##x##V, U, V, a, b, c));
  SHAPES(ROW)
  /* Keeps the results live. */
  double sum = 0;
  for (int i = 0; i < MAX_ROWS * MAX_VECS * LANES; i++) sum += c[i];
  printf("[%g]\n", sum);
  return 0;
}
