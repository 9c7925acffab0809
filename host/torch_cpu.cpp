// Host loops of the torch CPU streams: thin wrappers over rng/torch_cpu.h,
// compiled twice on x86-64 with GCC (target_clones, as host/gamma.cpp): the
// normal kernels' std::fma become FMA instructions where the CPU has them.
//
// On an x86-64 CPU with AVX2 and FMA, the x86 kernels' 16-wide transform
// runs as 8-lane AVX2 code (fill16_avx2): the operations of
// rng/detail/torch_cpu_math.h's x86_log / x86_sincos one for one (each
// fused multiply-add there is one _mm256_fmadd_ps here, or with Fused false
// (kernel x86_windows) a multiply then an add, as there; every other
// operation the same IEEE operation), so the same values;
// tests/test_torch_cpu.cpp compares the two over all 2^24 uniforms.
#include "torch_cpu.h"

#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "../rng/detail/math.h"

#include "fma_clones.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define XRNG_TORCH_AVX2 1
#include <immintrin.h>
#endif

namespace xrng::torch_cpu {

namespace {

#if defined(XRNG_TORCH_AVX2)
using detail::F;

// a b + c: one fused multiply-add (Fused) or the product rounded, then the sum; a b - c (msub) alike.
template <bool Fused>
__attribute__((target("avx2,fma"))) inline __m256 madd(__m256 a, __m256 b, __m256 c) {
  if constexpr (Fused) return _mm256_fmadd_ps(a, b, c);
  else return _mm256_add_ps(_mm256_mul_ps(a, b), c);
}
template <bool Fused>
__attribute__((target("avx2,fma"))) inline __m256 msub(__m256 a, __m256 b, __m256 c) {
  if constexpr (Fused) return _mm256_fmsub_ps(a, b, c);
  else return _mm256_sub_ps(_mm256_mul_ps(a, b), c);
}
// c - a b (fused, or the product rounded first).
template <bool Fused>
__attribute__((target("avx2,fma"))) inline __m256 nmadd(__m256 a, __m256 b, __m256 c) {
  if constexpr (Fused) return _mm256_fnmadd_ps(a, b, c);
  else return _mm256_sub_ps(c, _mm256_mul_ps(a, b));
}

template <bool Fused>
__attribute__((target("avx2,fma"))) inline __m256 log_avx2(__m256 x0) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 invalid = _mm256_cmp_ps(x0, _mm256_setzero_ps(), _CMP_LE_OS);
  __m256 x = _mm256_max_ps(x0, _mm256_castsi256_ps(_mm256_set1_epi32(0x00800000)));
  __m256i imm0 = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
  x = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(~0x7f800000)));
  x = _mm256_or_ps(x, _mm256_set1_ps(0.5f));
  imm0 = _mm256_sub_epi32(imm0, _mm256_set1_epi32(0x7f));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(imm0), one);
  const __m256 mask = _mm256_cmp_ps(x, _mm256_set1_ps(F(0.707106781186547524)), _CMP_LT_OS);
  const __m256 tmp = _mm256_and_ps(x, mask);
  x = _mm256_sub_ps(x, one);
  e = _mm256_sub_ps(e, _mm256_and_ps(one, mask));
  x = _mm256_add_ps(x, tmp);
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 y = _mm256_set1_ps(F(7.0376836292E-2));
  y = madd<Fused>(y, x, _mm256_set1_ps(F(-1.1514610310E-1)));
  y = madd<Fused>(y, x, _mm256_set1_ps(F(1.1676998740E-1)));
  y = madd<Fused>(y, x, _mm256_set1_ps(F(-1.2420140846E-1)));
  y = madd<Fused>(y, x, _mm256_set1_ps(F(1.4249322787E-1)));
  y = madd<Fused>(y, x, _mm256_set1_ps(F(-1.6668057665E-1)));
  y = madd<Fused>(y, x, _mm256_set1_ps(F(2.0000714765E-1)));
  y = madd<Fused>(y, x, _mm256_set1_ps(F(-2.4999993993E-1)));
  y = madd<Fused>(y, x, _mm256_set1_ps(F(3.3333331174E-1)));
  y = _mm256_mul_ps(y, x);
  y = madd<Fused>(y, z, _mm256_mul_ps(e, _mm256_set1_ps(F(-2.12194440e-4))));
  y = nmadd<Fused>(z, _mm256_set1_ps(0.5f), y);
  x = _mm256_add_ps(x, y);
  x = madd<Fused>(e, _mm256_set1_ps(F(0.693359375)), x);
  return _mm256_or_ps(x, invalid);
}

template <bool Fused>
__attribute__((target("avx2,fma"))) inline void sincos_avx2(__m256 x0, __m256* s, __m256* c) {
  const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(0x80000000u)));
  __m256 sign_sin = _mm256_and_ps(x0, sign_mask);
  __m256 x = _mm256_andnot_ps(sign_mask, x0);
  __m256 y = _mm256_mul_ps(x, _mm256_set1_ps(F(1.27323954473516)));
  __m256i j = _mm256_cvttps_epi32(y);
  j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
  y = _mm256_cvtepi32_ps(j);
  const __m256 swap_sign_sin = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, _mm256_set1_epi32(4)), 29));
  const __m256 poly_mask =
      _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, _mm256_set1_epi32(2)), _mm256_setzero_si256()));
  x = madd<Fused>(y, _mm256_set1_ps(F(-0.78515625)), x);
  x = madd<Fused>(y, _mm256_set1_ps(F(-2.4187564849853515625e-4)), x);
  x = madd<Fused>(y, _mm256_set1_ps(F(-3.77489497744594108e-8)), x);
  const __m256 sign_cos = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_andnot_si256(_mm256_sub_epi32(j, _mm256_set1_epi32(2)), _mm256_set1_epi32(4)), 29));
  sign_sin = _mm256_xor_ps(sign_sin, swap_sign_sin);
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 yc = _mm256_set1_ps(F(2.443315711809948E-005));
  yc = madd<Fused>(yc, z, _mm256_set1_ps(F(-1.388731625493765E-003)));
  yc = madd<Fused>(yc, z, _mm256_set1_ps(F(4.166664568298827E-002)));
  yc = _mm256_mul_ps(z, yc);
  yc = msub<Fused>(yc, z, _mm256_mul_ps(z, _mm256_set1_ps(0.5f)));
  yc = _mm256_add_ps(yc, _mm256_set1_ps(1.0f));
  __m256 ys = _mm256_set1_ps(F(-1.9515295891E-4));
  ys = madd<Fused>(ys, z, _mm256_set1_ps(F(8.3321608736E-3)));
  ys = madd<Fused>(ys, z, _mm256_set1_ps(F(-1.6666654611E-1)));
  ys = _mm256_mul_ps(z, ys);
  ys = madd<Fused>(ys, x, x);
  const __m256 ysin2 = _mm256_and_ps(poly_mask, ys);
  const __m256 ysin1 = _mm256_andnot_ps(poly_mask, yc);
  const __m256 sin_v = _mm256_add_ps(ysin1, ysin2);
  const __m256 cos_v = _mm256_add_ps(_mm256_sub_ps(yc, ysin1), _mm256_sub_ps(ys, ysin2));
  *s = _mm256_xor_ps(sin_v, sign_sin);
  *c = _mm256_xor_ps(cos_v, sign_cos);
}

