// Host-side construction and validation of draws. Everything that can be
// wrong with a request (names, sizes, parameters, counters) is rejected here,
// once, with an xrng::Error carrying a one-line message; backends then
// evaluate the plan without further checks.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "draw.h"

namespace xrng {

class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The user-facing parameters of a draw; fields a distribution does not use
// are ignored.
struct DrawParams {
  double low = 0.0, high = 1.0;    // uniform
  double mean = 0.0, std = 1.0;    // normal
  double p = 0.5;                  // bernoulli, dropout
  int64_t ilow = 0, ihigh = 0;     // randint: [ilow, ihigh)
  uint64_t n = 0;                  // perm: permutation of [0, n)

  // Named constructors: DrawParams::range(-1, 1), DrawParams::moments(0, 2), ...
  static DrawParams range(double lo, double hi) {
    DrawParams q;
    q.low = lo;
    q.high = hi;
    return q;
  }
  static DrawParams moments(double mean, double std) {
    DrawParams q;
    q.mean = mean;
    q.std = std;
    return q;
  }
  static DrawParams probability(double p) {
    DrawParams q;
    q.p = p;
    return q;
  }
  static DrawParams int_range(int64_t lo, int64_t hi) {
    DrawParams q;
    q.ilow = lo;
    q.ihigh = hi;
    return q;
  }
  static DrawParams perm_size(uint64_t n) {
    DrawParams q;
    q.n = n;
    return q;
  }
};

inline const char* dist_name(Dist d) {
  switch (d) {
    case Dist::bits: return "bits";
    case Dist::uniform: return "uniform";
    case Dist::normal: return "normal";
    case Dist::bernoulli: return "bernoulli";
    case Dist::randint: return "randint";
    case Dist::perm: return "perm";
    case Dist::dropout: return "dropout";
  }
  return "?";
}
inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::u32: return "u32";
    case DType::u64: return "u64";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::u8: return "u8";
  }
  return "?";
}
inline Dist parse_dist(const std::string& s) {
  for (Dist d : {Dist::bits, Dist::uniform, Dist::normal, Dist::bernoulli, Dist::randint, Dist::perm, Dist::dropout})
    if (s == dist_name(d)) return d;
  throw Error("unknown distribution '" + s + "' (bits, uniform, normal, bernoulli, randint, perm, dropout)");
}
inline DType parse_dtype(const std::string& s) {
  for (DType t : {DType::u32, DType::u64, DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64,
                  DType::u8})
    if (s == dtype_name(t)) return t;
  throw Error("unknown dtype '" + s + "' (u32, u64, f32, f64, f16, bf16, i32, i64, u8)");
}

// The output type a distribution gives when none is named.
inline DType default_dtype(Dist d) {
  switch (d) {
    case Dist::bits: return DType::u32;
    case Dist::bernoulli: return DType::u8;
    case Dist::randint: return DType::i64;
    case Dist::perm: return DType::i64;
    default: return DType::f32;
  }
}

inline bool dtype_supported(Dist d, DType t) {
  switch (d) {
    case Dist::bits: return t == DType::u32 || t == DType::u64;
    case Dist::uniform:
    case Dist::normal:
    case Dist::dropout: return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16;
    case Dist::bernoulli: return t == DType::u8;
    case Dist::randint: return t == DType::i32 || t == DType::i64;
    case Dist::perm: return t == DType::i64 || t == DType::u64 || t == DType::i32 || t == DType::u32;
  }
  return false;
}

