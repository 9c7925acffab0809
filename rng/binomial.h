// Binomial variates as xrng draws: the pure per-element functions, host and
// device (SPEC.md section 13). The backends (host/gamma.cpp, device/gamma.cu)
// are loops over these.
//
// binomial(count, prob) -> one Binomial(count, prob) count per element, as a
// value of count's dtype: torch.binomial's draw (torch.distributions.Binomial).
// Element e (row-major) reads the kWords = 64 words at offset + 64 e,
// whatever its parameters and however many it uses. With q = min(p, 1 - p)
// (the draw of 1 - p is n minus that of p):
//   n q < 10: inversion by sequential search, u from words 0, 1 (52 bits);
//   n q >= 10: Hormann's transformed rejection (BTRS, 1993), attempt
//     j = 0..30 from words 2j, 2j + 1 (u and v with 32 bits each); if all 31
//     are rejected (probability below 0.3^31 < 6.2e-17: SPEC 13.2) the count
//     is the mode floor((n + 1) q), a fallback whose bias that bounds.
// Binary64 arithmetic (+ - * /, sqrt, fma; the log and exp of SPEC 5.1, 5.4):
// every element is a pure function of (key, offset, e, count, prob), the same
// bits on every device.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "config.h"
#include "detail/distributions.h"
#include "detail/math.h"
#include "plan.h"
#include "poisson.h"
#include "registry.h"
#include "stream.h"

namespace xrng {
namespace binomiald {

constexpr uint32_t kWords = tensor_draw_info(TensorDraw::binomial).words;  // 64
constexpr int kAttempts = 31;   // words 0 .. 61
constexpr double kMaxCount = 0x1p32;
constexpr int kMaxInversion = 500;  // n q < 10: P(X > 500) < 1e-300

using poissond::floor_;
using poissond::log_;

// Whether (count, prob) are parameters the draw accepts: count an integer in
// [0, 2^32], prob in [0, 1].
XRNG_HD XRNG_INLINE bool params_ok(double n, double p) {
  return n >= 0.0 && n <= kMaxCount && floor_(n) == n && p >= 0.0 && p <= 1.0;
}

// log(1 + x) for -1 < x <= 0 with correctly rounded operations (Goldberg:
// y = 1 + x rounded, then log(y) * x / (y - 1), which cancels y's rounding).
XRNG_HD XRNG_INLINE double log1p_(double x) {
  const double y = 1.0 + x;
  if (y == 1.0) return x;
  return log_(y) * (x / (y - 1.0));
}

// Stirling's series remainder fc(k) = log k! - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi)/2],
// tabulated for k <= 9 (binary64 values of the exact ones), the series beyond.
XRNG_HD XRNG_INLINE double stirling_tail(double k) {
  if (k <= 9.0) {
    const double t[10] = {0.08106146679532726, 0.0413406959554093, 0.02767792568499834,
                          0.020790672103765093, 0.016644691189821193, 0.013876128823070748,
                          0.01189670994589177, 0.010411265261972096, 0.009255462182712733,
                          0.00833056343336287};  // the exact values rounded (mpmath, 40 digits)
    return t[static_cast<int>(k)];
  }
  const double kp1 = k + 1.0;
  const double k2 = kp1 * kp1;
  return (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / k2) / k2) / kp1;
}

// The parameters of BTRS for n q >= 10 (q <= 1/2).
struct Btrs {
  double n, p, a, b, c, vr, r, alpha, m;
};
XRNG_HD XRNG_INLINE Btrs btrs(double n, double p) {
  Btrs s;
  s.n = n;
  s.p = p;
  const double stddev = math::sqrt_(n * p * (1.0 - p));
  s.b = 1.15 + 2.53 * stddev;
  s.a = -0.0873 + 0.0248 * s.b + 0.01 * p;
  s.c = n * p + 0.5;
  s.vr = 0.92 - 4.2 / s.b;
  s.r = p / (1.0 - p);
  s.alpha = (2.83 + 5.1 / s.b) * stddev;
  s.m = floor_((n + 1.0) * p);
  return s;
}

// One BTRS attempt from its 2 words: true and *k if accepted.
XRNG_HD XRNG_INLINE bool btrs_attempt(const Btrs& s, uint32_t w0, uint32_t w1, double* k) {
  const double U = math::unit_open<32, double, uint64_t>(static_cast<uint64_t>(w0)) - 0.5;
  double V = math::unit_open<32, double, uint64_t>(static_cast<uint64_t>(w1));
  const double us = 0.5 - (U < 0.0 ? 0.0 - U : U);
  const double kk = floor_((2.0 * s.a / us + s.b) * U + s.c);
  if (kk < 0.0 || kk > s.n) return false;
  if (us >= 0.07 && V <= s.vr) {
    *k = kk;
    return true;
  }
  V = log_(V * s.alpha / (s.a / (us * us) + s.b));
  const double n = s.n, m = s.m;
  const double ub = (m + 0.5) * log_((m + 1.0) / (s.r * (n - m + 1.0))) +
                    (n + 1.0) * log_((n - m + 1.0) / (n - kk + 1.0)) +
                    (kk + 0.5) * log_(s.r * (n - kk + 1.0) / (kk + 1.0)) + stirling_tail(m) +
                    stirling_tail(n - m) - stirling_tail(kk) - stirling_tail(n - kk);
  if (V <= ub) {
    *k = kk;
    return true;
  }
  return false;
}

// Inversion for n q < 10 from words 0, 1.
XRNG_HD XRNG_INLINE double inversion(double n, double q, uint32_t w0, uint32_t w1) {
  const double u = poissond::unit52(w0, w1);
  const double s = q / (1.0 - q);
  double pk = math::exp_<double, uint64_t>(n * log1p_(0.0 - q));
  double F = pk;
  double k = 0.0;
  for (int i = 1; i <= kMaxInversion && u > F && k < n; ++i) {
    pk = pk * ((n - k) / (k + 1.0)) * s;
    k = k + 1.0;
    F = F + pk;
  }
  return k;
}

// The count of element e (a binary64 integer).
template <class WordFn>
XRNG_HD XRNG_INLINE double count(double n, double p, WordFn&& word) {
  if (n == 0.0 || p == 0.0) return 0.0;
  if (p == 1.0) return n;
  const bool flip = p > 0.5;
  const double q = flip ? 1.0 - p : p;  // exact for p in [1/2, 1] (Sterbenz)
  double k;
  if (n * q < 10.0) {
    k = inversion(n, q, word(0), word(1));
  } else {
    const Btrs s = btrs(n, q);
    k = s.m;  // all attempts rejected (SPEC 13.2)
    for (int j = 0; j < kAttempts; ++j) {
      double cand;
      if (btrs_attempt(s, word(2 * j), word(2 * j + 1), &cand)) {
        k = cand;
        break;
      }
    }
  }
  return flip ? n - k : k;
}

XRNG_HD XRNG_INLINE double count_at(double n, double p, const Stream& st, uint64_t w0) {
  return count(n, p, ElementWords(st, w0));
}

}  // namespace binomiald

inline std::string binomial_param_error(uint64_t i, double n, double p) {
  char b[96];
  std::snprintf(b, sizeof b, "%.17g and prob %.17g", n, p);
  return std::string("binomial: count must be an integer in [0, 2^32] and prob in [0, 1], got count ") + b +
         " at element " + std::to_string(i);
}

}  // namespace xrng