// normal_fill16 with Kernel::x86 (Fused) or x86_windows, 8 lanes at a time (the last step fused in both).
template <bool Fused>
__attribute__((target("avx2,fma"))) void fill16_avx2(float* d, float mean, float std) {
  const __m256 u1 = _mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_loadu_ps(d));
  const __m256 u2 = _mm256_loadu_ps(d + 8);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(_mm256_set1_ps(-2.0f), log_avx2<Fused>(u1)));
  const __m256 theta = _mm256_mul_ps(_mm256_set1_ps(static_cast<float>(2.0 * 3.14159265358979323846)), u2);
  __m256 s, c;
  sincos_avx2<Fused>(theta, &s, &c);
  const __m256 vs = _mm256_set1_ps(std), vm = _mm256_set1_ps(mean);
  _mm256_storeu_ps(d, _mm256_fmadd_ps(_mm256_mul_ps(radius, c), vs, vm));
  _mm256_storeu_ps(d + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, s), vs, vm));
}

bool has_avx2_fma() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return yes;
}

// Whether kernel k's 16-wide transform has an AVX2 form (the x86 kernels) and this CPU runs it.
bool avx2_kernel(Kernel k) { return (is_x86_linux(k) || k == Kernel::x86_windows) && has_avx2_fma(); }

// f(fill16) with kernel k's AVX2 transform (avx2_kernel(k)): a callable on one block of 16.
template <class Fn>
auto with_avx2_fill16(Kernel k, float mean, float std, Fn&& f) {
  if (is_x86_linux(k)) return f([=](float* d) { fill16_avx2<true>(d, mean, std); });
  return f([=](float* d) { fill16_avx2<false>(d, mean, std); });
}

bool has_f16c() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  }();
  return yes;
}