namespace detail {

inline std::string num(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

// Rounds x to the output type and returns it as a double.
inline double round_to(DType t, double x) {
  switch (t) {
    case DType::f32: return static_cast<float>(x);
    case DType::f16: return math::f16_bits_to_f32(math::f32_to_f16_bits(static_cast<float>(x)));
    case DType::bf16: return math::bf16_bits_to_f32(math::f32_to_bf16_bits(static_cast<float>(x)));
    default: return x;
  }
}
// Largest finite value of the type below x (x finite, not the type's lowest).
inline double below(DType t, double x, uint32_t* bits) {
  *bits = 0;
  if (t == DType::f64) return std::nextafter(x, -std::numeric_limits<double>::infinity());
  const float f = static_cast<float>(x);
  if (t == DType::f32) {
    const float b = std::nextafter(f, -std::numeric_limits<float>::infinity());
    *bits = math::as_u32(b);
    return b;
  }
  // f16 / bf16: step the 16-bit pattern down (towards -inf).
  uint16_t h = t == DType::f16 ? math::f32_to_f16_bits(f) : math::f32_to_bf16_bits(f);
  if (h == 0x0000u)
    h = 0x8001u;               // +0 -> smallest negative subnormal
  else if (h == 0x8000u)
    h = 0x8001u;               // -0 -> likewise
  else if (h & 0x8000u)
    h = static_cast<uint16_t>(h + 1);  // negative: away from zero
  else
    h = static_cast<uint16_t>(h - 1);  // positive: towards zero
  *bits = h;
  return t == DType::f16 ? math::f16_bits_to_f32(h) : math::bf16_bits_to_f32(h);
}

inline double max_finite(DType t) {
  switch (t) {
    case DType::f32: return std::numeric_limits<float>::max();
    case DType::f16: return 65504.0;
    case DType::bf16: return 0x1.fep127;
    default: return std::numeric_limits<double>::max();
  }
}

}  // namespace detail

// Validates a draw and prepares its parameters. Throws xrng::Error.
inline Plan make_plan(Dist d, DType t, const DrawParams& q) {
  if (!dtype_supported(d, t))
    throw Error(std::string("dtype ") + dtype_name(t) + " is not available for distribution " + dist_name(d));
  Plan p;
  p.dist = d;
  p.dtype = t;
  p.group = 1;
  p.words = 1;
  switch (d) {
    case Dist::bits:
      p.words = t == DType::u64 ? 2 : 1;
      break;
    case Dist::uniform: {
      if (!std::isfinite(q.low) || !std::isfinite(q.high))
        throw Error("uniform: low and high must be finite (got low=" + detail::num(q.low) +
                    ", high=" + detail::num(q.high) + ")");
      const double lo = detail::round_to(t, q.low), hi = detail::round_to(t, q.high);
      if (!(lo < hi))
        throw Error("uniform: empty range [" + detail::num(q.low) + ", " + detail::num(q.high) + ") in " +
                    dtype_name(t));
      if (std::fabs(lo) > detail::max_finite(t) || std::fabs(hi) > detail::max_finite(t))
        throw Error("uniform: low/high overflow " + std::string(dtype_name(t)));
      const double width = hi - lo;
      if (!std::isfinite(width)) throw Error("uniform: high - low overflows double");
      p.uniform.low = lo;
      p.uniform.high = hi;
      p.uniform.width = width;
      p.uniform.below_high = detail::below(t, hi, &p.uniform.below_high_bits);
      p.uniform.unit = lo == 0.0 && hi == 1.0;
      p.words = t == DType::f64 ? 2 : 1;
      break;
    }
    case Dist::normal:
      if (!std::isfinite(q.mean) || !std::isfinite(q.std) || q.std < 0.0)
        throw Error("normal: mean must be finite and std finite and >= 0 (got mean=" + detail::num(q.mean) +
                    ", std=" + detail::num(q.std) + ")");
      p.normal.mean = q.mean;
      p.normal.std = q.std;
      p.group = 2;
      p.words = t == DType::f64 ? 4 : 2;
      break;
    case Dist::bernoulli:
    case Dist::dropout: {
      if (!(q.p >= 0.0 && q.p <= 1.0))
        throw Error(std::string(dist_name(d)) + ": p must be in [0, 1] (got " + detail::num(q.p) + ")");
      // threshold = round-half-even(p * 2^32); p * 2^32 is exact in double.
      const double x = q.p * 4294967296.0;
      uint64_t th = static_cast<uint64_t>(x);
      const double frac = x - static_cast<double>(th);
      if (frac > 0.5 || (frac == 0.5 && (th & 1u))) ++th;
      p.bernoulli.threshold = th;
      p.bernoulli.p = q.p;
      p.bernoulli.scale = q.p < 1.0 ? 1.0 / (1.0 - q.p) : 0.0;
      p.bernoulli.scale_f32 = static_cast<float>(p.bernoulli.scale);
      break;
    }
    case Dist::randint: {
      if (!(q.ilow < q.ihigh))
        throw Error("randint: empty range [" + std::to_string(q.ilow) + ", " + std::to_string(q.ihigh) + ")");
      if (t == DType::i32 && (q.ilow < INT32_MIN || q.ihigh - 1 > INT32_MAX))
        throw Error("randint: range [" + std::to_string(q.ilow) + ", " + std::to_string(q.ihigh) +
                    ") does not fit i32");
      p.randint.low = q.ilow;
      p.randint.range = static_cast<uint64_t>(q.ihigh) - static_cast<uint64_t>(q.ilow);
      p.words = t == DType::i64 ? 4 : 2;
      break;
    }
    case Dist::perm:
      if (q.n < 1 || q.n > (1ull << 63)) throw Error("perm: n must be in [1, 2^63] (got " + std::to_string(q.n) + ")");
      if ((t == DType::i32 && q.n - 1 > INT32_MAX) || (t == DType::u32 && q.n - 1 > UINT32_MAX))
        throw Error("perm: n = " + std::to_string(q.n) + " does not fit " + dtype_name(t));
      p.n = q.n;
      p.words = kPermRounds;
      break;
  }
  return p;
}

// Checks that a draw of elements [start, start + count) at word `offset`
// touches only words below 2^64, and returns the number of words a stateful
// generator advances by for a draw of `count` elements from element 0.
inline uint64_t check_counters(const Plan& p, uint64_t offset, uint64_t start, uint64_t count) {
  using u128 = unsigned __int128;
  u128 last;  // one past the last word touched
  if (p.dist == Dist::perm) {
    if (count > p.n || start > p.n - count)
      throw Error("perm: elements [" + std::to_string(start) + ", " + std::to_string(start) + "+" +
                  std::to_string(count) + ") exceed n = " + std::to_string(p.n));
    last = static_cast<u128>(offset) + p.words;
  } else {
    const u128 end = static_cast<u128>(start) + count;
    const u128 groups = (end + p.group - 1) / p.group;
    last = static_cast<u128>(offset) + groups * p.words;
  }
  if (last > (static_cast<u128>(1) << 64))
    throw Error("counter overflow: the draw needs stream words beyond 2^64 (offset " + std::to_string(offset) + ")");
  return plan_words(p, count);
}

}  // namespace xrng
