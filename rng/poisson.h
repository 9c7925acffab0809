// Poisson variates as xrng draws: the pure per-element functions, host and
// device (SPEC.md section 12). The backends (host/gamma.cpp, device/gamma.cu,
// beside the gamma family) are loops over these.
//
// poisson(rate) -> one Poisson(rate) count per element of rate, as a value of
// rate's dtype: torch.poisson's draw (and torch.distributions.Poisson's).
// Element e (the row-major index into rate) reads the kWords = 64 words at
// offset + 64 e, whatever its rate and however many of them it uses:
//   rate < 10: inversion by sequential search, u from words 0, 1 (52 bits);
//   rate >= 10: Hormann's transformed rejection with squeeze (PTRS, 1993),
//     attempt j = 0..30 from words 2j, 2j + 1 (u and v with 32 bits each);
//     if all 31 are rejected (probability below 0.25^31 < 2.2e-19: SPEC 12.2)
//     the count is floor(rate), a fallback whose bias that bounds.
// Everything is binary64 (+ - * /, sqrt, fma and the log and exp of SPEC 5.1
// and 5.4; log k! by SPEC 12.3's Stirling series), so every element is a pure
// function of (key, offset, e, rate) and the same bits on every device.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "config.h"
#include "detail/distributions.h"
#include "detail/math.h"
#include "plan.h"
#include "registry.h"
#include "stream.h"

