// Transcendentals and conversions of xrng, written with correctly rounded
// operations only: + - * /, sqrt, explicit fma, and integer operations.
//
// Every algorithm here is a template over a "double lane" type D and a
// "64-bit integer lane" type U. The scalar instantiation (D = double,
// U = uint64_t) is the reference on the host and the implementation on the
// GPU; host/ instantiates the very same templates with AVX2 and AVX-512
// vector types, so SIMD results equal scalar results by construction.
//
// A lane type must provide: D + - * / D, U + - & | ^ U, U << int, U >> int
// (logical), construction from a double / uint64_t constant (broadcast), and
// the free functions fma_(D, D, D), sqrt_(D), min_(D, D), max_(D, D),
// as_u64(D), as_f64(U).
#pragma once

#include <cmath>
#include <cstring>

#include "../config.h"

namespace xrng {
namespace math {

// ---- scalar lane operations ------------------------------------------------
XRNG_HD XRNG_INLINE double fma_(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
XRNG_HD XRNG_INLINE double sqrt_(double a) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
// min and max of two non-NaN values (the operands of xrng's transforms are never NaN).
XRNG_HD XRNG_INLINE double min_(double a, double b) { return b < a ? b : a; }
XRNG_HD XRNG_INLINE double max_(double a, double b) { return a < b ? b : a; }
XRNG_HD XRNG_INLINE uint64_t as_u64(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(d));
#else
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
#endif
}
XRNG_HD XRNG_INLINE double as_f64(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
#endif
}
XRNG_HD XRNG_INLINE uint32_t as_u32(float f) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__float_as_uint(f));
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
XRNG_HD XRNG_INLINE float as_f32(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// ---- binary64 -> binary32, round to nearest even ------------------------------
// Overflows to +-inf as IEEE 754 (and x86's cvtsd2ss, CUDA's cvt.rn.f32.f64)
// do; written out because a plain static_cast of a value beyond the float
// range is undefined behaviour in ISO C++. Values are those of the cast.
XRNG_HD XRNG_INLINE float to_f32(double x) {
  if (x >= 0x1.ffffffp127) return as_f32(0x7f800000u);   // >= FLT_MAX + ulp/2: rounds to +inf
  if (x <= -0x1.ffffffp127) return as_f32(0xff800000u);
  return static_cast<float>(x);
}

// ---- exact integer to double conversions -----------------------------------
// m < 2^52 converts exactly: the bits of 2^52 + m, minus 2^52.
template <class D, class U>
XRNG_HD XRNG_INLINE D u52_to_f64(U m) {
  return as_f64(m | U(0x4330000000000000ull)) - D(4503599627370496.0);
}

// ---- natural logarithm of u in [2^-1022, 1] ----------------------------------
// u = 2^k * m with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f):
//   log(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R),
//   R = 2 (z/3 + z^2/5 + ... + z^11/23),  z = s^2 <= 0.0295.
// The series is truncated where the next term is below 2^-60 relative; its
// coefficients are the exact 2/(2j+1) rounded to double. The structure (and
// the split of ln 2 into a 32-bit head and a tail, so k * ln2_hi is exact)
// follows fdlibm's e_log.c; the coefficients are the plain Taylor ones.
template <class D, class U>
XRNG_HD XRNG_INLINE D log_unit(D u) {
  const U ix = as_u64(u);
  // Add (1 - sqrt(1/2)) in the high word's format so that the exponent field
  // steps up exactly when the mantissa reaches sqrt(2).
  const U hx = (ix >> 32) + U(0x3ff00000ull - 0x3fe6a09eull);
  const U kb = hx >> 20;  // k + 1023
  const U hm = (hx & U(0x000fffffull)) + U(0x3fe6a09eull);
  const D m = as_f64((hm << 32) | (ix & U(0xffffffffull)));
  const D dk = u52_to_f64<D, U>(kb) - D(1023.0);
  const D f = m - D(1.0);
  const D hfsq = D(0.5) * f * f;
  const D s = f / (D(2.0) + f);
  const D z = s * s;
  D R = D(2.0 / 23.0);
  R = fma_(R, z, D(2.0 / 21.0));
  R = fma_(R, z, D(2.0 / 19.0));
  R = fma_(R, z, D(2.0 / 17.0));
  R = fma_(R, z, D(2.0 / 15.0));
  R = fma_(R, z, D(2.0 / 13.0));
  R = fma_(R, z, D(2.0 / 11.0));
  R = fma_(R, z, D(2.0 / 9.0));
  R = fma_(R, z, D(2.0 / 7.0));
  R = fma_(R, z, D(2.0 / 5.0));
  R = fma_(R, z, D(2.0 / 3.0));
  R = R * z;
  const D ln2_hi = D(0x1.62e42feep-1);
  const D ln2_lo = D(0x1.a39ef35793c76p-33);
  return dk * ln2_hi - ((hfsq - (s * (hfsq + R) + dk * ln2_lo)) - f);
}

// ---- sin and cos of 2*pi*t for t = m / 2^bits, m < 2^bits -----------------------
// The reduction is exact integer arithmetic: q = round(4t) picks the quadrant
// and r = t - q/4 in [-1/8, 1/8) turns is formed exactly; only x = 2 pi r is
// rounded (once). Taylor polynomials on |x| <= pi/4, truncated below 2^-60.
// bits <= 54: the reduced angle rb < 2^(bits-2) <= 2^52 still converts exactly.
template <int bits, class D, class U>
XRNG_HD XRNG_INLINE void sincos_turns(U m, D* c_out, D* s_out) {
  static_assert(bits >= 8 && bits <= 54, "angle resolution");
  const U eighth = U(1ull << (bits - 3));
  const U a = m + eighth;
  const U q = a >> (bits - 2);                 // 0..4 (4 is quadrant 0)
  const U rb = a - (q << (bits - 2));          // r + 1/8 turn, in [0, 2^(bits-2))
  const D r = u52_to_f64<D, U>(rb) - u52_to_f64<D, U>(eighth);  // exact
  // 2*pi / 2^bits is 2*pi scaled by a power of two, hence exact.
  const D x = r * D(0x1.921fb54442d18p+2 / static_cast<double>(1ull << bits));
  const D z = x * x;
  // sin x = x + x z P(z), P = -1/3! + z/5! - z^2/7! + ... - z^8/19! (to x^19).
  D ps = D(-1.0 / 121645100408832000.0);          // -1/19!
  ps = fma_(ps, z, D(1.0 / 355687428096000.0));    //  1/17!
  ps = fma_(ps, z, D(-1.0 / 1307674368000.0));     // -1/15!
  ps = fma_(ps, z, D(1.0 / 6227020800.0));         //  1/13!
  ps = fma_(ps, z, D(-1.0 / 39916800.0));          // -1/11!
  ps = fma_(ps, z, D(1.0 / 362880.0));             //  1/9!
  ps = fma_(ps, z, D(-1.0 / 5040.0));              // -1/7!
  ps = fma_(ps, z, D(1.0 / 120.0));                //  1/5!
  ps = fma_(ps, z, D(-1.0 / 6.0));                 // -1/3!
  const D sn = fma_(x * z, ps, x);
  // cos x = 1 - z/2 + z^2/4! - ..., up to x^20.
  D pc = D(1.0 / 2432902008176640000.0);  //  1/20!
  pc = fma_(pc, z, D(-1.0 / 6402373705728000.0));  // -1/18!
  pc = fma_(pc, z, D(1.0 / 20922789888000.0));     //  1/16!
  pc = fma_(pc, z, D(-1.0 / 87178291200.0));       // -1/14!
  pc = fma_(pc, z, D(1.0 / 479001600.0));          //  1/12!
  pc = fma_(pc, z, D(-1.0 / 3628800.0));           // -1/10!
  pc = fma_(pc, z, D(1.0 / 40320.0));              //  1/8!
  pc = fma_(pc, z, D(-1.0 / 720.0));               // -1/6!
  pc = fma_(pc, z, D(1.0 / 24.0));                 //  1/4!
  pc = fma_(pc, z, D(-0.5));
  const D cs = fma_(z, pc, D(1.0));
  // Quadrant q: (cos, sin)(q*pi/2 + x) from (cos x, sin x) by a swap and
  // sign flips, done on the bit patterns.
  const U swap = U(0) - (q & U(1));            // all ones when q is odd
  const U ub = as_u64(sn), uc = as_u64(cs);
  const U cbits = (ub & swap) | (uc & ~swap);
  const U sbits = (uc & swap) | (ub & ~swap);
  const U cneg = ((q + U(1)) & U(2)) << 62;    // q in {1, 2}
  const U sneg = (q & U(2)) << 62;             // q in {2, 3}
  *c_out = as_f64(cbits ^ cneg);
  *s_out = as_f64(sbits ^ sneg);
}

// ---- the open unit interval: u = (m + 1/2) / 2^bits for m < 2^bits -------------------
// Exact in double for bits <= 52, never 0 or 1.
template <int bits, class D, class U>
XRNG_HD XRNG_INLINE D unit_open(U m) {
  static_assert(bits >= 8 && bits <= 52, "unit resolution");
  return (u52_to_f64<D, U>(m) + D(0.5)) * D(1.0 / static_cast<double>(1ull << bits));
}

// ---- Box-Muller radius sqrt(-2 log u) for u = (m + 1/2) / 2^bits ----------------
template <int bits, class D, class U>
XRNG_HD XRNG_INLINE D box_muller_radius(U m) {
  return sqrt_(log_unit<D, U>(unit_open<bits, D, U>(m)) * D(-2.0));
}

// ---- -log(u) for u = (m + 1/2) / 2^bits: the exponential's transform ----------------
template <int bits, class D, class U>
XRNG_HD XRNG_INLINE D neg_log_unit(U m) {
  return D(0.0) - log_unit<D, U>(unit_open<bits, D, U>(m));
}

// ---- tan(pi (u - 1/2)) for u = (m + 1/2) / 2^bits: the Cauchy transform ----------------
// In turns, pi (u - 1/2) is (2m + 1 - 2^bits) / 2^(bits+2): an odd multiple of
// 2^-(bits+2), formed exactly in integers (mod 2^(bits+2)), never a quarter turn,
// so cos is never 0. tan = sin / cos, one division.
template <int bits, class D, class U>
XRNG_HD XRNG_INLINE D tan_centered(U m) {
  static_assert(bits >= 8 && bits <= 52, "unit resolution");
  const U a = ((m << 1) + U((3ull << bits) + 1ull)) & U((1ull << (bits + 2)) - 1ull);
  D c, s;
  sincos_turns<bits + 2, D, U>(a, &c, &s);
  return s / c;
}

// ---- e^x in double ------------------------------------------------------------------------
// x = k ln2 + r with k = round(x / ln2) (by the 1.5 * 2^52 shifter, so k is
// formed without a conversion instruction), ln 2 split into a 32-bit head
// (k * ln2_hi is exact) and a tail, as in fdlibm's e_exp.c. e^r on
// |r| <= 0.35 is the Taylor polynomial to r^14 (next term below 2^-62), and
// 2^k is applied as 2^k1 * 2^k2 with k1 = floor(k/2): both factors are normal
// doubles and the first product is exact, so scaling adds no rounding for a
// normal result and overflows to inf exactly; a subnormal result is e rounded a
// second time, onto the subnormal grid (within 0.77 of its ulp, measured:
// SPEC.md 5.4). x is clamped to
// [-746, 710] first, where e^x rounds to 0 and to inf already.
template <class D, class U>
XRNG_HD XRNG_INLINE D exp_(D x) {
  x = min_(max_(x, D(-746.0)), D(710.0));
  const D shifter = D(0x1.8p52);
  const D kd0 = x * D(0x1.71547652b82fep0) + shifter;  // 1/ln2
  const U kb = as_u64(kd0) - as_u64(shifter) + U(2048);  // k + 2048, in [971, 3073]
  const D kd = kd0 - shifter;
  const D hi = x - kd * D(0x1.62e42feep-1);
  const D lo = kd * D(0x1.a39ef35793c76p-33);
  const D r = hi - lo;
  D p = D(1.0 / 87178291200.0);          // 1/14!
  p = fma_(p, r, D(1.0 / 6227020800.0));  // 1/13!
  p = fma_(p, r, D(1.0 / 479001600.0));   // 1/12!
  p = fma_(p, r, D(1.0 / 39916800.0));    // 1/11!
  p = fma_(p, r, D(1.0 / 3628800.0));     // 1/10!
  p = fma_(p, r, D(1.0 / 362880.0));      // 1/9!
  p = fma_(p, r, D(1.0 / 40320.0));       // 1/8!
  p = fma_(p, r, D(1.0 / 5040.0));        // 1/7!
  p = fma_(p, r, D(1.0 / 720.0));         // 1/6!
  p = fma_(p, r, D(1.0 / 120.0));         // 1/5!
  p = fma_(p, r, D(1.0 / 24.0));          // 1/4!
  p = fma_(p, r, D(1.0 / 6.0));           // 1/3!
  p = fma_(p, r, D(0.5));                 // 1/2!
  const D e = D(1.0) + fma_(r * r, p, r);
  const U k1b = kb >> 1;  // floor(k/2) + 1024
  const U k2b = kb - k1b;  // k - floor(k/2) + 1024
  const D s1 = as_f64((k1b - U(1)) << 52);  // 2^floor(k/2)
  const D s2 = as_f64((k2b - U(1)) << 52);
  return (e * s1) * s2;
}

// ---- binary16 and bfloat16, rounded from binary32 to nearest even ---------------
// Bit-exact equivalents of IEEE conversion (and of F16C's vcvtps2ph with
// rounding mode 0), including subnormals, infinities and NaN (quieted).
XRNG_HD XRNG_INLINE uint16_t f32_to_f16_bits(float f) {
  const uint32_t x = as_u32(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? 0x0200u | ((ax >> 13) & 0x3ffu) : 0u));
  }
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (ax >= 0x38800000u) {  // normal binary16 result
    const uint32_t r = ax - 0x38000000u;  // rebias exponent 127 -> 15 (in place)
    const uint32_t out = (r + 0x0fffu + ((r >> 13) & 1u)) >> 13;
    return static_cast<uint16_t>(sign | out);
  }
  if (ax < 0x33000000u) return static_cast<uint16_t>(sign);  // below half the smallest subnormal
  // Subnormal binary16: value = mant * 2^-24 with mant = round(ax_value * 2^24).
  const uint32_t e = ax >> 23;                    // 102..112
  const uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - e;                // 14..24: mant * 2^(e-150) * 2^24
  const uint32_t q = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1u);
  const uint32_t up = (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;
  return static_cast<uint16_t>(sign | (q + up));
}

