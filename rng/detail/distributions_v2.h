// TEMPORARY PLACEHOLDER (branch v2plumb): the element functions of the
// stream-v2 rows (registry.h, XRNG_ROWS rows of version 2), with the exact
// signatures of the interface (notes: v2_interface.md), so that the registry,
// the backends, the bindings and golden_v2 can be built and tested before the
// v2 math exists. The v2math branch replaces this whole file (and adds
// rng/detail/math32.h); golden_v2 is then regenerated with the one command of
// SPEC.md section 7. Nothing here is the definition of stream v2.
//
// What it is: a plain binary32 Box-Muller and friends (+ - * and sqrt on
// floats, Taylor polynomials, one division in cauchy), deterministic on every
// host with contraction off, and different from v1 (so that the tests of
// version selection can tell the streams apart). Its accuracy is not
// measured and not promised.
#pragma once

#include <cstdint>

#include "distributions.h"

namespace xrng::dist::v2 {

namespace placeholder {

XRNG_HD XRNG_INLINE float as_float(uint32_t u) { return math::as_f32(u); }
XRNG_HD XRNG_INLINE uint32_t as_bits(float f) { return math::as_u32(f); }
XRNG_HD XRNG_INLINE float sqrt32(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

// log(x) for x normal, positive: x = 2^e * m, m in [0.75, 1.5), Taylor of log(1 + t).
XRNG_HD XRNG_INLINE float log_pos(float x) {
  uint32_t b = as_bits(x);
  int e = static_cast<int>((b >> 23) & 0xffu) - 127;
  float m = as_float((b & 0x7fffffu) | 0x3f800000u);  // [1, 2)
  if (m >= 1.5f) {
    m = m * 0.5f;
    e += 1;
  }
  const float t = m - 1.0f;  // [-0.25, 0.5)
  float s = 0.0f;
  for (int k = 17; k >= 1; --k) s = s * t + ((k & 1) ? 1.0f : -1.0f) / static_cast<float>(k);
  return static_cast<float>(e) * 0.693147182f + s * t;
}

// cos and sin of (pi / 2) * r for r in [0, 1).
XRNG_HD XRNG_INLINE void cos_sin_quarter(float r, float* c, float* s) {
  const float x = r * 1.57079637f, x2 = x * x;
  float sp = 0.0f, cp = 0.0f, fs = 1.0f, fc = 1.0f;
  // sin x = x (1 - x^2/3! + x^4/5! ...), cos x = 1 - x^2/2! + ...
  float ts[8], tc[8];
  for (int k = 0; k < 8; ++k) {
    ts[k] = ((k & 1) ? -1.0f : 1.0f) / fs;
    tc[k] = ((k & 1) ? -1.0f : 1.0f) / fc;
    fs = fs * static_cast<float>((2 * k + 2) * (2 * k + 3));
    fc = fc * static_cast<float>((2 * k + 1) * (2 * k + 2));
  }
  for (int k = 7; k >= 0; --k) {
    sp = sp * x2 + ts[k];
    cp = cp * x2 + tc[k];
  }
  *s = sp * x;
  *c = cp;
}

// cos and sin of 2 pi t, t = (b >> 8) 2^-24: the quadrant from the top 2 bits.
XRNG_HD XRNG_INLINE void cos_sin_2pi(uint32_t b, float* c, float* s) {
  const uint32_t q = b >> 30;
  const float r = static_cast<float>((b >> 8) & 0x3fffffu) * 0x1p-22f;
  float c0, s0;
  cos_sin_quarter(r, &c0, &s0);
  switch (q) {
    case 0: *c = c0; *s = s0; break;
    case 1: *c = -s0; *s = c0; break;
    case 2: *c = -c0; *s = -s0; break;
    default: *c = s0; *s = -c0; break;
  }
}

// exp(x) in binary32 (overflow to inf, underflow towards 0).
XRNG_HD XRNG_INLINE float exp32(float x) {
  if (x > 89.0f) return as_float(0x7f800000u);
  if (x < -104.0f) return 0.0f;
  const float kf = x * 1.44269502f;
  const int k = static_cast<int>(kf < 0.0f ? kf - 0.5f : kf + 0.5f);
  const float r = (x - static_cast<float>(k) * 0.693145752f) - static_cast<float>(k) * 1.42860677e-06f;
  float p = 0.0f, f = 1.0f;
  float c[10];
  for (int i = 0; i < 10; ++i) {
    c[i] = 1.0f / f;
    f = f * static_cast<float>(i + 1);
  }
  for (int i = 9; i >= 0; --i) p = p * r + c[i];
  // 2^k in two factors, so that k down to -150 and up to 128 scale correctly.
  const int k1 = k / 2, k2 = k - k1;
  return p * as_float(static_cast<uint32_t>(k1 + 127) << 23) * as_float(static_cast<uint32_t>(k2 + 127) << 23);
}

// u in (0, 1]: 1 - (w >> 8) 2^-24.
XRNG_HD XRNG_INLINE float unit_open0(uint32_t w) { return 1.0f - static_cast<float>(w >> 8) * 0x1p-24f; }

}  // namespace placeholder

// Box-Muller pair: radius sqrt(-2 log u) from w0, angle 2 pi t from w1.
XRNG_HD XRNG_INLINE void normal_f32(uint32_t w0, uint32_t w1, const NormalParams& p, float out[2]) {
  const float r = placeholder::sqrt32(-2.0f * placeholder::log_pos(placeholder::unit_open0(w0)));
  float c, s;
  placeholder::cos_sin_2pi(w1, &c, &s);
  const float mean = static_cast<float>(p.mean), std = static_cast<float>(p.std);
  out[0] = mean + std * (r * c);
  out[1] = mean + std * (r * s);
}
XRNG_HD XRNG_INLINE void log_normal_f32(uint32_t w0, uint32_t w1, const NormalParams& p, float out[2]) {
  float z[2];
  normal_f32(w0, w1, p, z);
  out[0] = placeholder::exp32(z[0]);
  out[1] = placeholder::exp32(z[1]);
}
XRNG_HD XRNG_INLINE float exponential_f32(uint32_t w, const ExponentialParams& p) {
  return -placeholder::log_pos(placeholder::unit_open0(w)) * static_cast<float>(1.0 / p.rate);
}
// median + sigma tan(pi (t - 1/2)) = median - sigma cos(pi t) / sin(pi t).
XRNG_HD XRNG_INLINE float cauchy_f32(uint32_t w, const CauchyParams& p) {
  float c, s;
  placeholder::cos_sin_2pi(w >> 1, &c, &s);  // angle 2 pi (t / 2) = pi t
  return static_cast<float>(p.median) - static_cast<float>(p.sigma) * (c / s);
}

}  // namespace xrng::dist::v2
