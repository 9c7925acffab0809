// The transcendental functions under torch's CPU normal kernels, written out
// as scalar code so any host (x86, ARM, anything with IEEE binary32/64 and a
// correct fma) reproduces them bit for bit. Never the host's libm.
//
// * x86_*: torch's AVX2 kernel (ATen/native/cpu/avx_mathfun.h, the cephes
//   polynomials of log256_ps and sincos256_ps), with a fused multiply-add
//   exactly where the installed wheel's libtorch_cpu.so has one: GCC
//   contracted the intrinsics' mul+add pairs (checked with objdump on
//   torch 2.15.0's normal_kernel, SPEC.md "torch CPU streams"). With
//   Fused = false, every multiply and add rounded on its own in
//   avx_mathfun.h's order: the same kernel as MSVC compiles it for torch's
//   Windows wheels (no contraction; checked in torch_cpu.dll, SPEC.md 14.9).
// * glibc_*: glibc's binary32 logf, sinf and cosf (the 2018 Arm Optimized
//   Routines versions, glibc 2.28 to 2.40) as built for x86-64 with FMA and
//   for AArch64 (contracted a*b+c), on the inputs the normal kernel gives
//   them: logf on (0, 1], sinf/cosf on [0, 2 pi]. torch's default
//   (non-vectorised) kernel calls these through std::log/std::sin/std::cos.
//
// Each is proven equal to its reference over the whole input domain the
// torch stream uses (tests/test_torch_cpu.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace xrng::torch_cpu::detail {