// binary64 rounded to binary16 once, to nearest even (what AArch64's fcvt
// h, d does: torch's AArch64 builds from 2.3 on convert a double to c10::Half
// this way, SPEC.md 14.8), subnormals and infinities included; NaN quieted.
XRNG_HD XRNG_INLINE uint16_t f64_to_f16_bits(double d) {
  const uint64_t x = as_u64(d);
  const uint32_t sign = static_cast<uint32_t>(x >> 48) & 0x8000u;
  const uint64_t ax = x & 0x7fffffffffffffffull;
  if (ax >= 0x7ff0000000000000ull)  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7ff0000000000000ull ? 0x0200u | ((ax >> 42) & 0x3ffu) : 0u));
  const int e = static_cast<int>(ax >> 52) - 1023;  // the unbiased exponent (-1023: zero or subnormal double)
  if (e < -25) return static_cast<uint16_t>(sign);  // below half the smallest binary16 subnormal (2^-24)
  if (e >= 16) return static_cast<uint16_t>(sign | 0x7c00u);
  const uint64_t m = (ax & 0xfffffffffffffull) | 0x10000000000000ull;  // 53 bits
  // normal results keep 11 bits (shift 42); subnormal ones (e < -14) fewer
  const int shift = e >= -14 ? 42 : 42 + (-14 - e);  // 42 to 53
  const uint64_t q = m >> shift, rem = m & ((uint64_t{1} << shift) - 1u), half = uint64_t{1} << (shift - 1);
  const uint64_t up = (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;
  // normal: exponent field (e + 15) above the 10 stored bits (q's leading 1 adds one to it: hence e + 14);
  // a carry out of the mantissa moves the exponent up, to 0x7c00 (inf) at the top
  const uint64_t bits = e >= -14 ? (static_cast<uint64_t>(e + 14) << 10) + q + up : q + up;
  return static_cast<uint16_t>(sign | (bits >= 0x7c00u ? 0x7c00u : static_cast<uint32_t>(bits)));
}

