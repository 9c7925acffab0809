// Host-side construction and validation of draws. Everything that can be
// wrong with a request (names, sizes, parameters, counters) is rejected here,
// once, for every backend, with an xrng::Error carrying a one-line message;
// backends then evaluate the plan without further checks. Each distribution's
// validation is its DistDef<D>::prepare below.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include <vector>

#include "detail/distributions.h"
#include "registry.h"

namespace xrng {

class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The user-facing parameters of a draw, one field per XRNG_PARAMS entry
// (registry.h); fields a distribution does not read are ignored.
struct DrawParams {
#define XRNG_X(name, kind, def, doc) kind##_t name = def;
  using real_t = double;
  using integer_t = int64_t;
  using count_t = uint64_t;
  XRNG_PARAMS(XRNG_X)
#undef XRNG_X

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
  static DrawParams with_rate(double rate) {
    DrawParams q;
    q.rate = rate;
    return q;
  }
  static DrawParams location_scale(double median, double sigma) {
    DrawParams q;
    q.median = median;
    q.sigma = sigma;
    return q;
  }

  // Generic access by Param, for code driven by the registry (the CLI, the
  // golden file). Integer and count parameters convert from and to double
  // only through their own accessors.
  double real(Param id) const;
  void set_real(Param id, double v);
  int64_t integer(Param id) const;
  void set_integer(Param id, int64_t v);
  uint64_t count(Param id) const;
  void set_count(Param id, uint64_t v);
};

// A validated draw: which row of the registry, and the parameters prepared
// for the element functions. Plain values, passed by value to GPU kernels.
//   element / transform draws: groups of `group` elements consume `words`
//                              consecutive stream words each;
//   permutation draws:         the key consumes `words` words (the whole
//                              draw); `group` is 1.
struct Plan {
  Dist dist = Dist::bits;
  DType dtype = DType::u32;
  Kind kind = Kind::element;
  uint8_t stream = kStreamVersion;  // the stream version the draw was asked in (make_plan's `version`)
  uint8_t version = 1;  // the version of the row that defines it in that stream (registry.h, find_row): <= stream
  uint32_t group = 1;
  uint32_t words = 1;
  UniformParams uniform;          // uniform
  NormalParams normal;            // normal, log_normal
  BernoulliParams bernoulli;      // bernoulli, dropout
  RandintParams randint;          // randint
  ExponentialParams exponential;  // exponential
  GeometricParams geometric;      // geometric
  CauchyParams cauchy;            // cauchy
  uint64_t n = 0;                 // perm: the permutation's size
};

// Words consumed by a draw of `count` elements (elements [0, count) or any
// other `count` consecutive elements starting at a group boundary).
XRNG_HD XRNG_INLINE uint64_t plan_words(const Plan& p, uint64_t count) {
  if (p.kind == Kind::permutation) return p.words;
  return p.words * ((count / p.group) + (count % p.group != 0 ? 1u : 0u));
}

namespace detail {
[[noreturn]] inline void bad_param(Param id) {
  throw Error(std::string("DrawParams: parameter '") + kParams[static_cast<unsigned>(id)].name +
              "' is not of the kind asked for");
}
}  // namespace detail

namespace detail {
// The field of parameter `id` in q when the parameter is of kind K (T is its
// type, const-qualified for a const q); throws otherwise. The one switch
// behind the six accessors below.
template <ParamKind K, class T, class Q>
T* param_field(Q& q, Param id) {
  switch (id) {
#define XRNG_X(name, kind, def, doc)                          \
  case Param::name:                                           \
    if constexpr (ParamKind::kind == K) return &q.name;       \
    break;
    XRNG_PARAMS(XRNG_X)
#undef XRNG_X
  }
  bad_param(id);
}
}  // namespace detail

inline double DrawParams::real(Param id) const { return *detail::param_field<ParamKind::real, const double>(*this, id); }
inline void DrawParams::set_real(Param id, double v) { *detail::param_field<ParamKind::real, double>(*this, id) = v; }
inline int64_t DrawParams::integer(Param id) const {
  return *detail::param_field<ParamKind::integer, const int64_t>(*this, id);
}
inline void DrawParams::set_integer(Param id, int64_t v) {
  *detail::param_field<ParamKind::integer, int64_t>(*this, id) = v;
}
inline uint64_t DrawParams::count(Param id) const {
  return *detail::param_field<ParamKind::count, const uint64_t>(*this, id);
}
inline void DrawParams::set_count(Param id, uint64_t v) { *detail::param_field<ParamKind::count, uint64_t>(*this, id) = v; }

inline Dist parse_dist(const std::string& s) {
  std::string all;
  for (const DistInfo& d : kDists) {
    if (s == d.name) return d.id;
    all += (all.empty() ? "" : ", ") + std::string(d.name);
  }
  throw Error("unknown distribution '" + s + "' (" + all + ")");
}
inline DType parse_dtype(const std::string& s) {
  std::string all;
  for (DType t : kAllDTypes) {
    if (s == dtype_name(t)) return t;
    all += (all.empty() ? "" : ", ") + std::string(dtype_name(t));
  }
  throw Error("unknown dtype '" + s + "' (" + all + ")");
}
// The dtypes a distribution offers in stream `version`, in table order (each
// once: a later version's row replaces a dtype's row, it adds no dtype twice).
inline std::vector<DType> dist_dtypes(Dist d, int version = kStreamVersion) {
  std::vector<DType> v;
  for (const RowInfo& r : kRows) {
    if (r.dist != d || r.version > version) continue;
    bool seen = false;
    for (DType t : v) seen = seen || t == r.dtype;
    if (!seen) v.push_back(r.dtype);
  }
  return v;
}

// Checks a stream version asked for by a user (1 .. kStreamVersion); `who`
// names the caller in the one-line message.
inline void check_stream_version(int version, const char* who = "stream version") {
  if (version < kOldestStreamVersion || version > kStreamVersion)
    throw Error(std::string(who) + ": stream version " + std::to_string(version) + " does not exist (" +
                std::to_string(kOldestStreamVersion) + ".." + std::to_string(kStreamVersion) + ")");
}

namespace detail {

// x in the fewest significant digits that read back as x, for messages:
// 1e+39 (not 1.0000000000000001e+39), 70000 (not 7e+04), 0.1.
inline std::string num(double x) {
  char b[64];
  int digits = 1;
  for (; digits < 17; ++digits) {
    std::snprintf(b, sizeof b, "%.*g", digits, x);
    if (std::strtod(b, nullptr) == x || x != x) break;
  }
  // whole numbers below 1e17 without an exponent: as many digits as they have
  const double a = std::fabs(x);
  if (a >= 1.0 && a < 1e17) {
    int whole = 1;
    for (double p = 10.0; p <= a; p *= 10.0) ++whole;
    if (whole > digits) digits = whole;
  }
  std::snprintf(b, sizeof b, "%.*g", digits, x);
  return b;
}

// Rounds x to the output type and returns it as a double (beyond the type's
// range: +-inf, as IEEE rounding gives).
inline double round_to(DType t, double x) {
  switch (t) {
    case DType::f32: return math::to_f32(x);
    case DType::f16: return math::f16_bits_to_f32(math::f32_to_f16_bits(math::to_f32(x)));
    case DType::bf16: return math::bf16_bits_to_f32(math::f32_to_bf16_bits(math::to_f32(x)));
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

// The one rule for real location and scale parameters (low, high, mean, std,
// median, sigma; SPEC.md section 4): each must be finite in binary64 and
// round to a finite value of the output dtype. Values of the distribution
// beyond the dtype's range still round to +-inf, as IEEE rounding does; a
// parameter that is already infinite in the dtype would make every value
// inf (or NaN) and is rejected instead.
inline void finite_in(const char* dist, DType t, const char* name, double x) {
  if (std::isfinite(x) && std::isfinite(round_to(t, x))) return;
  throw Error(std::string(dist) + ": " + name + " = " + num(x) + " is not finite in " + dtype_name(t) +
              " (largest finite value " + num(max_finite(t)) +
              "; parameters must be finite in the output dtype, values beyond it round to +-inf)");
}
inline void location_scale(const char* dist, DType t, const char* loc, double l, const char* scale, double s) {
  finite_in(dist, t, loc, l);
  finite_in(dist, t, scale, s);
  if (!(s >= 0.0))
    throw Error(std::string(dist) + ": " + scale + " must be >= 0 (got " + scale + " = " + num(s) + ")");
}
inline void probability(const char* dist, double p, bool allow_zero) {
  if (!(p >= 0.0 && p <= 1.0) || (!allow_zero && p == 0.0))
    throw Error(std::string(dist) + ": p must be in " + (allow_zero ? "[0, 1]" : "(0, 1]") + " (got " + num(p) +
                ")");
}

// log(1 - p) for p in (0, 1), from math::log_unit (never libm, so that every
// host prepares the same bits): log1p(x) = log(1 + x) * x / ((1 + x) - 1)
// (Goldberg's correction for the rounding of 1 + x).
inline double log1p_neg(double p) {
  const double u = 1.0 - p;
  if (u == 1.0) return -p;
  return math::log_unit<double, uint64_t>(u) * (-p / (u - 1.0));
}

}  // namespace detail

// ---- per-distribution validation --------------------------------------------------------
// DistDef<D>::prepare(q, t, plan) checks the parameters a distribution reads
// (registry.h, XRNG_DISTS) and fills its part of the plan. make_plan calls it
// through a switch generated from the table, so a distribution without a
// DistDef does not compile.
template <Dist D>
struct DistDef;

template <>
struct DistDef<Dist::bits> {
  static void prepare(const DrawParams&, DType, Plan&) {}
};
template <>
struct DistDef<Dist::uniform> {
  static void prepare(const DrawParams& q, DType t, Plan& p) {
    detail::finite_in("uniform", t, "low", q.low);
    detail::finite_in("uniform", t, "high", q.high);
    const double lo = detail::round_to(t, q.low), hi = detail::round_to(t, q.high);
    if (!(lo < hi))
      throw Error("uniform: empty range [" + detail::num(q.low) + ", " + detail::num(q.high) + ") in " +
                  dtype_name(t));
    const double width = hi - lo;
    if (!std::isfinite(width)) throw Error("uniform: high - low overflows double");
    p.uniform.low = lo;
    p.uniform.high = hi;
    p.uniform.width = width;
    p.uniform.below_high = detail::below(t, hi, &p.uniform.below_high_bits);
    p.uniform.unit = lo == 0.0 && hi == 1.0;
  }
};
namespace detail {
// The binary32 parameters of stream v2 (SPEC.md, "Stream v2", parameters):
// rounded to nearest, clamped to the finite range (so that 0 * scale and
// inf - inf never make a NaN), and set to +0 below a bound under which the
// affine step loc + scale * t could produce a subnormal (|t| >= 2^-45.35 for
// the normal, 2^-32 for the Cauchy, -ln u >= 2^-33 for the exponential): with
// |loc| >= 2^-100 and scale * |t| >= 2^-101.35 every nonzero intermediate and
// result of a sum is at least 2^-124.35 in magnitude, and the exponential's
// single product at least 2^-125. (The bounds of the v2 revision: 2^-56 for
// the normal's std and 2^-92 for 1 / rate; the first definition of v2, whose
// u stopped at 1 - 2^-24, had 2^-60 and 2^-100.)
inline float param32(double v, double below) {
  float f = math::to_f32(v);
  if (std::isinf(f)) f = std::copysign(3.40282347e38f, f);
  return std::fabs(f) < below ? 0.0f : f;
}
inline float loc32(double v) { return param32(v, 0x1p-100); }
inline float inv_rate32(double rate) {  // 1 / rate in double, rounded once to binary32; inf stays inf (-ln u > 0)
  const float f = math::to_f32(1.0 / rate);
  return f < 0x1p-92f ? 0.0f : f;
}
}  // namespace detail
template <>
struct DistDef<Dist::normal> {
  static void prepare(const DrawParams& q, DType t, Plan& p) {
    detail::location_scale("normal", t, "mean", q.mean, "std", q.std);
    p.normal.mean = q.mean;
    p.normal.std = q.std;
    p.normal.mean32 = detail::loc32(q.mean);
    p.normal.std32 = detail::param32(q.std, 0x1p-56);
  }
};
template <>
struct DistDef<Dist::bernoulli> {
  static void prepare(const DrawParams& q, DType, Plan& p) {
    detail::probability(dist_name(p.dist), q.p, true);
    // threshold = round-half-even(p * 2^32); p * 2^32 is exact in double.
    const double x = q.p * 4294967296.0;
    uint64_t th = static_cast<uint64_t>(x);
    const double frac = x - static_cast<double>(th);
    if (frac > 0.5 || (frac == 0.5 && (th & 1u))) ++th;
    p.bernoulli.threshold = th;
    p.bernoulli.scale = q.p < 1.0 ? 1.0 / (1.0 - q.p) : 0.0;
    p.bernoulli.scale_f32 = static_cast<float>(p.bernoulli.scale);
  }
};
template <>
struct DistDef<Dist::dropout> : DistDef<Dist::bernoulli> {};  // the mask is a bernoulli(p) draw
template <>
struct DistDef<Dist::randint> {
  static void prepare(const DrawParams& q, DType t, Plan& p) {
    if (!(q.ilow < q.ihigh))
      throw Error("randint: empty range [" + std::to_string(q.ilow) + ", " + std::to_string(q.ihigh) + ")");
    if (t == DType::i32 && (q.ilow < INT32_MIN || q.ihigh - 1 > INT32_MAX))
      throw Error("randint: range [" + std::to_string(q.ilow) + ", " + std::to_string(q.ihigh) +
                  ") does not fit i32");
    p.randint.low = q.ilow;
    p.randint.range = static_cast<uint64_t>(q.ihigh) - static_cast<uint64_t>(q.ilow);
  }
};
template <>
struct DistDef<Dist::perm> {
  static void prepare(const DrawParams& q, DType t, Plan& p) {
    if (q.n < 1 || q.n > (1ull << 63)) throw Error("perm: n must be in [1, 2^63] (got " + std::to_string(q.n) + ")");
    if ((t == DType::i32 && q.n - 1 > INT32_MAX) || (t == DType::u32 && q.n - 1 > UINT32_MAX))
      throw Error("perm: n = " + std::to_string(q.n) + " does not fit " + dtype_name(t));
    p.n = q.n;
  }
};
template <>
struct DistDef<Dist::exponential> {
  static void prepare(const DrawParams& q, DType, Plan& p) {
    if (!(std::isfinite(q.rate) && q.rate > 0.0))
      throw Error("exponential: rate must be finite and > 0 (got " + detail::num(q.rate) + ")");
    p.exponential.rate = q.rate;
    p.exponential.inv_rate32 = detail::inv_rate32(q.rate);
  }
};
template <>
struct DistDef<Dist::geometric> {
  static void prepare(const DrawParams& q, DType, Plan& p) {
    detail::probability("geometric", q.p, false);
    p.geometric.certain = q.p == 1.0;
    p.geometric.log1m_p = q.p == 1.0 ? -1.0 : detail::log1p_neg(q.p);
  }
};
template <>
struct DistDef<Dist::log_normal> {
  static void prepare(const DrawParams& q, DType t, Plan& p) {
    detail::location_scale("log_normal", t, "mean", q.mean, "std", q.std);
    p.normal.mean = q.mean;
    p.normal.std = q.std;
    p.normal.mean32 = detail::loc32(q.mean);
    p.normal.std32 = detail::param32(q.std, 0x1p-56);
  }
};
template <>
struct DistDef<Dist::cauchy> {
  static void prepare(const DrawParams& q, DType t, Plan& p) {
    detail::location_scale("cauchy", t, "median", q.median, "sigma", q.sigma);
    p.cauchy.median = q.median;
    p.cauchy.sigma = q.sigma;
    p.cauchy.median32 = detail::loc32(q.median);
    p.cauchy.sigma32 = detail::param32(q.sigma, 0x1p-69);
  }
};

// Validates a draw and prepares its parameters. Throws xrng::Error. `version`
// is the stream version to draw in (SPEC.md section 7): 1 .. kStreamVersion,
// the newest by default; the plan evaluates the row of (d, t) that defines
// the draw in that version (Plan::version) and records `version` itself
// (Plan::stream).
inline Plan make_plan(Dist d, DType t, const DrawParams& q, int version = kStreamVersion) {
  check_stream_version(version, "make_plan");
  const RowInfo* row = find_row(d, t, version);
  if (row == nullptr) {
    std::string all;
    for (DType u : dist_dtypes(d, version)) all += (all.empty() ? "" : ", ") + std::string(dtype_name(u));
    throw Error(std::string("dtype ") + dtype_name(t) + " is not available for distribution " + dist_name(d) +
                " (" + all + ")");
  }
  Plan p;
  p.dist = d;
  p.dtype = t;
  p.kind = dist_kind(d);
  p.stream = static_cast<uint8_t>(version);
  p.version = static_cast<uint8_t>(row->version);
  p.group = row->group;
  p.words = row->words;
  switch (d) {
#define XRNG_X(name, kind, dtype, params, doc) \
  case Dist::name:                             \
    DistDef<Dist::name>::prepare(q, t, p);     \
    break;
    XRNG_DISTS(XRNG_X)
#undef XRNG_X
  }
  return p;
}

// Checks that a draw of elements [start, start + count) at word `offset`
// touches only words below 2^64, and returns the number of words a stateful
// generator advances by for a draw of `count` elements from element 0.
inline uint64_t check_counters(const Plan& p, uint64_t offset, uint64_t start, uint64_t count) {
  using u128 = unsigned __int128;
  u128 last;  // one past the last word touched
  if (p.kind == Kind::permutation) {
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