inline uint32_t f2u(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
inline float u2f(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// ---- torch's AVX2 kernel (avx_mathfun.h as compiled in the wheel) -----------------------------

// avx_mathfun.h's constants are float arrays initialised from double
// literals: the decimal is rounded to binary64, then to binary32.
constexpr float F(double v) { return static_cast<float>(v); }

// a b + c: one fused multiply-add (Fused) or the product rounded, then the sum.
template <bool Fused>
inline float ma(float a, float b, float c) {
  if constexpr (Fused) return std::fma(a, b, c);
  else return a * b + c;
}

// log256_ps for one lane. The wheel fuses the 8 Horner steps, y*z + e*q1,
// y - z/2 and x + e*q2 (the products e*q1, y*x and z*z stay separate);
// Fused = false rounds each (avx_mathfun.h's order: y x, y z, + e q1, - z/2,
// x + y, + e q2).
template <bool Fused = true>
inline float x86_log(float x0) {
  const bool invalid = x0 <= 0.0f;                            // _CMP_LE_OS: false for NaN
  float x = x0 > u2f(0x00800000u) ? x0 : u2f(0x00800000u);  // maxps: the 2nd operand on NaN too
  int32_t imm0 = static_cast<int32_t>(f2u(x) >> 23);
  x = u2f((f2u(x) & ~0x7f800000u) | f2u(0.5f));
  imm0 -= 0x7f;
  float e = static_cast<float>(imm0) + 1.0f;
  const bool mask = x < F(0.707106781186547524);
  const float tmp = mask ? x : 0.0f;
  x = x - 1.0f;
  e = e - (mask ? 1.0f : 0.0f);
  x = x + tmp;
  const float z = x * x;
  float y = F(7.0376836292E-2);
  y = ma<Fused>(y, x, F(-1.1514610310E-1));
  y = ma<Fused>(y, x, F(1.1676998740E-1));
  y = ma<Fused>(y, x, F(-1.2420140846E-1));
  y = ma<Fused>(y, x, F(1.4249322787E-1));
  y = ma<Fused>(y, x, F(-1.6668057665E-1));
  y = ma<Fused>(y, x, F(2.0000714765E-1));
  y = ma<Fused>(y, x, F(-2.4999993993E-1));
  y = ma<Fused>(y, x, F(3.3333331174E-1));
  y = y * x;
  y = ma<Fused>(y, z, e * F(-2.12194440e-4));
  y = ma<Fused>(-z, 0.5f, y);
  x = x + y;
  x = ma<Fused>(e, F(0.693359375), x);
  if (invalid) x = u2f(f2u(x) | 0xffffffffu);  // or with the all-ones compare mask: a NaN
  return x;
}

// sincos256_ps for one lane (|x| < 2^31 / (4/pi), the range the normal kernel
// uses, [0, 2 pi]). The wheel fuses the three-step reduction and the Horner
// steps; the select between the polynomials is done with and/andnot plus the
// subtractions of avx_mathfun.h, reproduced literally (they fix the signs of
// zeros). Fused = false: each product and sum rounded, in avx_mathfun.h's
// order (x + y (-DP1), + y (-DP2), + y (-DP3); the Horner steps; y z z - z/2;
// y z x + x).
template <bool Fused = true>
inline void x86_sincos(float x0, float* s, float* c) {
  uint32_t sign_sin = f2u(x0) & 0x80000000u;
  float x = u2f(f2u(x0) & 0x7fffffffu);
  float y = x * F(1.27323954473516);
  int32_t j = static_cast<int32_t>(y);  // cvttps2dq: truncation
  j = (j + 1) & ~1;
  y = static_cast<float>(j);
  const uint32_t swap_sign_sin = static_cast<uint32_t>(j & 4) << 29;
  const bool poly_mask = (j & 2) == 0;
  x = ma<Fused>(y, F(-0.78515625), x);
  x = ma<Fused>(y, F(-2.4187564849853515625e-4), x);
  x = ma<Fused>(y, F(-3.77489497744594108e-8), x);
  const uint32_t sign_cos = static_cast<uint32_t>(~(j - 2) & 4) << 29;
  sign_sin ^= swap_sign_sin;
  const float z = x * x;
  float yc = F(2.443315711809948E-005);
  yc = ma<Fused>(yc, z, F(-1.388731625493765E-003));
  yc = ma<Fused>(yc, z, F(4.166664568298827E-002));
  yc = z * yc;
  yc = ma<Fused>(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;
  float ys = F(-1.9515295891E-4);
  ys = ma<Fused>(ys, z, F(8.3321608736E-3));
  ys = ma<Fused>(ys, z, F(-1.6666654611E-1));
  ys = z * ys;
  ys = ma<Fused>(ys, x, x);
  const float ysin2 = poly_mask ? ys : 0.0f;
  const float ysin1 = poly_mask ? 0.0f : yc;
  const float sin_v = ysin1 + ysin2;
  const float cos_v = (yc - ysin1) + (ys - ysin2);
  *s = u2f(f2u(sin_v) ^ sign_sin);
  *c = u2f(f2u(cos_v) ^ sign_cos);
}

// ---- glibc's binary32 logf, sinf, cosf ----------------------------------------------------------

struct LogfEntry {
  double invc, logc;
};
// The 16-interval table and polynomial of glibc's logf (e_logf_data.c).
inline constexpr LogfEntry kLogfTab[16] = {
    {0x1.661ec79f8f3bep+0, -0x1.57bf7808caadep-2}, {0x1.571ed4aaf883dp+0, -0x1.2bef0a7c06ddbp-2},
    {0x1.49539f0f010bp+0, -0x1.01eae7f513a67p-2},  {0x1.3c995b0b80385p+0, -0x1.b31d8a68224e9p-3},
    {0x1.30d190c8864a5p+0, -0x1.6574f0ac07758p-3}, {0x1.25e227b0b8eap+0, -0x1.1aa2bc79c81p-3},
    {0x1.1bb4a4a1a343fp+0, -0x1.a4e76ce8c0e5ep-4}, {0x1.12358f08ae5bap+0, -0x1.1973c5a611cccp-4},
    {0x1.0953f419900a7p+0, -0x1.252f438e10c1ep-5}, {0x1p+0, 0x0p+0},
    {0x1.e608cfd9a47acp-1, 0x1.aa5aa5df25984p-5},  {0x1.ca4b31f026aap-1, 0x1.c5e53aa362eb4p-4},
    {0x1.b2036576afce6p-1, 0x1.526e57720db08p-3},  {0x1.9c2d163a1aa2dp-1, 0x1.bc2860d22477p-3},
    {0x1.886e6037841edp-1, 0x1.1058bc8a07ee1p-2},  {0x1.767dcf5534862p-1, 0x1.4043057b6ee09p-2},
};
inline constexpr double kLogfLn2 = 0x1.62e42fefa39efp-1;
inline constexpr double kLogfA0 = -0x1.00ea348b88334p-2, kLogfA1 = 0x1.5575b0be00b6ap-2,
                        kLogfA2 = -0x1.ffffef20a4123p-2;

// logf for x > 0 (finite; subnormals normalised as glibc does). x = 2^k z
// with z near table point c: log x = log1p(z/c - 1) + log c + k ln2, in
// binary64, every a*b+c fused as glibc's FMA build has it.
inline float glibc_logf(float x) {
  uint32_t ix = f2u(x);
  if (ix == 0x3f800000u) return 0.0f;
  if (ix - 0x00800000u >= 0x7f800000u - 0x00800000u) {
    if (ix * 2 == 0) return -INFINITY;
    if (ix == 0x7f800000u) return x;
    if ((ix & 0x80000000u) || ix * 2 >= 0xff000000u) return NAN;
    ix = f2u(x * 0x1p23f);
    ix -= 23u << 23;
  }
  const uint32_t tmp = ix - 0x3f330000u;
  const int i = static_cast<int>((tmp >> (23 - 4)) % 16);
  const int k = static_cast<int32_t>(tmp) >> 23;
  const uint32_t iz = ix - (tmp & (0x1ffu << 23));
  const double invc = kLogfTab[i].invc, logc = kLogfTab[i].logc;
  const double z = static_cast<double>(u2f(iz));
  const double r = std::fma(z, invc, -1.0);
  const double y0 = std::fma(static_cast<double>(k), kLogfLn2, logc);
  const double r2 = r * r;
  double y = std::fma(kLogfA1, r, kLogfA2);
  y = std::fma(kLogfA0, r2, y);
  y = std::fma(y, r2, y0 + r);
  return static_cast<float>(y);
}

// glibc's sincosf polynomial set (s_sincosf_data.c); the second negates the
// cosine polynomial.
struct SincosfPoly {
  double c0, c1, c2, c3, c4, s1, s2, s3;
};
inline constexpr SincosfPoly kSincosf[2] = {
    {0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5, -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16,
     -0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
    {-0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5, 0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16,
     -0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
};
inline constexpr double kSincosfSign[4] = {1.0, -1.0, -1.0, 1.0};
inline constexpr double kHpiInvScaled = 0x1.45F306DC9C883p+23;  // 2/pi * 2^24
inline constexpr double kHpi = 0x1.921FB54442D18p0;

inline uint32_t abstop12(float x) { return (f2u(x) >> 20) & 0x7ff; }

inline float glibc_sincos_poly(double x, double x2, const SincosfPoly& p, int n) {
  if ((n & 1) == 0) {
    const double x3 = x * x2;
    const double s1 = std::fma(x2, p.s3, p.s2);
    const double x7 = x3 * x2;
    const double s = std::fma(x3, p.s1, x);
    return static_cast<float>(std::fma(x7, s1, s));
  }
  const double x4 = x2 * x2;
  const double c2 = std::fma(x2, p.c4, p.c3);
  const double c1 = std::fma(x2, p.c1, p.c0);
  const double x6 = x4 * x2;
  const double c = std::fma(x4, p.c2, c1);
  return static_cast<float>(std::fma(x6, c2, c));
}

// sinf (cos_ = false) or cosf (cos_ = true) for |y| < 120 (the torch stream
// gives [0, 2 pi]); larger arguments take glibc's Payne-Hanek path, which is
// not reproduced here (the caller never passes one).
inline float glibc_sinf_cosf(float y, bool cos_) {
  double x = y;
  if (abstop12(y) < abstop12(static_cast<float>(0x1.921FB54442D18p-1))) {
    const double x2 = x * x;
    if (abstop12(y) < abstop12(0x1p-12f)) return cos_ ? 1.0f : y;
    return glibc_sincos_poly(x, x2, kSincosf[0], cos_ ? 1 : 0);
  }
  // reduce_fast without round-to-int instructions (x86-64's build): the
  // quadrant from the 2^24-scaled product, the remainder by one fused step.
  const double r = x * kHpiInvScaled;
  const int n = (static_cast<int32_t>(r) + 0x800000) >> 24;
  x = std::fma(-static_cast<double>(n), kHpi, x);
  const double s = kSincosfSign[n & 3];
  const SincosfPoly& p = (n & 2) ? kSincosf[1] : kSincosf[0];
  return glibc_sincos_poly(x * s, x * x, p, cos_ ? (n ^ 1) : n);
}
inline float glibc_sinf(float y) { return glibc_sinf_cosf(y, false); }
inline float glibc_cosf(float y) { return glibc_sinf_cosf(y, true); }

}  // namespace xrng::torch_cpu::detail