// a b + c rounded to binary16 once, to nearest even: one binary16 fused
// multiply-add (AArch64's fmla/fmadd on h registers: torch's AArch64 SVE256
// build, SPEC.md 14.8), for a, b and c binary16 values held in floats. The
// product is exact in binary64 (22 bits); the sum's rounding error (TwoSum)
// makes its last bit odd where the sum was inexact (round to odd), so the
// one rounding to binary16 (11 bits, from 53) is that of the exact value.
// Non-finite inputs: the binary64 sum's (inf, NaN).
XRNG_HD XRNG_INLINE uint16_t f16_fma_bits(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b), q = static_cast<double>(c);
  double s = p + q;
  if ((as_u64(s) & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) return f64_to_f16_bits(s);
  const double bb = s - p, e = (p - (s - bb)) + (q - bb);  // s + e == p + q exactly
  if (e != 0.0 && (as_u64(s) & 1u) == 0u)  // inexact, even: the odd neighbour towards p + q
    s = as_f64((s > 0.0) == (e > 0.0) ? as_u64(s) + 1u : as_u64(s) - 1u);
  return f64_to_f16_bits(s);
}

XRNG_HD XRNG_INLINE float f16_bits_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  uint32_t m = h & 0x3ffu;
  if (e == 0x1fu) return as_f32(sign | 0x7f800000u | (m << 13));
  if (e != 0) return as_f32(sign | ((e + 112u) << 23) | (m << 13));
  if (m == 0) return as_f32(sign);
  // subnormal: normalise
  uint32_t ee = 113u;
  while ((m & 0x400u) == 0) {
    m <<= 1;
    --ee;
  }
  return as_f32(sign | (ee << 23) | ((m & 0x3ffu) << 13));
}

XRNG_HD XRNG_INLINE uint16_t f32_to_bf16_bits(float f) {
  const uint32_t x = as_u32(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

XRNG_HD XRNG_INLINE float bf16_bits_to_f32(uint16_t b) { return as_f32(static_cast<uint32_t>(b) << 16); }

}  // namespace math
}  // namespace xrng
