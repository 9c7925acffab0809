// glibc 2.36's binary64 lgamma and binary32 log1pf, the two libm functions
// under torch's CPU poisson and binomial (rng/torch_cpu_poisson.h) that
// rng/detail/torch_cpu_math64.h does not already carry: sample_poisson's
// std::lgamma(k + 1) and binomial_inversion<float>'s std::log1p(-prob),
// which for a float argument is log1pf. Written out as scalar code so any
// host reproduces them bit for bit. Never the host's libm.
//
// Which code: glibc 2.36 on x86-64 has no ifunc variants of either (nm -D
// of Debian 12's libm.so.6: lgamma@@GLIBC_2.23 and log1pf are plain
// functions, and objdump -d of __ieee754_lgamma_r (__lgamma_r_finite) and
// of __log1pf has no VEX instruction at all: compiled for base x86-64, no
// fused multiply-add). Every operation below is the plain IEEE one, in the
// C source's order. lgamma calls glibc's log through the internal ifunc, so
// on an FMA CPU it gets __log_fma: glibc_log of torch_cpu_math64.h.
//
// Algorithms (ported, not copied; the coefficients are the published
// fdlibm constants, written here as hex floats):
//  * lgamma: fdlibm's e_lgamma_r.c (Sun, 1993) as glibc 2.36 has it
//    (sysdeps/ieee754/dbl-64/e_lgamma_r.c; unchanged from 2.28 to 2.36,
//    replaced by CORE-MATH's in 2.42): x < 2 by a polynomial around
//    lgamma's minimum or rational approximations after a shift, [2, 8) by a
//    rational approximation on [2, 3) and the recurrence, [8, 2^58) by
//    Stirling's series in 1/x, [2^58, inf) by x (log x - 1).
//    Reproduced: every x > 0, +-0, +-inf, NaN, the negative integers (+inf)
//    and -2^-70 < x < 0. Other negative non-integers (glibc's sin_pi
//    reflection and __lgamma_neg) are not: no torch stream
//    gives them (sample_poisson's argument is k + 1 >= 1); the function
//    returns a quiet NaN there, and tests never compare it.
//  * log1pf: fdlibm's s_log1pf.c (glibc sysdeps/ieee754/flt-32, 2.36;
//    replaced by CORE-MATH's in 2.41): 1 + x = 2^k (1 + f), log1p =
//    k ln2 + f - (hfsq - s (hfsq + R(s^2))) with s = f / (2 + f) in
//    binary32. Every float argument.
//
// tests/test_torch_cpu_poisson.cpp compares both with this host's glibc.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "torch_cpu_math.h"
#include "torch_cpu_math64.h"