// MklExponential's float values 8 at a time (torch 2.0 to 2.6's exponential_):
// lane j holds x_{i+j} (two registers of four 64-bit lanes), stepped by
// kA^8; the uniform, the logarithm (mkl_ln_f32, or an Intel CPU's: the
// template's MklCpu) and a - ln(u) beta are the header's IEEE operations lane
// for lane (fused exactly where the header fuses), so the same values
// (tests/test_torch_cpu.cpp compares them).
__attribute__((target("avx2"))) inline __m256i mcg31_mul4(__m256i x, __m256i c) {
  const __m256i m = _mm256_set1_epi64x(Mcg31::kM);
  const __m256i p = _mm256_mul_epu32(x, c);  // (x, c < 2^31: the 62-bit products)
  const __m256i r = _mm256_add_epi64(_mm256_and_si256(p, m), _mm256_srli_epi64(p, 31));
  return _mm256_sub_epi64(r, _mm256_and_si256(_mm256_cmpgt_epi64(r, _mm256_set1_epi64x(Mcg31::kM - 1)), m));
}
// x, x a, x a^2, x a^3 (mod m) in four 64-bit lanes.
__attribute__((target("avx2"))) inline __m256i mcg31_lanes4(uint32_t x) {
  const uint32_t x1 = Mcg31::mul(x, Mcg31::kA), x2 = Mcg31::mul(x1, Mcg31::kA), x3 = Mcg31::mul(x2, Mcg31::kA);
  return _mm256_setr_epi64x(x, x1, x2, x3);
}
// The four lanes' x (below 2^31) as four 32-bit integers.
__attribute__((target("avx2"))) inline __m128i mcg31_low4(__m256i x) {
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}
// The four lanes' x / m in binary64 (x times the double 1 / m, the header's float64 uniform).
__attribute__((target("avx2"))) inline __m256d mcg31_quotient4(__m256i x) {
  return _mm256_mul_pd(_mm256_cvtepi32_pd(mcg31_low4(x)), _mm256_set1_pd(1.0 / Mcg31::kM));
}
// ... rounded to float: MklBernoulli::uniform (x / m rounded: the same float for every x < 2^31, checked one by one).
__attribute__((target("avx2"))) inline __m128 mcg31_uniform4(__m256i x) { return _mm256_cvtpd_ps(mcg31_quotient4(x)); }
// ... as an Intel CPU's MKL computes it: MklBernoulli::uniform_intel (x to float, times 2^-31).
__attribute__((target("avx2"))) inline __m128 mcg31_uniform4_intel(__m256i x) {
  return _mm_mul_ps(_mm_cvtepi32_ps(mcg31_low4(x)), _mm_set1_ps(0x1p-31f));
}
// mkl_ln_f32's and mkl_ln_f32_l9's reduction, 8 lanes: u = 2^k (1 + r), 1 + r in [2/3, 4/3).
__attribute__((target("avx2"))) inline void mkl_ln8_reduce(__m256 u, __m256& k, __m256& r) {
  const __m256i off = _mm256_set1_epi32(static_cast<int>(kMklLnOffset));
  const __m256i t = _mm256_sub_epi32(_mm256_castps_si256(u), off);
  k = _mm256_cvtepi32_ps(_mm256_srai_epi32(t, 23));
  r = _mm256_sub_ps(_mm256_castsi256_ps(_mm256_add_epi32(_mm256_and_si256(t, _mm256_set1_epi32(0x7fffff)), off)),
                    _mm256_set1_ps(1.0f));
}
__attribute__((target("avx2"))) inline __m256 mkl_ln8(__m256 u) {
  __m256 k, r;
  mkl_ln8_reduce(u, k, r);
  __m256 p = _mm256_set1_ps(detail::u2f(kMklLnC[8]));
  for (int i = 7; i >= 0; --i) p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(detail::u2f(kMklLnC[i])));
  const __m256 q = _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(r, p), r), r);
  return _mm256_add_ps(_mm256_mul_ps(k, _mm256_set1_ps(detail::u2f(kMklLn2Hi))),
                       _mm256_add_ps(_mm256_mul_ps(k, _mm256_set1_ps(detail::u2f(kMklLn2Lo))), q));
}
// mkl_ln_f32_l9, 8 lanes: the same instructions as MKL's kernel.
__attribute__((target("avx2,fma"))) inline __m256 mkl_ln8_l9(__m256 u) {
  __m256 k, r;
  mkl_ln8_reduce(u, k, r);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(detail::u2f(kMklLnL9C[6])), r, _mm256_set1_ps(detail::u2f(kMklLnL9C[5])));
  for (int i = 4; i >= 0; --i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(detail::u2f(kMklLnL9C[i])));
  return _mm256_fmadd_ps(k, _mm256_set1_ps(detail::u2f(kMklLnLn2)), _mm256_fmadd_ps(_mm256_mul_ps(r, p), r, r));
}
// mkl_ln_f32_e9, 8 lanes: l9's polynomial, every step rounded (no FMA, as MKL's AVX and SSE4.2 kernels).
__attribute__((target("avx2"))) inline __m256 mkl_ln8_e9(__m256 u) {
  __m256 k, r;
  mkl_ln8_reduce(u, k, r);
  __m256 p = _mm256_set1_ps(detail::u2f(kMklLnL9C[6]));
  for (int i = 5; i >= 0; --i) p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(detail::u2f(kMklLnL9C[i])));
  return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(p, r), r), r),
                       _mm256_mul_ps(k, _mm256_set1_ps(detail::u2f(kMklLnLn2))));
}
// Row j of table column c of mkl_ln_f32_z0 in each lane (j in [0, 16): two 8-entry permutes, bit 3 picks).
__attribute__((target("avx2"))) inline __m256 z0_row(int c, __m256i j) {
  const __m256 lo = _mm256_permutevar8x32_ps(_mm256_castsi256_ps(_mm256_loadu_si256(
                                                 reinterpret_cast<const __m256i*>(kMklLnZ0T[c]))), j);
  const __m256 hi = _mm256_permutevar8x32_ps(_mm256_castsi256_ps(_mm256_loadu_si256(
                                                 reinterpret_cast<const __m256i*>(kMklLnZ0T[c] + 8))), j);
  return _mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(_mm256_slli_epi32(j, 28)));
}
// mkl_ln_f32_z0, 8 lanes (AVX-512's vgetmantps and vgetexpps as integer steps on positive normal floats).
__attribute__((target("avx2,fma"))) inline __m256 mkl_ln8_z0(__m256 u) {
  const __m256i b = _mm256_castps_si256(u);
  const __m256i half = _mm256_and_si256(_mm256_srli_epi32(b, 22), _mm256_set1_epi32(1));
  const __m256i j = _mm256_and_si256(_mm256_srli_epi32(b, 19), _mm256_set1_epi32(15));
  const __m256 r = _mm256_sub_ps(
      _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x7fffff)),
                                          _mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(127), half), 23))),
      _mm256_set1_ps(1.0f));
  const __m256 k = _mm256_cvtepi32_ps(
      _mm256_add_epi32(_mm256_sub_epi32(_mm256_srli_epi32(b, 23), _mm256_set1_epi32(127)), half));
  __m256 p = _mm256_fmadd_ps(z0_row(0, j), r, z0_row(1, j));
  p = _mm256_fmadd_ps(p, r, z0_row(2, j));
  p = _mm256_fmadd_ps(p, r, z0_row(3, j));
  return _mm256_fmadd_ps(p, r, _mm256_mul_ps(k, _mm256_set1_ps(detail::u2f(kMklLnLn2))));
}
template <MklCpu L>
__attribute__((target("avx2,fma"))) inline __m256 mkl_ln8_of(__m256 u) {
  if constexpr (L == MklCpu::l9) return mkl_ln8_l9(u);
  else if constexpr (L == MklCpu::z0) return mkl_ln8_z0(u);
  else if constexpr (L == MklCpu::e9) return mkl_ln8_e9(u);
  else return mkl_ln8(u);
}
template <MklCpu L>
__attribute__((target("avx2,fma"))) void mkl_exponential_f32_avx2(MklExponential& g, int64_t n, float beta,
                                                                  float* out) {
  int64_t i = 0;
  if (n >= 8) {
    __m256i a = mcg31_lanes4(g.x), b = mcg31_lanes4(Mcg31::mul(g.x, Mcg31::power(4)));
    const __m256i step = _mm256_set1_epi64x(Mcg31::power(8));
    const __m256 vmin = _mm256_set1_ps(std::numeric_limits<float>::min()), vbeta = _mm256_set1_ps(beta);
    for (; i + 8 <= n; i += 8) {
      if constexpr (!mkl_fma_set(L)) {  // (the generic uniform; a - ln beta rounded twice)
        const __m256 u = _mm256_set_m128(mcg31_uniform4(b), mcg31_uniform4(a));
        _mm256_storeu_ps(out + i, _mm256_sub_ps(vmin, _mm256_mul_ps(mkl_ln8_of<L>(u), vbeta)));
      } else {  // (Intel's uniform; a - ln beta one vfnmadd)
        const __m256 u = _mm256_set_m128(mcg31_uniform4_intel(b), mcg31_uniform4_intel(a));
        _mm256_storeu_ps(out + i, _mm256_fnmadd_ps(mkl_ln8_of<L>(u), vbeta, vmin));
      }
      a = mcg31_mul4(a, step);
      b = mcg31_mul4(b, step);
    }
    g.x = static_cast<uint32_t>(_mm256_extract_epi64(a, 0));
  }
  for (; i < n; ++i) out[i] = g.next_f32(beta);
}
// mkl_ln_f64 of four positive normal doubles (MklExponential's float64
// uniforms): the same binary64 operations (no fused ones), R and the table
// rows {hi, lo} by scalar loads (faster than gathers on the AMD host here:
// 2^20 float64 exponentials in 4.9 ms against 7.3).
__attribute__((target("avx2,fma"))) inline __m256d splat(double v) { return _mm256_set1_pd(v); }
__attribute__((target("avx2,fma"))) inline __m256d mkl_ln4(__m256d x) {
  const __m256i b = _mm256_castpd_si256(x);
  const __m256i frac = _mm256_and_si256(b, _mm256_set1_epi64x(0x000fffffffffffffll));
  const __m256d ms = _mm256_castsi256_pd(_mm256_or_si256(frac, _mm256_set1_epi64x(0x3f50000000000000ll)));
  // E: the high words >> 20 (the sign is 0)
  const __m128i hiw =
      _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(1, 3, 5, 7, 1, 3, 5, 7)));
  const __m256d e = _mm256_cvtepi32_pd(_mm_srli_epi32(hiw, 20));
  // R and the table rows by scalar loads (AMD's gathers are slow)
  alignas(16) uint32_t mi[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(mi),
                  _mm_srli_epi32(_mm_sub_epi32(_mm_castps_si128(_mm256_cvtpd_ps(ms)), _mm_set1_epi32(0x3a800000)), 10));
  const uint32_t R0 = kMklRcpR[mi[0]], R1 = kMklRcpR[mi[1]], R2 = kMklRcpR[mi[2]], R3 = kMklRcpR[mi[3]];
  const __m256d rd = _mm256_cvtepi32_pd(_mm_setr_epi32(static_cast<int>(R0), static_cast<int>(R1),
                                                       static_cast<int>(R2), static_cast<int>(R3)));
  const __m256d hi =
      _mm256_and_pd(ms, _mm256_castsi256_pd(_mm256_set1_epi64x(static_cast<long long>(0xfffffffffc000000ull))));
  const __m256d lo = _mm256_sub_pd(ms, hi);
  const __m256d r = _mm256_add_pd(_mm256_mul_pd(lo, rd), _mm256_sub_pd(_mm256_mul_pd(hi, rd), splat(1.0)));
  const __m256d r2 = _mm256_mul_pd(r, r);
  const __m256d c2 = splat(detail::u2d(kMklLn64C[0])), c3 = splat(detail::u2d(kMklLn64C[1]));
  const __m256d c4 = splat(detail::u2d(kMklLn64C[2])), c5 = splat(detail::u2d(kMklLn64C[3]));
  const __m256d p = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c3, r), c2),
                                  _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(c5, r), c4), r2));
  // rows {hi, lo} of lanes 0 and 2, 1 and 3: unpacked into (hi0 hi1 hi2 hi3) and (lo0 lo1 lo2 lo3)
  const __m256d r02 = _mm256_setr_m128d(_mm_loadu_pd(detail::kMklLn64Tab[R0 - 512]),
                                        _mm_loadu_pd(detail::kMklLn64Tab[R2 - 512]));
  const __m256d r13 = _mm256_setr_m128d(_mm_loadu_pd(detail::kMklLn64Tab[R1 - 512]),
                                        _mm_loadu_pd(detail::kMklLn64Tab[R3 - 512]));
  const __m256d th = _mm256_unpacklo_pd(r02, r13), tl = _mm256_unpackhi_pd(r02, r13);
  const __m256d t = _mm256_add_pd(th, _mm256_mul_pd(e, splat(detail::u2d(kMklLn64Ln2Hi))));
  const __m256d sum = _mm256_add_pd(r, t);
  const __m256d low = _mm256_add_pd(_mm256_add_pd(tl, _mm256_mul_pd(e, splat(detail::u2d(kMklLn64Ln2Lo)))),
                                    _mm256_sub_pd(r, _mm256_sub_pd(sum, t)));
  return _mm256_add_pd(sum, _mm256_add_pd(_mm256_mul_pd(r2, p), low));
}
// MklExponential's float64 values 4 at a time (lane j holds x_{i+j}, stepped by kA^4): u = x times the double
// 1 / m, mkl_ln4, a - ln(u) beta (a product then a difference, as the header).
__attribute__((target("avx2,fma"))) void mkl_exponential_f64_avx2(MklExponential& g, int64_t n, double beta,
                                                                  double* out) {
  int64_t i = 0;
  if (n >= 4) {
    __m256i a = mcg31_lanes4(g.x);
    const __m256i step = _mm256_set1_epi64x(Mcg31::power(4));
    const __m256d vmin = _mm256_set1_pd(std::numeric_limits<double>::min()), vbeta = _mm256_set1_pd(beta);
    for (; i + 4 <= n; i += 4) {
      _mm256_storeu_pd(out + i, _mm256_sub_pd(vmin, _mm256_mul_pd(mkl_ln4(mcg31_quotient4(a)), vbeta)));
      a = mcg31_mul4(a, step);
    }
    g.x = static_cast<uint32_t>(_mm256_extract_epi64(a, 0));
  }
  for (; i < n; ++i) out[i] = g.next_f64(beta);
}
#endif

