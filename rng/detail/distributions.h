// Element functions of xrng stream v1: each maps the words of one group to
// the values of that group, a pure function of (words, parameters).
//
// A draw of dist/dtype at stream offset `off` splits elements into groups of
// G elements; group g consumes the K words off + K*g .. off + K*g + K - 1
// (see SPEC.md, "Distributions"; G and K are the columns of XRNG_ROWS in
// registry.h). G is 2 for normal and log_normal, 1 otherwise.
//
// Value transforms are templates over the lane types of math.h, so the host
// SIMD backends run these very bodies.
#pragma once

#include <cstdint>

#include "math.h"

namespace xrng {

// The prepared, validated parameters of every distribution, as plain values
// so that they can be passed by value to a GPU kernel.
struct UniformParams {
  double low = 0.0;         // low, rounded to the output type
  double width = 1.0;       // high - low, in double
  double high = 1.0;        // high, rounded to the output type
  double below_high = 0.0;  // the largest value of the output type below high
  uint32_t below_high_bits = 0;  // the same, as bits of the output type (f16/bf16/f32)
  bool unit = true;         // low == 0 and high == 1: x = u exactly
};
struct NormalParams {
  double mean = 0.0;
  double std = 1.0;
  float mean32 = 0.0f;  // stream v2 (f32/f16/bf16): mean and std as binary32 (plan.h, detail::loc32 / scale32)
  float std32 = 1.0f;
};
struct BernoulliParams {
  uint64_t threshold = 0;   // element is 1 when word < threshold (threshold <= 2^32)
  double scale = 1.0;       // dropout: 1 / (1 - p), in double
  float scale_f32 = 1.0f;   // dropout: the same rounded to binary32
};
struct RandintParams {
  int64_t low = 0;
  uint64_t range = 1;       // high - low, 1 .. 2^64 - 1
};
struct ExponentialParams {
  double rate = 1.0;        // > 0, finite
  float inv_rate32 = 1.0f;  // stream v2: 1 / rate rounded to binary32 (plan.h, detail::inv_rate32)
};
struct GeometricParams {
  double log1m_p = -1.0;    // log(1 - p) < 0, computed once with detail::log1p_neg (plan.h) (p < 1)
  bool certain = false;     // p == 1: every element is 1
};
struct CauchyParams {
  double median = 0.0;
  double sigma = 1.0;
  float median32 = 0.0f;    // stream v2: median and sigma as binary32 (plan.h)
  float sigma32 = 1.0f;
};

namespace dist {

// ---- bits --------------------------------------------------------------------
XRNG_HD XRNG_INLINE uint32_t bits_u32(uint32_t w) { return w; }
XRNG_HD XRNG_INLINE uint64_t bits_u64(uint32_t w0, uint32_t w1) {
  return static_cast<uint64_t>(w0) | (static_cast<uint64_t>(w1) << 32);
}

// ---- uniform -----------------------------------------------------------------
// u has the resolution of the output type: 24 bits for f32, 53 for f64, 11
// for f16 and 8 for bf16, so u is exact in that type and [0, 1) maps onto an
// evenly spaced grid. x = low + u * width is formed in double and rounded once
// to the output type; a result that rounds to `high` becomes below_high.
template <class D, class U>
XRNG_HD XRNG_INLINE D uniform_affine(D u, const UniformParams& p) {
  return D(p.low) + u * D(p.width);
}

XRNG_HD XRNG_INLINE float uniform_f32(uint32_t w, const UniformParams& p) {
  const double u = static_cast<double>(w >> 8) * 0x1p-24;
  const float y = static_cast<float>(uniform_affine<double, uint64_t>(u, p));
  return y >= static_cast<float>(p.high) ? static_cast<float>(p.below_high) : y;
}
XRNG_HD XRNG_INLINE double uniform_f64(uint32_t w0, uint32_t w1, const UniformParams& p) {
  const double u = static_cast<double>(bits_u64(w0, w1) >> 11) * 0x1p-53;
  const double y = uniform_affine<double, uint64_t>(u, p);
  return y >= p.high ? p.below_high : y;
}
XRNG_HD XRNG_INLINE uint16_t uniform_f16(uint32_t w, const UniformParams& p) {
  const double u = static_cast<double>(w >> 21) * 0x1p-11;
  const float y = static_cast<float>(uniform_affine<double, uint64_t>(u, p));
  const uint16_t h = math::f32_to_f16_bits(y);
  return math::f16_bits_to_f32(h) >= static_cast<float>(p.high) ? static_cast<uint16_t>(p.below_high_bits) : h;
}
XRNG_HD XRNG_INLINE uint16_t uniform_bf16(uint32_t w, const UniformParams& p) {
  const double u = static_cast<double>(w >> 24) * 0x1p-8;
  const float y = static_cast<float>(uniform_affine<double, uint64_t>(u, p));
  const uint16_t b = math::f32_to_bf16_bits(y);
  return math::bf16_bits_to_f32(b) >= static_cast<float>(p.high) ? static_cast<uint16_t>(p.below_high_bits) : b;
}

// ---- normal (Box-Muller, two fixed draws per pair) ---------------------------------
// Pair from words (a, b): r = sqrt(-2 log u), u = (a + 1/2) 2^-32; theta = 2 pi b 2^-32.
// Element 0 of the pair is mean + std * r cos(theta), element 1 mean + std * r sin(theta),
// evaluated in double and rounded once to binary32 (f16/bf16 are then rounded from
// that binary32 value). The f64 pair uses 52-bit fractions of two 64-bit words.
template <class D, class U>
XRNG_HD XRNG_INLINE void normal_pair_f32_core(U a, U b, D mean, D std, D* z0, D* z1) {
  const D r = math::box_muller_radius<32, D, U>(a);
  D c, s;
  math::sincos_turns<32, D, U>(b, &c, &s);
  *z0 = mean + std * (r * c);
  *z1 = mean + std * (r * s);
}
template <class D, class U>
XRNG_HD XRNG_INLINE void normal_pair_f64_core(U a, U b, D mean, D std, D* z0, D* z1) {
  const D r = math::box_muller_radius<52, D, U>(a >> 12);
  D c, s;
  math::sincos_turns<52, D, U>(b >> 12, &c, &s);
  *z0 = mean + std * (r * c);
  *z1 = mean + std * (r * s);
}

XRNG_HD XRNG_INLINE void normal_f32(uint32_t w0, uint32_t w1, const NormalParams& p, float out[2]) {
  double z0, z1;
  normal_pair_f32_core<double, uint64_t>(w0, w1, p.mean, p.std, &z0, &z1);
  out[0] = math::to_f32(z0);
  out[1] = math::to_f32(z1);
}
XRNG_HD XRNG_INLINE void normal_f64(const uint32_t w[4], const NormalParams& p, double out[2]) {
  normal_pair_f64_core<double, uint64_t>(bits_u64(w[0], w[1]), bits_u64(w[2], w[3]), p.mean, p.std, &out[0],
                                         &out[1]);
}
XRNG_HD XRNG_INLINE void normal_f16(uint32_t w0, uint32_t w1, const NormalParams& p, uint16_t out[2]) {
  float f[2];
  normal_f32(w0, w1, p, f);
  out[0] = math::f32_to_f16_bits(f[0]);
  out[1] = math::f32_to_f16_bits(f[1]);
}
XRNG_HD XRNG_INLINE void normal_bf16(uint32_t w0, uint32_t w1, const NormalParams& p, uint16_t out[2]) {
  float f[2];
  normal_f32(w0, w1, p, f);
  out[0] = math::f32_to_bf16_bits(f[0]);
  out[1] = math::f32_to_bf16_bits(f[1]);
}

// ---- bernoulli and dropout ----------------------------------------------------------
// One word per element, compared in integers with a threshold fixed once from p.
XRNG_HD XRNG_INLINE uint8_t bernoulli_u8(uint32_t w, const BernoulliParams& p) {
  return static_cast<uint64_t>(w) < p.threshold ? 1 : 0;
}
// Dropout drops an element with probability p (the element's Bernoulli(p) bit
// is 1) and scales the kept ones by 1/(1-p). Dropped elements are exactly +0.
// A kept NaN becomes the type's canonical quiet NaN: NaN payloads propagate
// differently through x86 and GPU arithmetic, canonical NaNs are portable.
XRNG_HD XRNG_INLINE float dropout_f32(uint32_t w, float x, const BernoulliParams& p) {
  if (static_cast<uint64_t>(w) < p.threshold) return 0.0f;
  if ((math::as_u32(x) & 0x7fffffffu) > 0x7f800000u) return math::as_f32(0x7fc00000u);
  return x * p.scale_f32;
}
XRNG_HD XRNG_INLINE double dropout_f64(uint32_t w, double x, const BernoulliParams& p) {
  if (static_cast<uint64_t>(w) < p.threshold) return 0.0;
  if ((math::as_u64(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return math::as_f64(0x7ff8000000000000ull);
  return x * p.scale;
}
XRNG_HD XRNG_INLINE uint16_t dropout_f16(uint32_t w, uint16_t x, const BernoulliParams& p) {
  if (static_cast<uint64_t>(w) < p.threshold) return 0;
  if ((x & 0x7fffu) > 0x7c00u) return 0x7e00u;
  return math::f32_to_f16_bits(math::f16_bits_to_f32(x) * p.scale_f32);
}
XRNG_HD XRNG_INLINE uint16_t dropout_bf16(uint32_t w, uint16_t x, const BernoulliParams& p) {
  if (static_cast<uint64_t>(w) < p.threshold) return 0;
  if ((x & 0x7fffu) > 0x7f80u) return 0x7fc0u;
  return math::f32_to_bf16_bits(math::bf16_bits_to_f32(x) * p.scale_f32);
}

// ---- randint -----------------------------------------------------------------------
// v = floor(r * range / 2^bits(r)) with r of 64 bits (i32: two words) or 128 bits
// (i64: four words): every value has probability floor or ceil of 2^bits/range
// over 2^bits, a relative bias below range / 2^bits(r) <= 2^-32 (i32) and 2^-64 (i64).
XRNG_HD XRNG_INLINE uint64_t mulhi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}
XRNG_HD XRNG_INLINE int32_t randint_i32(uint32_t w0, uint32_t w1, const RandintParams& p) {
  const uint64_t v = mulhi64(bits_u64(w0, w1), p.range);
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(p.low) + v));
}
XRNG_HD XRNG_INLINE int64_t randint_i64(const uint32_t w[4], const RandintParams& p) {
  const uint64_t lo = bits_u64(w[0], w[1]);
  const uint64_t hi = bits_u64(w[2], w[3]);
  // (hi * 2^64 + lo) * range / 2^128 = (hi * range + mulhi(lo, range)) / 2^64
  const uint64_t t = mulhi64(lo, p.range);
  const uint64_t hl = hi * p.range;  // low half of hi * range
  const uint64_t hh = mulhi64(hi, p.range);
  const uint64_t carry = (hl + t < hl) ? 1u : 0u;
  const uint64_t v = hh + carry;
  return static_cast<int64_t>(static_cast<uint64_t>(p.low) + v);
}

// ---- exponential ----------------------------------------------------------------------
// -log(u) / rate with u = (m + 1/2) 2^-bits in (0, 1): m is the word (f32, f16,
// bf16) or the top 52 bits of two words (f64). Evaluated in double, rounded
// once to binary32 (f16/bf16 then rounded from that binary32 value, as normal).
template <class D, class U>
XRNG_HD XRNG_INLINE D exponential_core32(U w, D rate) {
  return math::neg_log_unit<32, D, U>(w) / rate;
}
XRNG_HD XRNG_INLINE float exponential_f32(uint32_t w, const ExponentialParams& p) {
  return math::to_f32(exponential_core32<double, uint64_t>(w, p.rate));
}
XRNG_HD XRNG_INLINE double exponential_f64(uint32_t w0, uint32_t w1, const ExponentialParams& p) {
  return math::neg_log_unit<52, double, uint64_t>(bits_u64(w0, w1) >> 12) / p.rate;
}

// ---- geometric ------------------------------------------------------------------------
// The number of Bernoulli(p) trials up to and including the first success:
// k = ceil(log(u) / log(1 - p)) >= 1 with u as for the exponential (32 bits:
// f32, f16, bf16, i32; 52 bits: f64, i64). Float outputs are k rounded to the
// type (inf beyond its range); integer outputs saturate at the type's maximum.
XRNG_HD XRNG_INLINE double ceil_positive(double k) {
  if (!(k < 4503599627370496.0)) return k;  // >= 2^52 (or inf): already an integer
  const double t = (k + 4503599627370496.0) - 4503599627370496.0;  // k rounded to an integer
  return t < k ? t + 1.0 : t;
}
template <int bits>
XRNG_HD XRNG_INLINE double geometric_value(uint64_t m, const GeometricParams& p) {
  if (p.certain) return 1.0;
  return ceil_positive(math::log_unit<double, uint64_t>(math::unit_open<bits, double, uint64_t>(m)) / p.log1m_p);
}
XRNG_HD XRNG_INLINE int64_t saturate_i64(double k) {
  return k >= 9223372036854775808.0 ? INT64_MAX : static_cast<int64_t>(k);
}

// ---- log-normal ---------------------------------------------------------------------------
// exp of the normal pair of the same words (normal_pair_*_core with mean and
// std), exp in double (math::exp_), rounded once to binary32 (f16/bf16 from there).
XRNG_HD XRNG_INLINE void log_normal_f32(uint32_t w0, uint32_t w1, const NormalParams& p, float out[2]) {
  double z0, z1;
  normal_pair_f32_core<double, uint64_t>(w0, w1, p.mean, p.std, &z0, &z1);
  out[0] = math::to_f32(math::exp_<double, uint64_t>(z0));
  out[1] = math::to_f32(math::exp_<double, uint64_t>(z1));
}
XRNG_HD XRNG_INLINE void log_normal_f64(const uint32_t w[4], const NormalParams& p, double out[2]) {
  double z0, z1;
  normal_pair_f64_core<double, uint64_t>(bits_u64(w[0], w[1]), bits_u64(w[2], w[3]), p.mean, p.std, &z0, &z1);
  out[0] = math::exp_<double, uint64_t>(z0);
  out[1] = math::exp_<double, uint64_t>(z1);
}

// ---- Cauchy ---------------------------------------------------------------------------------
// median + sigma * tan(pi (u - 1/2)), u as for the exponential, in double,
// rounded once to binary32 (f16/bf16 from there).
template <class D, class U>
XRNG_HD XRNG_INLINE D cauchy_core32(U w, D median, D sigma) {
  return median + sigma * math::tan_centered<32, D, U>(w);
}
XRNG_HD XRNG_INLINE float cauchy_f32(uint32_t w, const CauchyParams& p) {
  return math::to_f32(cauchy_core32<double, uint64_t>(w, p.median, p.sigma));
}
XRNG_HD XRNG_INLINE double cauchy_f64(uint32_t w0, uint32_t w1, const CauchyParams& p) {
  return p.median + p.sigma * math::tan_centered<52, double, uint64_t>(bits_u64(w0, w1) >> 12);
}

// ---- narrowing of a binary32 value to the 16-bit types ---------------------------------------
XRNG_HD XRNG_INLINE uint16_t to_f16(float f) { return math::f32_to_f16_bits(f); }
XRNG_HD XRNG_INLINE uint16_t to_bf16(float f) { return math::f32_to_bf16_bits(f); }

}  // namespace dist
}  // namespace xrng