namespace xrng::torch_cpu::detail {

// ---- lgamma (e_lgamma_r.c) --------------------------------------------------------------------

// [0.9, 1.23) and [1.73, 2): lgamma(2 - y) or lgamma(1 - y) - log x by an
// even/odd split polynomial in y.
inline constexpr double kLgA[12] = {
    0x1.3c467e37db0c8p-4,  0x1.4a34cc4a60fadp-2,  0x1.13e001a5562a7p-4, 0x1.51322ac92547bp-6,
    0x1.e404fb68fefe8p-8,  0x1.7add8ccb7926bp-9,  0x1.38a94116f3f5dp-10, 0x1.0b6c689b99c00p-11,
    0x1.cf2eced10e54dp-13, 0x1.c5088987dfb07p-14, 0x1.a7074428cfa52p-16, 0x1.7858e90a45837p-15};
// Around the minimum tc: lgamma(tc + y) = tf + y^2 P(y), P split three ways in y^3.
inline constexpr double kLgTc = 0x1.762d86356be3fp+0, kLgTf = -0x1.f19b9bcc38a42p-4,
                        kLgTt = -0x1.0c7caa48a971fp-58;
inline constexpr double kLgT[15] = {
    0x1.ef72bc8ee38a2p-2,  -0x1.2e4278dc6c509p-3, 0x1.08b4294d5419bp-4,  -0x1.0c9a8df35b713p-5,
    0x1.266e7970af9ecp-6,  -0x1.51f9fba91ec6ap-7, 0x1.8fce0e370e344p-8,  -0x1.e2effb3e914d7p-9,
    0x1.282d32e15c915p-9,  -0x1.6fe8ebf2d1af1p-10, 0x1.cdf0cef61a8e9p-11, -0x1.1a6109c73e0ecp-11,
    0x1.4af6d6c0ebbf7p-12, -0x1.47f24ecc38c38p-12, 0x1.5fd3ee8c2d3f4p-12};
// Near 1 (and near 0 after - log x): y (U(y)) / (V(y)).
inline constexpr double kLgU[6] = {-0x1.3c467e37db0c8p-4, 0x1.4401e8b005dffp-1, 0x1.7475cd119bd6fp+0,
                                   0x1.f497644ea8450p-1,  0x1.d4eaef6010924p-3, 0x1.b678bbf2bab09p-7};
inline constexpr double kLgV[6] = {1.0, 0x1.3a5d7c2bd619cp+1, 0x1.10725a42b18f5p+1,
                                   0x1.89dfbe45050afp-1, 0x1.aae55d6537c88p-4, 0x1.a5abb57d0cf61p-9};
// [2, 3): lgamma(2 + y) = y / 2 + S(y) / R(y).
inline constexpr double kLgS[7] = {-0x1.3c467e37db0c8p-4, 0x1.b848b36e20878p-3, 0x1.4d98f4f139f59p-2,
                                   0x1.2bb9cbee5f2f7p-3,  0x1.b481c7e939961p-6, 0x1.e26b67368f239p-10,
                                   0x1.0bfecdd17e945p-15};
inline constexpr double kLgR[7] = {1.0, 0x1.645a762c4ab74p+0, 0x1.71a1893d3dcdcp-1, 0x1.601edccfbdf27p-3,
                                   0x1.317ea742ed475p-6, 0x1.97ddaca41a95bp-11, 0x1.ebaf7a5b38140p-18};
// [8, 2^58): lgamma(x) = (x - 1/2)(log x - 1) + W(1/x), W odd above its constant term.
inline constexpr double kLgW[7] = {0x1.acfe390c97d69p-2,  0x1.555555555553bp-4,  -0x1.6c16c16b02e5cp-9,
                                   0x1.a019f98cf38b6p-11, -0x1.380cb8c0fe741p-11, 0x1.b67ba4cdad5d1p-11,
                                   -0x1.ab89d0b9e43e4p-10};

// glibc 2.36 lgamma(x) (its __ieee754_lgamma_r; the lgamma wrapper only
// sets errno) for x > 0, +-0, +-inf, NaN, negative integers, x > -2^-70; a
// quiet NaN for the other x < 0 (not reproduced, see above).
inline double glibc_lgamma(double x) {
  const uint32_t hx = hi_word(x), lx = lo_word(x);
  const uint32_t ix = hx & 0x7fffffffu;
  if (ix >= 0x7ff00000u) return x * x;                               // inf, NaN
  if ((ix | lx) == 0) return 1.0 / std::fabs(x);                      // +-0: +inf
  if (ix < 0x3b900000u) return -glibc_log(std::fabs(x));             // |x| < 2^-70
  if (hx >> 31) {
    if (x == std::floor(x)) return std::numeric_limits<double>::infinity();  // a pole (-2^52 and below: all poles)
    return std::numeric_limits<double>::quiet_NaN();                         // other x < 0: not reproduced
  }
  // lgamma(1) = lgamma(2) = 0 exactly
  if ((ix == 0x3ff00000u && lx == 0) || (ix == 0x40000000u && lx == 0)) return 0.0;
  if (ix < 0x40000000u) {  // x < 2
    double r, y;
    int branch;
    if (ix <= 0x3feccccc) {  // x <= 0.9: lgamma(x) = lgamma(x + 1) - log x
      r = -glibc_log(x);
      if (ix >= 0x3fe76944u) {
        y = 1.0 - x;
        branch = 0;
      } else if (ix >= 0x3fcda661u) {
        y = x - (kLgTc - 1.0);
        branch = 1;
      } else {
        y = x;
        branch = 2;
      }
    } else {
      r = 0.0;
      if (ix >= 0x3ffbb4c3u) {  // [1.7316, 2)
        y = 2.0 - x;
        branch = 0;
      } else if (ix >= 0x3ff3b4c4u) {  // [1.23, 1.73)
        y = x - kLgTc;
        branch = 1;
      } else {
        y = x - 1.0;
        branch = 2;
      }
    }
    const double* A = kLgA;
    const double* T = kLgT;
    if (branch == 0) {
      const double z = y * y;
      const double p1 = A[0] + z * (A[2] + z * (A[4] + z * (A[6] + z * (A[8] + z * A[10]))));
      const double p2 = z * (A[1] + z * (A[3] + z * (A[5] + z * (A[7] + z * (A[9] + z * A[11])))));
      const double p = y * p1 + p2;
      r += (p - 0.5 * y);
    } else if (branch == 1) {
      const double z = y * y;
      const double w = z * y;
      const double p1 = T[0] + w * (T[3] + w * (T[6] + w * (T[9] + w * T[12])));
      const double p2 = T[1] + w * (T[4] + w * (T[7] + w * (T[10] + w * T[13])));
      const double p3 = T[2] + w * (T[5] + w * (T[8] + w * (T[11] + w * T[14])));
      const double p = z * p1 - (kLgTt - w * (p2 + y * p3));
      r += (kLgTf + p);
    } else {
      const double* U = kLgU;
      const double* V = kLgV;
      const double p1 = y * (U[0] + y * (U[1] + y * (U[2] + y * (U[3] + y * (U[4] + y * U[5])))));
      const double p2 = 1.0 + y * (V[1] + y * (V[2] + y * (V[3] + y * (V[4] + y * V[5]))));
      r += (-0.5 * y + p1 / p2);
    }
    return r;
  }
  if (ix < 0x40200000u) {  // [2, 8): the rational approximation on [2, 3) and the recurrence
    const int i = static_cast<int>(x);
    const double y = x - static_cast<double>(i);
    const double* S = kLgS;
    const double* R = kLgR;
    const double p = y * (S[0] + y * (S[1] + y * (S[2] + y * (S[3] + y * (S[4] + y * (S[5] + y * S[6]))))));
    const double q = 1.0 + y * (R[1] + y * (R[2] + y * (R[3] + y * (R[4] + y * (R[5] + y * R[6])))));
    double r = 0.5 * y + p / q;
    // lgamma(y + i) = lgamma(y + 2) + log((y + 2)(y + 3)...(y + i - 1)), the
    // product from the top factor down
    double z = 1.0;
    if (i >= 3) {
      for (int j = i - 1; j >= 2; --j) z *= (y + static_cast<double>(j));
      r += glibc_log(z);
    }
    return r;
  }
  if (ix < 0x43900000u) {  // [8, 2^58): Stirling
    const double t = glibc_log(x);
    const double z = 1.0 / x;
    const double y = z * z;
    const double* W = kLgW;
    const double w = W[0] + z * (W[1] + y * (W[2] + y * (W[3] + y * (W[4] + y * (W[5] + y * W[6])))));
    return (x - 0.5) * (t - 1.0) + w;
  }
  return x * (glibc_log(x) - 1.0);  // [2^58, inf)
}

// ---- log1pf (s_log1pf.c) ------------------------------------------------------------------------

inline constexpr float kL1pfLn2hi = 0x1.62e3p-1f, kL1pfLn2lo = 0x1.2fefa2p-17f;
inline constexpr float kL1pfLp[7] = {0x1.555556p-1f, 0x1.99999ap-2f, 0x1.24924ap-2f, 0x1.c71c52p-3f,
                                     0x1.74664ap-3f, 0x1.39a09ep-3f, 0x1.2f112ep-3f};

// glibc 2.36 log1pf(x), every float x (binary32 arithmetic throughout).
inline float glibc_log1pf(float x) {
  const int32_t hx = static_cast<int32_t>(f2u(x));
  const int32_t ax = hx & 0x7fffffff;
  int32_t k = 1, hu = 0;
  float f = 0.0f, c = 0.0f;
  if (hx < 0x3ed413d7) {  // x < 0.41422 (negative x included)
    if (ax >= 0x3f800000) {  // x <= -1
      if (x == -1.0f) return -std::numeric_limits<float>::infinity();
      return std::numeric_limits<float>::quiet_NaN();
    }
    if (ax < 0x31000000) {              // |x| < 2^-29
      if (ax < 0x24800000) return x;    // |x| < 2^-54
      return x - x * x * 0.5f;
    }
    if (hx > 0 || hx <= static_cast<int32_t>(0xbe95f61fu)) {  // -0.2929 < x < 0.41422
      k = 0;
      f = x;
      hu = 1;
    }
  }
  if (hx >= 0x7f800000) return x + x;  // +inf, NaN
  if (k != 0) {
    float u;
    if (hx < 0x5a000000) {
      u = 1.0f + x;
      hu = static_cast<int32_t>(f2u(u));
      k = (hu >> 23) - 127;
      c = (k > 0) ? 1.0f - (u - x) : x - (u - 1.0f);  // the rounding error of 1 + x
      c /= u;
    } else {
      u = x;
      hu = static_cast<int32_t>(f2u(u));
      k = (hu >> 23) - 127;
      c = 0.0f;
    }
    hu &= 0x007fffff;
    if (hu < 0x3504f7) {
      u = u2f(static_cast<uint32_t>(hu | 0x3f800000));  // u in [1, sqrt 2)
    } else {
      k += 1;
      u = u2f(static_cast<uint32_t>(hu | 0x3f000000));  // u / 2
      hu = (0x00800000 - hu) >> 2;
    }
    f = u - 1.0f;
  }
  const float hfsq = 0.5f * f * f;
  const float kf = static_cast<float>(k);
  if (hu == 0) {  // |f| < 2^-20
    if (f == 0.0f) {
      if (k == 0) return 0.0f;
      c += kf * kL1pfLn2lo;
      return kf * kL1pfLn2hi + c;
    }
    const float R = hfsq * (1.0f - 0x1.555556p-1f * f);
    if (k == 0) return f - R;
    return kf * kL1pfLn2hi - ((R - (kf * kL1pfLn2lo + c)) - f);
  }
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float* L = kL1pfLp;
  const float R = z * (L[0] + z * (L[1] + z * (L[2] + z * (L[3] + z * (L[4] + z * (L[5] + z * L[6]))))));
  if (k == 0) return f - (hfsq - s * (hfsq + R));
  return kf * kL1pfLn2hi - ((hfsq - (s * (hfsq + R) + (kf * kL1pfLn2lo + c))) - f);
}

}  // namespace xrng::torch_cpu::detail