// n of MklExponential's float64 values (mkl_ln_f64).
void mkl_exponential_f64(MklExponential& g, int64_t n, double beta, double* out) {
#if defined(XRNG_TORCH_AVX2)
  if (has_avx2_fma()) return mkl_exponential_f64_avx2(g, n, beta, out);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = g.next_f64(beta);
}
#if defined(XRNG_TORCH_AVX2)
// Byte j of kSpread8[b] is bit j of b: eight 0/1 bytes from a movemask.
constexpr std::array<uint64_t, 256> kSpread8 = [] {
  std::array<uint64_t, 256> t{};
  for (int b = 0; b < 256; ++b)
    for (int j = 0; j < 8; ++j) t[b] |= static_cast<uint64_t>((b >> j) & 1) << (8 * j);
  return t;
}();
// MklBernoulli's elements 8 at a time: lane j holds x_{i+j} (two registers of four 64-bit lanes, stepped by
// kA^8, as the exponential's), each compared with the limit (x < limit: 1), the 8 results spread into bytes.
__attribute__((target("avx2"))) void mkl_bernoulli_u8_avx2(MklBernoulli& g, int64_t n, uint8_t* out) {
  int64_t i = 0;
  if (n >= 8) {
    __m256i a = mcg31_lanes4(g.x), b = mcg31_lanes4(Mcg31::mul(g.x, Mcg31::power(4)));
    const __m256i step = _mm256_set1_epi64x(Mcg31::power(8));
    const __m256i lim = _mm256_set1_epi64x(g.limit);
    for (; i + 8 <= n; i += 8) {
      const int lo = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(lim, a)));
      const int hi = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(lim, b)));
      std::memcpy(out + i, &kSpread8[static_cast<size_t>(lo | hi << 4)], 8);
      a = mcg31_mul4(a, step);
      b = mcg31_mul4(b, step);
    }
    g.x = static_cast<uint32_t>(_mm256_extract_epi64(a, 0));
  }
  for (; i < n; ++i) out[i] = g.next();
}
#endif

}  // namespace

