// The gamma family as xrng draws: the pure per-element functions, host and
// device (SPEC.md section 11). The backends (host/gamma.cpp, device/gamma.cu)
// are loops over these.
//
// gamma(alpha) -> standard gamma variates (scale 1), one per element of
// alpha, torch._standard_gamma's draw (and so that of torch.distributions'
// Gamma, Chi2 and StudentT). dirichlet(alpha[rows, k]) -> the rows' gamma
// variates divided by their sum, torch._sample_dirichlet's draw (Dirichlet,
// and Beta, which torch samples as a Dirichlet of [a, b]).
//
// Element e (the row-major index into alpha) reads the kWords = 64 words at
// offset + 64 e, whatever its alpha and however many of them it uses:
//   attempt j = 0..14 of Marsaglia and Tsang's method: words 4j .. 4j + 3
//     x = sqrt(-2 ln u1) cos(2 pi t)  (u1 from words 4j, 4j+1 with 52 bits,
//                                      t = word 4j+2 / 2^32: SPEC 4.3's
//                                      transform in binary64)
//     u = (word 4j+3 + 1/2) / 2^32     (the acceptance test)
//   the boost of alpha < 1: words 60, 61 (u with 52 bits); 62, 63 unused.
// The first accepted attempt gives the value; if all 15 fail (probability
// below 0.0491^15 < 2.3e-20 for every alpha: SPEC 11.2) the value is d, a
// deterministic fallback whose bias is bounded by that probability.
// Everything is binary64 (+ - * /, sqrt, fma and the log and exp of SPEC 5.1
// and 5.4, all correctly rounded or exactly specified), so every element is a
// pure function of (key, offset, e, alpha): no dependence on threads, launch
// or chunking, and the same bits on every device.
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
namespace gammad {

constexpr uint32_t kWords = tensor_draw_info(TensorDraw::gamma).words;  // 64
static_assert(kWords == tensor_draw_info(TensorDraw::dirichlet).words, "dirichlet reads gamma's words");
constexpr int kAttempts = 15;   // words 0 .. 59
constexpr int kBoostWord = 60;  // words 60, 61

constexpr double kDblMin = 0x1p-1022;  // torch clamps its gamma variates to the smallest normal

// Whether alpha is a parameter the draw accepts: finite and > 0.
XRNG_HD XRNG_INLINE bool alpha_ok(double a) { return a > 0.0 && a <= 1.7976931348623157e308; }

// The parameters of Marsaglia and Tsang's method for shape a' = alpha
// (alpha >= 1) or alpha + 1 (alpha < 1, boosted after).
struct Shape {
  double alpha, d, c;
  bool boost;
};
XRNG_HD XRNG_INLINE Shape shape(double alpha) {
  Shape s;
  s.alpha = alpha;
  s.boost = alpha < 1.0;
  const double a1 = s.boost ? alpha + 1.0 : alpha;
  s.d = a1 - 1.0 / 3.0;
  s.c = 1.0 / math::sqrt_(9.0 * s.d);
  return s;
}

// One attempt from its 4 words: true and *y = d v if accepted.
XRNG_HD XRNG_INLINE bool attempt(const Shape& s, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, double* y) {
  const double r = math::box_muller_radius<52, double, uint64_t>(dist::bits_u64(w0, w1) >> 12);
  double cs, sn;
  math::sincos_turns<32, double, uint64_t>(static_cast<uint64_t>(w2), &cs, &sn);
  const double x = r * cs;
  const double t = 1.0 + s.c * x;
  if (!(t > 0.0)) return false;
  const double v = t * t * t;
  const double u = math::unit_open<32, double, uint64_t>(static_cast<uint64_t>(w3));
  const double xx = x * x;
  if (u < 1.0 - 0.0331 * (xx * xx) ||  // the squeeze (no log)
      math::log_unit<double, uint64_t>(u) < 0.5 * xx + s.d * ((1.0 - v) + math::log_unit<double, uint64_t>(v))) {
    *y = s.d * v;
    return true;
  }
  return false;
}

// The boost u^(1/alpha) = exp(ln u / alpha) of alpha < 1, from words 60, 61.
XRNG_HD XRNG_INLINE double boost(const Shape& s, uint32_t w0, uint32_t w1) {
  const double u = math::unit_open<52, double, uint64_t>(dist::bits_u64(w0, w1) >> 12);
  return math::exp_<double, uint64_t>(math::log_unit<double, uint64_t>(u) / s.alpha);
}

// The binary64 variate of element e (before its rounding to the output
// dtype): >= 2^-1022, as torch's. `word(i)` returns word i of the element's
// 64 (offset + 64 e + i); it is called only for the words used.
template <class WordFn>
XRNG_HD XRNG_INLINE double variate(double alpha, WordFn&& word) {
  const Shape s = shape(alpha);
  double y = s.d;  // all attempts rejected (SPEC 11.2)
  for (int j = 0; j < kAttempts; ++j) {
    double cand;
    if (attempt(s, word(4 * j), word(4 * j + 1), word(4 * j + 2), word(4 * j + 3), &cand)) {
      y = cand;
      break;
    }
  }
  if (s.boost) y = y * boost(s, word(kBoostWord), word(kBoostWord + 1));
  return math::max_(y, kDblMin);
}

// The variate of element e from the stream itself (one Philox block per
// attempt used; the reference form of the backends).
XRNG_HD XRNG_INLINE double variate_at(double alpha, const Stream& st, uint64_t w0) {
  return variate(alpha, ElementWords(st, w0));
}

// ---- rounding to the output dtype (SPEC 11.3) -------------------------------------------
// f64: y; f32: y rounded to nearest even, then at least 2^-126; f16 / bf16:
// that f32 value rounded to nearest even, then at least the smallest normal
// (2^-14, 2^-126), as torch's clamp to numeric_limits<T>::min().
XRNG_HD XRNG_INLINE float gamma_f32(double y) {
  const float f = math::to_f32(y);
  return f < 0x1p-126f ? 0x1p-126f : f;
}
XRNG_HD XRNG_INLINE uint16_t gamma_f16(double y) {
  const uint16_t h = math::f32_to_f16_bits(math::to_f32(y));
  return h < 0x0400u ? uint16_t(0x0400u) : h;  // positive: bits order as values
}
XRNG_HD XRNG_INLINE uint16_t gamma_bf16(double y) {
  const uint16_t b = math::f32_to_bf16_bits(math::to_f32(y));
  return b < 0x0080u ? uint16_t(0x0080u) : b;
}

// Dirichlet's quotient of element (r, i): g / sum in binary64, rounded to the
// dtype, then clamped to [the smallest normal, the largest value below 1],
// as torch's _sample_dirichlet.
XRNG_HD XRNG_INLINE double dirichlet_f64(double q) {
  return math::min_(math::max_(q, kDblMin), 0x1.fffffffffffffp-1);
}
XRNG_HD XRNG_INLINE float dirichlet_f32(double q) {
  const float f = math::to_f32(q);
  return f < 0x1p-126f ? 0x1p-126f : (f > 0x1.fffffep-1f ? 0x1.fffffep-1f : f);
}
XRNG_HD XRNG_INLINE uint16_t dirichlet_f16(double q) {
  const uint16_t h = math::f32_to_f16_bits(math::to_f32(q));
  return h < 0x0400u ? uint16_t(0x0400u) : (h > 0x3bffu ? uint16_t(0x3bffu) : h);
}
XRNG_HD XRNG_INLINE uint16_t dirichlet_bf16(double q) {
  const uint16_t b = math::f32_to_bf16_bits(math::to_f32(q));
  return b < 0x0080u ? uint16_t(0x0080u) : (b > 0x3f7fu ? uint16_t(0x3f7fu) : b);
}

// Writes element i of a gamma (dirichlet: the quotient g / S) draw of dtype dt
// (f64, f32, f16 or bf16; others are refused before any draw).
XRNG_HD XRNG_INLINE void store(DType dt, void* out, uint64_t i, double y, bool dirichlet) {
  switch (dt) {
    case DType::f64: static_cast<double*>(out)[i] = dirichlet ? dirichlet_f64(y) : y; return;
    case DType::f32: static_cast<float*>(out)[i] = dirichlet ? dirichlet_f32(y) : gamma_f32(y); return;
    case DType::f16: static_cast<uint16_t*>(out)[i] = dirichlet ? dirichlet_f16(y) : gamma_f16(y); return;
    case DType::bf16: static_cast<uint16_t*>(out)[i] = dirichlet ? dirichlet_bf16(y) : gamma_bf16(y); return;
    default: return;
  }
}

}  // namespace gammad

// ---- host-side checks (every backend's, before anything is written) -----------------------
// The words a draw of n elements consumes: 64 n; xrng::Error beyond 2^64.
inline uint64_t gamma_words(uint64_t n) {
  if (n > UINT64_MAX / gammad::kWords) throw Error("gamma: the draw needs more than 2^64 stream words");
  return n * gammad::kWords;
}

inline void check_gamma_count(uint64_t n, uint64_t offset) {
  if (gamma_words(n) > ~offset)
    throw Error("counter overflow: the draw needs stream words beyond 2^64 (offset " + std::to_string(offset) + ")");
}

// The first element whose alpha is not finite and > 0, or n.
inline uint64_t first_bad_alpha(const double* alpha, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (!gammad::alpha_ok(alpha[i])) return i;
  return n;
}

inline std::string gamma_alpha_error(const char* what, uint64_t i, double a) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", a);
  return std::string(what) + ": alpha must be finite and > 0, got " + b + " at element " + std::to_string(i);
}

}  // namespace xrng