namespace xrng {
namespace poissond {

constexpr uint32_t kWords = tensor_draw_info(TensorDraw::poisson).words;  // 64
constexpr int kAttempts = 31;  // words 0 .. 61
constexpr double kSmall = 10.0;         // inversion below, PTRS from here
constexpr double kMaxRate = 0x1p32;     // PTRS's log test keeps ~1e-5 absolute accuracy (SPEC 12.2)
constexpr int kMaxInversion = 200;      // P(X > 200) < 1e-150 for rate < 10

// Whether rate is a parameter the draw accepts: 0 <= rate <= 2^32.
XRNG_HD XRNG_INLINE bool rate_ok(double r) { return r >= 0.0 && r <= kMaxRate; }

XRNG_HD XRNG_INLINE double log_(double x) { return math::log_unit<double, uint64_t>(x); }

// floor(x) for 0 <= |x| < 2^52, exactly (the shifter rounds to an integer,
// then one step back where it rounded up).
XRNG_HD XRNG_INLINE double floor_(double x) {
  const double s = x < 0.0 ? -0x1p52 : 0x1p52;
  double t = (x + s) - s;
  if (t > x) t = t - 1.0;
  return t;
}

// log(k!) for an integer k >= 0 (binary64): exact 0 for k <= 1; the
// Stirling series (x - 1/2) log x - x + log(2 pi)/2 + sum B_2j / (2j (2j-1) x^(2j-1))
// at x = k + 1 + n, n = max(0, 7 - (k + 1)), then log(x - 1) subtracted n
// times (the recurrence down to k + 1). Relative error about 1e-15 (SPEC 12.3).
XRNG_HD XRNG_INLINE double log_factorial(double k) {
  if (k <= 1.0) return 0.0;
  double x = k + 1.0;
  double n = 0.0;
  if (x < 7.0) n = 7.0 - x;  // an integer: x is
  double x0 = x + n;
  const double r = 1.0 / x0;
  const double r2 = r * r;
  double s = -1.3924322169059011;  // B_20 / (20 * 19)
  s = math::fma_(s, r2, 0.17964437236883057);    // B_18 / (18 * 17)
  s = math::fma_(s, r2, -0.029550653594771242);  // B_16 / (16 * 15)
  s = math::fma_(s, r2, 0.0064102564102564102);  // B_14 / (14 * 13)
  s = math::fma_(s, r2, -0.0019175269175269176); // B_12 / (12 * 11)
  s = math::fma_(s, r2, 0.00084175084175084175); // B_10 / (10 * 9)
  s = math::fma_(s, r2, -0.00059523809523809524);// B_8 / (8 * 7)
  s = math::fma_(s, r2, 0.00079365079365079365); // B_6 / (6 * 5)
  s = math::fma_(s, r2, -0.0027777777777777778); // B_4 / (4 * 3)
  s = math::fma_(s, r2, 0.083333333333333333);   // B_2 / (2 * 1)
  double g = s * r + 0.91893853320467274 + (x0 - 0.5) * log_(x0) - x0;  // log(2 pi) / 2
  while (n > 0.0) {
    x0 = x0 - 1.0;
    g = g - log_(x0);
    n = n - 1.0;
  }
  return g;
}

// The parameters of PTRS for rate >= 10.
struct Ptrs {
  double lam, loglam, a, b, invalpha, vr;
};
XRNG_HD XRNG_INLINE Ptrs ptrs(double lam) {
  Ptrs p;
  p.lam = lam;
  p.loglam = log_(lam);
  p.b = 0.931 + 2.53 * math::sqrt_(lam);
  p.a = -0.059 + 0.02483 * p.b;
  p.invalpha = 1.1239 + 1.1328 / (p.b - 3.4);
  p.vr = 0.9277 - 3.6224 / (p.b - 2.0);
  return p;
}

XRNG_HD XRNG_INLINE double unit52(uint32_t w0, uint32_t w1) {
  return math::unit_open<52, double, uint64_t>(dist::bits_u64(w0, w1) >> 12);
}

// One PTRS attempt from its 2 words: true and *k if accepted.
XRNG_HD XRNG_INLINE bool ptrs_attempt(const Ptrs& p, uint32_t w0, uint32_t w1, double* k) {
  const double U = math::unit_open<32, double, uint64_t>(static_cast<uint64_t>(w0)) - 0.5;
  const double V = math::unit_open<32, double, uint64_t>(static_cast<uint64_t>(w1));
  const double us = 0.5 - (U < 0.0 ? 0.0 - U : U);
  const double kk = floor_((2.0 * p.a / us + p.b) * U + p.lam + 0.43);
  if (us >= 0.07 && V <= p.vr) {
    *k = kk;
    return true;
  }
  if (kk < 0.0 || (us < 0.013 && V > us)) return false;
  if (log_(V) + log_(p.invalpha) - log_(p.a / (us * us) + p.b) <= (0.0 - p.lam) + kk * p.loglam - log_factorial(kk)) {
    *k = kk;
    return true;
  }
  return false;
}

// Inversion for rate < 10 from words 0, 1.
XRNG_HD XRNG_INLINE double inversion(double lam, uint32_t w0, uint32_t w1) {
  const double u = unit52(w0, w1);
  double p = math::exp_<double, uint64_t>(0.0 - lam);
  double F = p;
  double k = 0.0;
  for (int i = 1; i <= kMaxInversion && u > F; ++i) {
    k = k + 1.0;
    p = p * lam / k;
    F = F + p;
  }
  return k;
}

// The count of element e (a binary64 integer). `word(i)` returns word i of
// the element's 64 (offset + 64 e + i); it is called only for the words used.
template <class WordFn>
XRNG_HD XRNG_INLINE double count(double lam, WordFn&& word) {
  if (lam == 0.0) return 0.0;
  if (lam < kSmall) return inversion(lam, word(0), word(1));
  const Ptrs p = ptrs(lam);
  for (int j = 0; j < kAttempts; ++j) {
    double k;
    if (ptrs_attempt(p, word(2 * j), word(2 * j + 1), &k)) return k;
  }
  return floor_(lam);  // all attempts rejected (SPEC 12.2)
}

XRNG_HD XRNG_INLINE double count_at(double lam, const Stream& st, uint64_t w0) {
  return count(lam, ElementWords(st, w0));
}

// Writes a count (a binary64 integer; Poisson's and binomial's) as element i
// of dtype dt: f64 as is, f32 rounded, f16 / bf16 rounded from that f32.
XRNG_HD XRNG_INLINE void store_count(DType dt, void* out, uint64_t i, double k) {
  switch (dt) {
    case DType::f64: static_cast<double*>(out)[i] = k; return;
    case DType::f32: static_cast<float*>(out)[i] = math::to_f32(k); return;
    case DType::f16: static_cast<uint16_t*>(out)[i] = math::f32_to_f16_bits(math::to_f32(k)); return;
    case DType::bf16: static_cast<uint16_t*>(out)[i] = math::f32_to_bf16_bits(math::to_f32(k)); return;
    default: return;
  }
}

}  // namespace poissond

// ---- host-side checks ----------------------------------------------------------------------
inline uint64_t poisson_words(uint64_t n) {
  if (n > UINT64_MAX / poissond::kWords) throw Error("poisson: the draw needs more than 2^64 stream words");
  return n * poissond::kWords;
}

inline uint64_t first_bad_rate(const double* rate, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (!poissond::rate_ok(rate[i])) return i;
  return n;
}

inline std::string poisson_rate_error(uint64_t i, double r) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", r);
  return std::string("poisson: rate must be >= 0 and <= 2^32, got ") + b + " at element " + std::to_string(i);
}

}  // namespace xrng