void mkl_bernoulli_u8(MklBernoulli& g, int64_t n, uint8_t* out) {
#if defined(XRNG_TORCH_AVX2)
  if (has_avx2_fma()) return mkl_bernoulli_u8_avx2(g, n, out);
#endif
  g.fill(n, [out](int64_t i, bool b) { out[i] = b; });
}

namespace {

// n of MklExponential's float values (AVX2 and FMA where the CPU has them; the same values either way: the
// generic logarithm fuses nothing, the Intel ones fuse in both).
void mkl_exponential_f32(MklExponential& g, int64_t n, float beta, float* out) {
#if defined(XRNG_TORCH_AVX2)
  if (has_avx2_fma()) {
    if (g.cpu == MklCpu::l9) return mkl_exponential_f32_avx2<MklCpu::l9>(g, n, beta, out);
    if (g.cpu == MklCpu::z0) return mkl_exponential_f32_avx2<MklCpu::z0>(g, n, beta, out);
    if (g.cpu == MklCpu::e9) return mkl_exponential_f32_avx2<MklCpu::e9>(g, n, beta, out);
    return mkl_exponential_f32_avx2<MklCpu::generic>(g, n, beta, out);
  }
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = g.next_f32(beta);
}

#if defined(XRNG_TORCH_AVX2)
// n floats to binary16 bits by F16C (vcvtps2ph, round to nearest even: the
// same bits as math::f32_to_f16_bits, NaN included), 8 at a time.
__attribute__((target("avx2,f16c"))) void f32_to_f16_f16c(const float* in, int64_t n, uint16_t* out) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) out[i] = math::f32_to_f16_bits(in[i]);
}
#endif

// n floats to binary16 (bf16: bfloat16) bits, rounded to nearest even.
void f32_to_16(const float* in, int64_t n, uint16_t* out, bool bf16) {
  if (bf16) {
    for (int64_t i = 0; i < n; ++i) out[i] = math::f32_to_bf16_bits(in[i]);
    return;
  }
#if defined(XRNG_TORCH_AVX2)
  if (has_f16c()) return f32_to_f16_f16c(in, n, out);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = math::f32_to_f16_bits(in[i]);
}

// `fused`: fuses_normal (false only with kernel scalar)
XRNG_FMA_CLONES void randn_f32(State& s, int64_t n, float mean, float std, Kernel k, float* out, bool fused) {
#if defined(XRNG_TORCH_AVX2)
  if (avx2_kernel(k))
    return with_avx2_fill16(k, mean, std, [&](auto fill16) { return normal_f32_with(s, n, out, fill16); });
#endif
  normal_f32(s, n, mean, std, k, out, fused);
}
// normal_f32_blocks_with's values (each block of 16 uniforms drawn, transformed and
// stored in turn; then the tail block at n - 16), with up to 64 blocks drawn
// before they are transformed and converted together: the draw of a block
// never depends on the transform of the one before.
XRNG_FMA_CLONES void randn_f16(State& s, int64_t n, float mean, float std, Kernel k, uint16_t* out, bool bf16,
                               bool fused) {
  auto run = [&](auto fill16) {
    if (n < 16) throw std::invalid_argument("torch_cpu::normal: n < 16 takes torch's float64 path");
    constexpr int64_t kChunk = 64 * 16;
    float buf[kChunk];
    const int64_t full = n - n % 16;
    for (int64_t i = 0; i < full; i += kChunk) {
      const int64_t m = full - i < kChunk ? full - i : kChunk;
      uniforms_f32(s, buf, m);
      for (int64_t j = 0; j < m; j += 16) fill16(buf + j);
      f32_to_16(buf, m, out + i, bf16);
    }
    if (n % 16 != 0) {
      uniforms_f32(s, buf, 16);
      fill16(buf);
      f32_to_16(buf, 16, out + n - 16, bf16);
    }
  };
#if defined(XRNG_TORCH_AVX2)
  if (avx2_kernel(k)) return with_avx2_fill16(k, mean, std, run);
#endif
  run([=](float* d) { normal_fill16(d, mean, std, k, fused); });
}
}  // namespace

void fill16_blocks(float* data, int64_t nblocks, float mean, float std, Kernel k) {
#if defined(XRNG_TORCH_AVX2)
  if (avx2_kernel(k))
    return with_avx2_fill16(k, mean, std, [&](auto fill16) {
      for (int64_t b = 0; b < nblocks; ++b) fill16(data + 16 * b);
    });
#endif
  for (int64_t b = 0; b < nblocks; ++b) normal_fill16(data + 16 * b, mean, std, k);
}

bool fill16_is_simd(Kernel k) {
#if defined(XRNG_TORCH_AVX2)
  return avx2_kernel(k);
#else
  (void)k;
  return false;
#endif
}

