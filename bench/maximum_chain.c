/* What an exact maximum costs per vector in a reduction, data in the L1:
 * 8 independent accumulators over a 16 KB buffer, each step one 512-bit
 * load and the reduction's instructions, ns per vector (one thread):
 *
 *   vmaxps                       the x86 maximum (not exact: NaN and zeros)
 *   vrangeps                     exact but for NaN operands (drops them)
 *   vrangeps, vcmpunordps, masked vaddps
 *                                exact: src/lower/minmax.rs, call by call
 *   vrangeps + vfixupimmps       exact: a reduction's chain there (the NaNs
 *                                joined apart from the maximum)
 *   vrangeps + masked vcmpordps  the NaNs kept in a mask register chain
 *
 *   gcc -O3 -march=native bench/maximum_chain.c -o /tmp/maximum_chain && /tmp/maximum_chain
 *
 * AMD EPYC (Zen 5), session 66: 0.12, 0.12-0.13, 0.35, 0.23 and 0.47-0.49 ns. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static float buf[4096] __attribute__((aligned(64)));
#define K 8

#define RUN(label, step)                                                        \
  {                                                                             \
    __m512 acc[K], w[K];                                                        \
    __mmask16 ok[K];                                                            \
    const __m512i table = _mm512_set1_epi32(0x21);                              \
    (void)table;                                                                \
    for (int k = 0; k < K; k++) {                                               \
      acc[k] = _mm512_set1_ps(-1);                                              \
      w[k] = _mm512_setzero_ps();                                               \
      ok[k] = 0xffff;                                                           \
    }                                                                           \
    double t0 = now();                                                          \
    long n = 0;                                                                 \
    for (int rep = 0; rep < 20000; rep++)                                       \
      for (int j = 0; j < 4096; j += 16 * K) {                                  \
        for (int k = 0; k < K; k++) {                                           \
          __m512 a = _mm512_load_ps(buf + j + 16 * k);                          \
          step;                                                                 \
        }                                                                       \
        n += K;                                                                 \
      }                                                                         \
    double t = now() - t0;                                                      \
    float s = 0;                                                                \
    for (int k = 0; k < K; k++)                                                 \
      s += _mm512_reduce_add_ps(acc[k]) + _mm512_reduce_add_ps(w[k]) + ok[k];   \
    printf("%-32s %.3f ns per vector (%g)\n", label, t / n * 1e9, s);           \
  }

int main(void) {
  for (int i = 0; i < 4096; i++)
    buf[i] = (i * 37 % 97) / 97.f;
  for (int round = 0; round < 2; round++) {
    RUN("vmaxps", acc[k] = _mm512_max_ps(acc[k], a))
    RUN("vrangeps", acc[k] = _mm512_range_ps(acc[k], a, 5))
    RUN("vrangeps, vcmpunordps, vaddps{k}", {
      __m512 m = _mm512_range_ps(acc[k], a, 5);
      __mmask16 u = _mm512_cmp_ps_mask(acc[k], a, _CMP_UNORD_Q);
      acc[k] = _mm512_mask_add_ps(m, u, acc[k], a);
    })
    RUN("vrangeps + vfixupimmps", {
      acc[k] = _mm512_range_ps(acc[k], a, 5);
      w[k] = _mm512_fixupimm_ps(w[k], a, table, 0);
    })
    RUN("vrangeps + vcmpordps{k}", {
      acc[k] = _mm512_range_ps(acc[k], a, 5);
      ok[k] = _mm512_mask_cmp_ps_mask(ok[k], a, a, _CMP_ORD_Q);
    })
  }
  return 0;
}