namespace {
// A float64 value stored as `dtype` the way torch's static_cast<scalar_t>
// does it: float directly; Half and BFloat16 through float (their
// constructors take a float: two roundings), but Half in one rounding where
// `direct16` (f16_direct: torch's AArch64 builds from 2.3 on).
void store_f64(DType dtype, void* out, int64_t i, double v, bool direct16) {
  switch (dtype) {
    case DType::f64:
      static_cast<double*>(out)[i] = v;
      return;
    case DType::f32:
      static_cast<float*>(out)[i] = static_cast<float>(v);
      return;
    case DType::f16:
      static_cast<uint16_t*>(out)[i] =
          direct16 ? math::f64_to_f16_bits(v) : math::f32_to_f16_bits(static_cast<float>(v));
      return;
    case DType::bf16:
      static_cast<uint16_t*>(out)[i] = math::f32_to_bf16_bits(static_cast<float>(v));
      return;
    default:
      throw std::invalid_argument("torch_cpu: dtype must be float32, float64, float16 or bfloat16");
  }
}
// The float64 loops, compiled with FMA instructions where the CPU has them
// (their many std::fma are libm calls otherwise: the same values, slower).
XRNG_FMA_CLONES void normal_each(State& s, int64_t n, double mean, double std, Kernel k, DType dtype, void* out,
                                 Release r) {
  const bool d16 = f16_direct(k, r);
  for (int64_t i = 0; i < n; ++i) store_f64(dtype, out, i, normal_f64_value(s, mean, std, k, r), d16);
}
XRNG_FMA_CLONES void normal_fill_f64(State& s, int64_t n, double mean, double std, double* out, bool fused) {
  normal_f64(s, n, mean, std, out, fused);
}
XRNG_FMA_CLONES void exponential_each(State& s, int64_t n, double lambda, DType dtype, void* out, Release r,
                                      bool d16) {
  for (int64_t i = 0; i < n; ++i) store_f64(dtype, out, i, exponential_value(s, lambda, r), d16);
}
XRNG_FMA_CLONES void cauchy_each(State& s, int64_t n, double median, double sigma, Kernel k, DType dtype,
                                 void* out, bool d16) {
  for (int64_t i = 0; i < n; ++i) store_f64(dtype, out, i, cauchy_value(s, median, sigma, k), d16);
}
// uniform_(from, to)'s loops, compiled with FMA instructions where the CPU has
// them (kernel x86's std::fma is a libm call otherwise: the same values, slower).
XRNG_FMA_CLONES void uniform_f64_loop(State& s, int64_t n, double from, double to, Kernel k, double* p) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = uniform_f64_ab(s.random64(), from, to, k);
    p[i] = v == to ? from : v;
  }
}
XRNG_FMA_CLONES void uniform_f32_loop(State& s, int64_t n, float f, float t, Kernel k, float* p) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = uniform_f32_ab(s.random(), f, t, k);
    p[i] = v == t ? f : v;
  }
}
// 16-bit: the float values (chunks of 256) rounded, each compared with `to`
// cast from double (through float) as a value (+0 and -0 equal: their bit
// patterns differ only there) and replaced by `from` cast where equal.
XRNG_FMA_CLONES void uniform_f16_loop(State& s, int64_t n, float f, float t, Kernel k, uint16_t* p, bool bf16) {
  const uint16_t to_bits = bf16 ? math::f32_to_bf16_bits(t) : math::f32_to_f16_bits(t);
  const uint16_t from_bits = bf16 ? math::f32_to_bf16_bits(f) : math::f32_to_f16_bits(f);
  const bool zero_t = (to_bits & 0x7fffu) == 0;
  float buf[256];
  for (int64_t i = 0; i < n; i += 256) {
    const int64_t m = n - i < 256 ? n - i : 256;
    if (f == 0.0f && t == 1.0f) {  // rand(): x * 1 + 0 is x exactly, fused or not
      uniforms_f32(s, buf, m);
    } else {
      for (int64_t j = 0; j < m; ++j) buf[j] = uniform_f32_ab(s.random(), f, t, k);
    }
    uint16_t* o = p + i;
    f32_to_16(buf, m, o, bf16);
    for (int64_t j = 0; j < m; ++j) {
      const uint16_t v = o[j];
      o[j] = (v == to_bits || (zero_t && (v & 0x7fffu) == 0)) ? from_bits : v;
    }
  }
}
XRNG_FMA_CLONES void log_normal_loop(State& s, int64_t n, double mean, double std, Kernel k, double* out,
                                     Release r) {
  for (int64_t i = 0; i < n; ++i) out[i] = log_normal_value(s, mean, std, k, r);
}
// geometric_value with its log1p(-p) (a function of p alone) computed once
XRNG_FMA_CLONES void geometric_loop(State& s, int64_t n, double p, double* out) {
  const double l = detail::glibc_log1p(-p);
  for (int64_t i = 0; i < n; ++i) out[i] = std::ceil(detail::glibc_log(uniform_f64(s.random64())) / l);
}
XRNG_FMA_CLONES void cauchy_loop(State& s, int64_t n, double median, double sigma, Kernel k, double* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = cauchy_value(s, median, sigma, k);
}
void check_float_dtype(DType dtype, const char* what) {
  if (dtype != DType::f32 && dtype != DType::f64 && dtype != DType::f16 && dtype != DType::bf16)
    throw std::invalid_argument(std::string("torch_cpu ") + what + ": dtype must be float32, float64, float16 or bfloat16");
}
}  // namespace

void randn(State& s, int64_t n, double mean, double std, Kernel k, DType dtype, void* out, bool contiguous,
           Release r) {
  check_float_dtype(dtype, "randn");
  if (!(std >= 0.0)) throw std::invalid_argument("torch_cpu randn: std must be >= 0");
  if (n >= 16 && contiguous) {
    const float mf = static_cast<float>(mean), sf = static_cast<float>(std);  // torch's opmath cast
    const bool fused = fuses_normal(k, r), sixteen = dtype == DType::f16 || dtype == DType::bf16;
    const bool bf16 = dtype == DType::bf16;
    if (sixteen && legacy16(r)) {  // (mean and std cast to the 16-bit type: param16)
      auto* o = static_cast<uint16_t*>(out);
      return normal16_legacy(s, n, param16(mean, bf16, k, r), param16(std, bf16, k, r), bf16, r, k,
                             [o](int64_t i, uint16_t v) { o[i] = v; });
    }
    if (sixteen && r == Release::r2_12)  // the scalar kernel on both, mean and std in the 16-bit type first
      return randn_f16(s, n, param16(mean, bf16, k, r), param16(std, bf16, k, r), Kernel::scalar,
                       static_cast<uint16_t*>(out), bf16, fused);
    if (sixteen) return randn_f16(s, n, mf, sf, k, static_cast<uint16_t*>(out), bf16, fused);
    if (dtype == DType::f32) return randn_f32(s, n, mf, sf, k, static_cast<float*>(out), fused);
    return normal_fill_f64(s, n, mean, std, static_cast<double*>(out), fused);
  }
  normal_each(s, n, mean, std, k, dtype, out, r);
}

void uniform(State& s, int64_t n, double from, double to, Kernel k, DType dtype, void* out, Release r) {
  check_float_dtype(dtype, "uniform");
  if (!(from <= to) || !std::isfinite(from) || !std::isfinite(to))
    throw std::invalid_argument("torch_cpu uniform: needs finite from <= to");
  if (dtype == DType::f64) return uniform_f64_loop(s, n, from, to, k, static_cast<double*>(out));
  const float f = static_cast<float>(from), t = static_cast<float>(to);  // torch's opmath (float) bounds
  if (!std::isfinite(t - f)) throw std::invalid_argument("torch_cpu uniform: to - from overflows float");
  if (legacy16(r) && dtype != DType::f32) {  // 16-bit bounds, uniforms of 1.13..2.11
    const bool bf16 = dtype == DType::bf16;
    const float f16 = param16(from, bf16, k, r), diff = round16(param16(to, bf16, k, r) - f16, bf16);
    const uint32_t values = bf16 ? 256u : 2048u, mask = values - 1;
    if (n < 2 * static_cast<int64_t>(values)) {
      s.mt.generate(static_cast<uint16_t*>(out), n, [=](uint32_t w) { return uniform16_legacy_ab(w, f16, diff, bf16); });
      return;
    }
    uint16_t table[2048];  // the value of each of the type's uniforms (a function of the word's low bits)
    for (uint32_t i = 0; i < values; ++i) table[i] = uniform16_legacy_ab(i, f16, diff, bf16);
    s.mt.generate(static_cast<uint16_t*>(out), n, [&table, mask](uint32_t w) { return table[w & mask]; });
    return;
  }
  if (dtype == DType::f32) {
    auto* p = static_cast<float*>(out);
    if (f == 0.0f && t == 1.0f) {  // rand(): x * 1 + 0 is x exactly, fused or not (and x < 1)
      uniforms_f32(s, p, n);
      return;
    }
    return uniform_f32_loop(s, n, f, t, k, p);
  }
  uniform_f16_loop(s, n, f, t, k, static_cast<uint16_t*>(out), dtype == DType::bf16);
}

void cauchy(State& s, int64_t n, double median, double sigma, Kernel k, DType dtype, void* out, Release r) {
  check_float_dtype(dtype, "cauchy");
  if (!(sigma > 0.0)) throw std::invalid_argument("torch_cpu cauchy: sigma must be > 0");
  cauchy_each(s, n, median, sigma, k, dtype, out, f16_direct(k, r));
}

void exponential(State& s, int64_t n, double lambda, DType dtype, void* out, Release r, Kernel k) {
  check_float_dtype(dtype, "exponential");
  if (!(lambda > 0.0)) throw std::invalid_argument("torch_cpu exponential: lambda must be > 0");
  if (mkl_exponential(r, k) && !std::isinf(lambda)) {  // MKL's VSL (its word taken for no elements too)
    if (dtype == DType::f64 && mkl_exponential_f64_refused(r, k))  // (before its word)
      throw std::invalid_argument(std::string("torch_cpu exponential: ") + kMklF64Refused);
    MklExponential g(s, dtype == DType::f64, k);
    const double beta = 1.0 / lambda;
    const float beta_f = static_cast<float>(beta);  // (vsRngExponential's float parameter)
    if (dtype == DType::f64) {
      mkl_exponential_f64(g, n, beta, static_cast<double*>(out));
    } else if (dtype == DType::f32) {
      mkl_exponential_f32(g, n, beta_f, static_cast<float*>(out));
    } else {  // (torch: the float values into a float tensor, then converted)
      constexpr int64_t kChunk = 1024;
      float buf[kChunk];
      for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t m = n - i < kChunk ? n - i : kChunk;
        mkl_exponential_f32(g, m, beta_f, buf);
        f32_to_16(buf, m, static_cast<uint16_t*>(out) + i, dtype == DType::bf16);
      }
    }
    return;
  }
  exponential_each(s, n, lambda, dtype, out, r, f16_direct(k, r));
}

void log_normal_f64(State& s, int64_t n, double mean, double std, Kernel k, double* out, Release r) {
  log_normal_loop(s, n, mean, std, k, out, r);
}
void geometric_f64(State& s, int64_t n, double p, double* out) { geometric_loop(s, n, p, out); }
void cauchy_f64(State& s, int64_t n, double median, double sigma, Kernel k, double* out) {
  cauchy_loop(s, n, median, sigma, k, out);
}

void rand(State& s, int64_t n, DType dtype, void* out, Release r) {
  if (legacy16(r) && (dtype == DType::f16 || dtype == DType::bf16)) {
    const bool bf16 = dtype == DType::bf16;
    const uint16_t* bits = uniform16_legacy_bits(bf16);
    const uint32_t mask = bf16 ? 0xffu : 0x7ffu;
    s.mt.generate(static_cast<uint16_t*>(out), n, [bits, mask](uint32_t w) { return bits[w & mask]; });
    return;
  }
  switch (dtype) {
    case DType::f32:
      return rand_f32(s, n, static_cast<float*>(out));
    case DType::f64:
      return rand_f64(s, n, static_cast<double*>(out));
    case DType::f16:
      return uniform_f16_loop(s, n, 0.0f, 1.0f, Kernel::x86, static_cast<uint16_t*>(out), false);  // (rand_f16's values)
    case DType::bf16:
      return uniform_f16_loop(s, n, 0.0f, 1.0f, Kernel::x86, static_cast<uint16_t*>(out), true);
    default:
      throw std::invalid_argument("torch_cpu rand: dtype must be float32, float64, float16 or bfloat16");
  }
}


// ---- whole draws of the discrete and log-normal draws (host/torch_cpu.h) -------------------

void randint(State& s, int64_t n, int64_t low, int64_t high, DType dtype, void* out, Release r) {
  if (!(high > low)) throw std::invalid_argument("torch_cpu randint: high must exceed low");
  if (dtype == DType::i32 && (low < INT32_MIN || high - 1 > INT32_MAX))
    throw std::invalid_argument("torch_cpu randint: [low, high) does not fit the dtype");
  if (dtype != DType::i64 && dtype != DType::i32)
    throw std::invalid_argument("torch_cpu randint: dtype must be int64 or int32");
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = randint_value(s, range, low, randint_wide(r));
    if (dtype == DType::i64)
      static_cast<int64_t*>(out)[i] = v;
    else
      static_cast<int32_t*>(out)[i] = static_cast<int32_t>(v);
  }
}

namespace {
XRNG_FMA_CLONES void log_normal_each(State& s, int64_t n, double mean, double std, Kernel k, DType dtype, void* out,
                                     Release r) {
  const bool d16 = f16_direct(k, r);
  for (int64_t i = 0; i < n; ++i) store_f64(dtype, out, i, log_normal_value(s, mean, std, k, r), d16);
}
}  // namespace

void log_normal(State& s, int64_t n, double mean, double std, Kernel k, DType dtype, void* out, Release r) {
  check_float_dtype(dtype, "log_normal");
  if (!(std > 0.0)) throw std::invalid_argument("torch_cpu log_normal: std must be > 0");
  log_normal_each(s, n, mean, std, k, dtype, out, r);
}

void geometric(State& s, int64_t n, double p, DType dtype, void* out) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("torch_cpu geometric: p must be in (0, 1)");
  if (dtype == DType::i64) {
    for (int64_t i = 0; i < n; ++i) static_cast<int64_t*>(out)[i] = static_cast<int64_t>(geometric_value(s, p));
    return;
  }
  check_float_dtype(dtype, "geometric");
  for (int64_t i = 0; i < n; ++i) store_f64(dtype, out, i, geometric_value(s, p), false);  // (integers: exact)
}

void bernoulli(State& s, int64_t n, double p, DType dtype, void* out, Release r, Kernel k) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("torch_cpu bernoulli: p must be in [0, 1]");
  if (dtype != DType::i64 && dtype != DType::i32 && dtype != DType::u8) check_float_dtype(dtype, "bernoulli");
  auto store = [dtype, out](int64_t i, bool b) {  // 1 or 0 in the dtype
    if (dtype == DType::i64) static_cast<int64_t*>(out)[i] = b;
    else if (dtype == DType::i32) static_cast<int32_t*>(out)[i] = b;
    else if (dtype == DType::u8) static_cast<uint8_t*>(out)[i] = b;
    else store_f64(dtype, out, i, b ? 1.0 : 0.0, false);
  };
  if (mkl_bernoulli(r, k)) {  // (its word drawn for n = 0 too)
    MklBernoulli g(s, p, k);
    if (dtype == DType::u8) return mkl_bernoulli_u8(g, n, static_cast<uint8_t*>(out));
    return mkl_bernoulli_fill(g, n, store);
  }
  for (int64_t i = 0; i < n; ++i) store(i, bernoulli_value(s, p));
}

void randperm(State& s, int64_t n, int64_t* out) {
  if (n < 0) throw std::invalid_argument("torch_cpu randperm: n must be >= 0");
  torch_cpu::randperm(s, n, [out](int64_t i) { return out[i]; }, [out](int64_t i, int64_t v) { out[i] = v; });
}

void dropout(State& s, int64_t n, double p, DType dtype, const void* in, void* out, uint8_t* mask, Release r,
             Kernel kernel) {
  check_float_dtype(dtype, "dropout");
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("torch_cpu dropout: p must be in [0, 1]");
  const double q = 1.0 - p;  // bernoulli_'s probability and the divisor
  // (p = 1: every element dropped, nothing drawn; p = 0 or no elements: the input itself, nothing drawn)
  std::optional<MklBernoulli> mkl;
  if (mkl_bernoulli(r, kernel) && p != 0.0 && p != 1.0 && n > 0) mkl.emplace(s, q, kernel);
  // each element: x * v where kept (v = the dtype's 1 / (1 - p)), x * 0 where dropped
  auto keep = [&](int64_t i) {
    const bool k = p == 0.0 ? true : p == 1.0 ? false : mkl ? mkl->next() : bernoulli_value(s, q);
    if (mask != nullptr) mask[i] = k;
    return k;
  };
  switch (dtype) {
    case DType::f64: {
      const double v = 1.0 / q;
      const auto* x = static_cast<const double*>(in);
      auto* y = static_cast<double*>(out);
      for (int64_t i = 0; i < n; ++i) {
        const bool k = keep(i);
        y[i] = p == 0.0 ? x[i] : x[i] * (k ? v : 0.0);
      }
      return;
    }
    case DType::f32: {
      const float v = 1.0f / static_cast<float>(q);
      const auto* x = static_cast<const float*>(in);
      auto* y = static_cast<float*>(out);
      for (int64_t i = 0; i < n; ++i) {
        const bool k = keep(i);
        y[i] = p == 0.0 ? x[i] : x[i] * (k ? v : 0.0f);
      }
      return;
    }
    default: {  // f16 / bf16: float arithmetic, rounded to the dtype
      const bool bf = dtype == DType::bf16;
      auto to16 = [bf](float f) { return bf ? math::f32_to_bf16_bits(f) : math::f32_to_f16_bits(f); };
      auto from16 = [bf](uint16_t b) { return bf ? math::bf16_bits_to_f32(b) : math::f16_bits_to_f32(b); };
      const float v = from16(to16(1.0f / static_cast<float>(q)));
      const auto* x = static_cast<const uint16_t*>(in);
      auto* y = static_cast<uint16_t*>(out);
      for (int64_t i = 0; i < n; ++i) {
        const bool k = keep(i);
        y[i] = p == 0.0 ? x[i] : to16(from16(x[i]) * (k ? v : 0.0f));
      }
      return;
    }
  }
}

}  // namespace xrng::torch_cpu
