// The binary32 transcendentals of stream v2 (SPEC.md, "Stream v2"), written
// with + - * on binary32, correctly rounded sqrt, integer operations and
// exact int32 -> binary32 conversions (|value| < 2^24) only: no fused
// multiply-add, no division, no libm. No intermediate is subnormal for any
// input (tools/accuracy_v2.cpp checks every operation over all 2^32 words),
// so hardware that flushes subnormals to zero gives the same bits.
//
// Every algorithm is a template over a "binary32 lane" F and a "uint32 lane" I,
// as math.h is over double lanes. The scalar instantiation (F = float,
// I = uint32_t) is the reference on the host and the implementation on the
// GPU; host/simd instantiates the same templates with AVX2 / AVX-512 vectors.
//
// A lane type must provide: F + - * F; I + - & | ^ I, I << int, I >> int
// (logical); construction from a float / uint32_t constant (broadcast); and
// the free functions sqrt_(F), min_(F, F), max_(F, F), lt_mask(F, F) (all ones
// where a < b), as_u32(F), as_f32(I), sra(I, int) (arithmetic shift of the
// lane read as int32) and cvt_i32(I) (the lane read as int32, converted to
// binary32; only called where the value is below 2^24 in magnitude, so the
// conversion is exact whatever the rounding mode).
#pragma once

#include <cmath>
#include <cstdint>

#include "math.h"

namespace xrng {
namespace math32 {

using math::as_f32;
using math::as_u32;

// ---- scalar lane operations ------------------------------------------------
XRNG_HD XRNG_INLINE float sqrt_(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
XRNG_HD XRNG_INLINE float min_(float a, float b) { return b < a ? b : a; }
XRNG_HD XRNG_INLINE float max_(float a, float b) { return a < b ? b : a; }
XRNG_HD XRNG_INLINE uint32_t lt_mask(float a, float b) { return a < b ? 0xffffffffu : 0u; }
XRNG_HD XRNG_INLINE uint32_t sra(uint32_t v, int s) { return static_cast<uint32_t>(static_cast<int32_t>(v) >> s); }
XRNG_HD XRNG_INLINE float cvt_i32(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __int2float_rn(static_cast<int>(v));
#else
  return static_cast<float>(static_cast<int32_t>(v));
#endif
}

// ---- constants (SPEC.md, "Stream v2", lists them in hex) ----------------------
// 2 pi 2^-32 = CH + CL; CH = CH1 + CH2 with 12 and 4 significant bits, so that
// products with a 12-bit factor are exact (Dekker's product).
constexpr float kCH = 0x1.921fb6p-30f;
constexpr float kCH1 = 0x1.922p-30f;
constexpr float kCH2 = -0x1.28p-48f;
constexpr float kCL = -0x1.777a5cp-55f;
// ln 2 = LN2_HI + LN2_LO; LN2_HI has 16 significant bits, so k * LN2_HI is
// exact for |k| < 256.
constexpr float kLn2Hi = 0x1.62e4p-1f;
constexpr float kLn2Lo = 0x1.7f7d1cp-20f;
constexpr float kInvLn2 = 0x1.715476p+0f;

// ---- ln u of the open unit variate u = (a + 1/2) 2^-32 of stream v2 ----------------------------
// ln u within an ulp of the exact value for every word a, the largest included
// (SPEC.md 9.1-9.2; revised: the first definition rounded u to binary32 first,
// which quantised 1 - u to 2^-24 in the upper half).
//
// u 2^32 = a + 1/2 as an unevaluated pair: s = hi + lo rounded once
// (hi = (a >> 8) * 256 and lo = (a & 255) + 1/2 exact), sl = lo - (s - hi)
// its exact error (Fast2Sum: hi = 0 or hi >= 256 > lo). u = 2^k m with
// m in [sqrt(1/2), sqrt(2)) taken from the bits of s (s 2^-32 >= 2^-33: the
// 2^-32 is folded into the exponent), f0 = m - 1 (exact), e0 = sl 2^(-32-k)
// (exact), so that u 2^-k - 1 = f0 + e0 exactly; f = f0 + e0 rounded once and
// e = (f0 - f) + e0 its exact error (|e| <= 2^-24 |f|). Near u = 1 (k = 0)
// f is u - 1 itself, exactly, wherever |u - 1| < 2^-9.
//
// log(1 + f + e) = f - f^2/2 + f^3 P(f) + e / (1 + f) + O(e^2), P a degree-7
// minimax fit (relative error of the sum below 2^-27.3 on the interval).
// f^2/2 is split exactly: fh = f rounded to a multiple of 2^-11 (the
// 1.5 * 2^12 shifter), fl = f - fh (exact), t = fh^2/2 (exact: at most 11
// significant bits squared), f^2/2 = t + fl (f + fh)/2; v = f - t with its
// rounding error dv kept (Fast2Sum: |t| <= |f|). e / (1 + f) is
// e ((1 - f) + f^2) (relative error f^3). k ln 2 + v is summed with its
// rounding error kept (Fast2Sum: |k ln2_hi| >= |v| or k = 0), and the small
// terms are added last.
// The rest of log_unit_parts from f + e (f = f0 + e0 rounded, e its error),
// fh (f rounded to a multiple of 2^-11) and k: shared with the AVX-512
// kernel's radius_v2 (host/simd/kernels.h), which gets f, e, fh and k by
// shorter exact steps.
template <class F>
XRNG_HD XRNG_INLINE void log_unit_finish(F f, F e, F fh, F kf, F* s_out, F* tail_out) {
  const F fl = f - fh;
  F p = F(-0x1.38ca4ap-4f);
  p = p * f + F(0x1.055edep-3f);
  p = p * f + F(-0x1.0d823ep-3f);
  p = p * f + F(0x1.22d92cp-3f);
  p = p * f + F(-0x1.54728ap-3f);
  p = p * f + F(0x1.99a01cp-3f);
  p = p * f + F(-0x1.000226p-2f);
  p = p * f + F(0x1.555554p-2f);
  const F t = (F(0.5f) * fh) * fh;
  const F v = f - t;
  const F dv = (f - v) - t;
  const F ff = f * f;
  const F rest = ff * (f * p) - (F(0.5f) * fl) * (f + fh);
  const F corr = e * ((F(1.0f) - f) + ff);
  const F h = kf * F(kLn2Hi);
  const F s = h + v;
  const F ds = (h - s) + v;
  *s_out = s;
  *tail_out = ((ds + kf * F(kLn2Lo)) + (dv + corr)) + rest;
}
template <class F, class I>
XRNG_HD XRNG_INLINE void log_unit_parts(I a, F* s_out, F* tail_out) {
  const F hi = cvt_i32(a >> 8) * F(256.0f);
  const F lo = cvt_i32(a & I(255u)) + F(0.5f);
  const F s2 = hi + lo;
  const F sl = lo - (s2 - hi);
  const I hx = as_u32(s2) + I(0x3f800000u - 0x3f3504f3u);
  const I ke = hx >> 23;  // k + 127 + 32
  const F kf = cvt_i32(ke - I(127u + 32u));
  const F m = as_f32((hx & I(0x007fffffu)) + I(0x3f3504f3u));
  const F f0 = m - F(1.0f);
  const F e0 = sl * as_f32((I(254u) - ke) << 23);  // sl 2^(-32-k)
  const F f = f0 + e0;
  const F e = (f0 - f) + e0;
  const F fh = (f + F(0x1.8p12f)) - F(0x1.8p12f);
  log_unit_finish<F>(f, e, fh, kf, s_out, tail_out);
}
template <class F, class I>
XRNG_HD XRNG_INLINE F log_unit_word(I a) {
  F s, tail;
  log_unit_parts<F, I>(a, &s, &tail);
  return s + tail;
}

// ---- -x by the sign bit (exact, zeros and infinities included) ------------------
template <class F, class I>
XRNG_HD XRNG_INLINE F neg_(F x) {
  return as_f32(as_u32(x) ^ I(0x80000000u));
}

// ---- Box-Muller radius sqrt(-2 ln u) and the exponential's -ln u ----------------
template <class F, class I>
XRNG_HD XRNG_INLINE F radius(I a) {
  return sqrt_(log_unit_word<F, I>(a) * F(-2.0f));
}
template <class F, class I>
XRNG_HD XRNG_INLINE F neg_log(I a) {
  return F(0.0f) - log_unit_word<F, I>(a);
}

// ---- the reduced angle as an unevaluated pair ------------------------------------
// x = 2 pi r 2^-(32 + E) for the int32 r, |r| <= 2^(31 - kShift + 23) (E = 0 for
// the normal's angle, 2 for the Cauchy's): xh + xl with xl within about an ulp
// of xh. R = RNE(r) from two exact halves, rr = r - R exactly (Fast2Sum), the
// product R * CH exact (Veltkamp split of R into 12 + 12 bits, Dekker's
// product with CH = CH1 + CH2), the small terms R * CL and rr * CH rounded.
template <int kShift, class F, class I>
XRNG_HD XRNG_INLINE void reduced_angle(I r, F scale, F* xh, F* xl) {
  const F a = cvt_i32(sra(r, kShift)) * F(static_cast<float>(1u << kShift));
  const F b = cvt_i32(r & I((1u << kShift) - 1u));
  const F rn = a + b;
  const F rr = b - (rn - a);
  const F cv = rn * F(4097.0f);
  const F rh = cv - (cv - rn);
  const F rl = rn - rh;
  const F ch = F(kCH) * scale, ch1 = F(kCH1) * scale, ch2 = F(kCH2) * scale, cl = F(kCL) * scale;
  const F p = rn * ch;
  const F e = ((rh * ch1 - p) + rh * ch2 + rl * ch1) + rl * ch2;
  *xh = p;
  *xl = e + (rn * cl + rr * ch);
}

// ---- sin and cos of xh + xl, |xh + xl| <= pi/4, as unevaluated pairs --------------
// sin = sh + sl: x + x^3 S(x^2), S a 3-term minimax fit (2^-27.9), with xl
// carried to first order (xl cos x ~ xl (1 - x^2/2)).
// cos = ch + cl: 1 - x^2/2 + x^4 C(x^2), C a 3-term fit (2^-33), w = 1 - x^2/2
// with its rounding error kept, xl carried to first order (-x xl).
// z is floored at 2^-60 in the x^4 term only, where the term is far below an
// ulp of 1, so that it is never subnormal (the Cauchy's smallest angle).
template <class F>
struct SinCosPairs {
  F sh, sl, ch, cl;
};
// The sine's and cosine's polynomials in z = x^2 (Horner, the rounded
// operations of sincos_pairs in its order): shared with the AVX-512/AVX2
// kernel's angle (host/simd/kernels.h).
template <class F>
XRNG_HD XRNG_INLINE void sincos_polys(F z, F* ps_out, F* pc_out) {
  F ps = F(-0x1.995408p-13f);
  ps = ps * z + F(0x1.110778p-7f);
  ps = ps * z + F(-0x1.555546p-3f);
  F pc = F(0x1.99e80cp-16f);
  pc = pc * z + F(-0x1.6c0c28p-10f);
  pc = pc * z + F(0x1.55554ap-5f);
  *ps_out = ps;
  *pc_out = pc;
}
template <bool kExactSquare, class F, class I>
XRNG_HD XRNG_INLINE SinCosPairs<F> sincos_pairs(F xh, F xl) {
  const F z = xh * xh;
  // kExactSquare (the Cauchy): xh^2 = z + ze exactly (Veltkamp split of xh),
  // ze carried to first order in both pairs, and the sine's tail with its
  // leading product x^3 exact: its rounding would cost up to 0.4 ulp of tan.
  F ze = F(0.0f), p3 = F(0.0f), e3 = F(0.0f);
  if constexpr (kExactSquare) {
    // On xb = xh, or 0 where |xh| < 2^-20: there the corrections
    // are below 2^-40 relative, and dropping them keeps every product normal.
    // (|xh| for the log_normal's angle, which has either sign.)
    const F xb = as_f32(as_u32(xh) & (lt_mask(as_f32(as_u32(xh) & I(0x7fffffffu)), F(0x1p-20f)) ^ I(0xffffffffu)));
    const F zb = xb * xb;
    const F cv = xb * F(4097.0f);
    const F h = cv - (cv - xb);
    const F l = xb - h;
    ze = ((h * h - zb) + (h + h) * l) + l * l;
    // xb zb = p3 + e3 exactly (Dekker), for the leading term of the sine's tail.
    const F cz = zb * F(4097.0f);
    const F zh = cz - (cz - zb);
    const F zl = zb - zh;
    p3 = xb * zb;
    e3 = ((h * zh - p3) + h * zl + l * zh) + l * zl;
  }
  const F hz = F(0.5f) * z;
  F ps, pc;
  sincos_polys<F>(z, &ps, &pc);
  const F w = F(1.0f) - hz;
  const F zf = max_(z, F(0x1p-60f));
  SinCosPairs<F> o;
  o.sh = xh;
  o.ch = w;
  if constexpr (kExactSquare) {
    // x^3 S(x^2) = S0 (p3 + e3 + xh ze) + p3 z (S1 + S2 z): the leading
    // product rounded once, the rest small.
    const F s0 = F(-0x1.555546p-3f);
    const F t2 = s0 * (e3 + xh * ze) + (p3 * z) * (F(0x1.110778p-7f) + F(-0x1.995408p-13f) * z);
    o.sl = xl * w + (s0 * p3 + t2);  // (p3 = 0 where xh < 2^-20: the tail is below 2^-40 relative there)
    o.cl = (((F(1.0f) - w) - hz) - F(0.5f) * ze) + ((zf * zf) * pc - xh * xl);
  } else {
    o.sl = xl * w + (xh * z) * ps;
    o.cl = ((F(1.0f) - w) - hz) + ((zf * zf) * pc - xh * xl);
  }
  return o;
}

// ---- cos and sin of 2 pi b 2^-32 ----------------------------------------------------
// Exact integer reduction as in v1 (math.h, sincos_turns): q = round(4t) picks
// the quadrant, r = b + 2^29 - q 2^30 - 2^29 in [-2^29, 2^29) is the reduced
// angle in units of 2^-32 turns; then (cos, sin)(q pi/2 + x) by a swap and
// sign flips of the bit patterns.
// sincos_turns_pairs<true> (the log_normal) also returns the pairs' low
// parts, with x^2 and x^3 carried exactly (sincos_pairs<true>): cos and sin to
// about 2^-30 relative. sincos_turns is sincos_turns_pairs<false>'s high parts.
template <bool kExact, class F, class I>
XRNG_HD XRNG_INLINE void sincos_turns_pairs(I b, F* c_out, F* cl_out, F* s_out, F* sl_out) {
  const I m = b + I(1u << 29);
  const I q = m >> 30;
  const I r = (m & I(0x3fffffffu)) - I(1u << 29);
  F xh, xl;
  reduced_angle<6, F, I>(r, F(1.0f), &xh, &xl);
  const SinCosPairs<F> t = sincos_pairs<kExact, F, I>(xh, xl);
  const F sn = t.sh + t.sl;
  const F cs = t.ch + t.cl;
  // The rounding errors of those two sums (Fast2Sum), for the log_normal's
  // pairs (dead code for the normal).
  const F snl = t.sl - (sn - t.sh);
  const F csl = t.cl - (cs - t.ch);
  const I swap = I(0u) - (q & I(1u));
  const I keep = swap ^ I(0xffffffffu);
  const I cflip = ((q + I(1u)) & I(2u)) << 30, sflip = (q & I(2u)) << 30;
  const I ub = as_u32(sn), uc = as_u32(cs), ubl = as_u32(snl), ucl = as_u32(csl);
  *c_out = as_f32(((ub & swap) | (uc & keep)) ^ cflip);
  *s_out = as_f32(((uc & swap) | (ub & keep)) ^ sflip);
  *cl_out = as_f32(((ubl & swap) | (ucl & keep)) ^ cflip);
  *sl_out = as_f32(((ucl & swap) | (ubl & keep)) ^ sflip);
}
template <class F, class I>
XRNG_HD XRNG_INLINE void sincos_turns(I b, F* c_out, F* s_out) {
  F cl, sl;
  sincos_turns_pairs<false, F, I>(b, c_out, &cl, s_out, &sl);
}

// ---- 1/d for d in [2^-40, 2^40] --------------------------------------------------------
// An integer seed (the bits of 1/d's neighbourhood: 0x7ef311c3 - bits(d),
// relative error below 1/8) and three Newton steps y (2 - d y), each squaring
// the relative error: within about 2^-23 of 1/d.
template <class F, class I>
XRNG_HD XRNG_INLINE F recip(F d) {
  F y = as_f32(I(0x7ef311c3u) - as_u32(d));
  y = y * (F(2.0f) - d * y);
  y = y * (F(2.0f) - d * y);
  y = y * (F(2.0f) - d * y);
  return y;
}

// ---- x where m is all ones, y where it is 0 (bit select) -------------------------------------
template <class F, class I>
XRNG_HD XRNG_INLINE F select_bits(I m, F x, F y) {
  return as_f32((as_u32(x) & m) | (as_u32(y) & (m ^ I(0xffffffffu))));
}

// ---- Veltkamp split and Dekker's exact product ---------------------------------------------
// a * b = p + e exactly (no overflow, no underflow), p = fl(a * b).
template <class F>
XRNG_HD XRNG_INLINE void two_prod(F a, F b, F* p, F* e) {
  const F ca = a * F(4097.0f), cb = b * F(4097.0f);
  const F ah = ca - (ca - a), bh = cb - (cb - b);
  const F al = a - ah, bl = b - bh;
  *p = a * b;
  *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

// ---- tan(pi (u - 1/2)) for u = (a + 1/2) 2^-32: the Cauchy's transform ---------------------
// The angle in turns, (2a + 1 - 2^32) 2^-34, is an odd multiple of 2^-34:
// never a quarter turn, so the denominator below is never 0. g = a + 2^30
// picks q = round(4t) in {-1, 0, 1} (q odd where g < 2^31) and the reduced
// angle r = 2 ((g mod 2^31) - 2^30) + 1 in units of 2^-34 turns, taken as
// |r| (tan is odd) with the sign applied at the end. tan = sin / cos
// (q = 0) or -cos / sin (q odd), a quotient n / d of the pairs of
// sincos_pairs: q0 = nh / dh by the Newton reciprocal, then one correction
// q0 + (nh - q0 dh + nl - q0 dl) / dh with q0 dh exact (Dekker), so the
// quotient is nearly correctly rounded from the pairs.
template <class F, class I>
XRNG_HD XRNG_INLINE F tan_centered(I a) {
  const I g = a + I(1u << 30);
  const I odd = sra(g, 31) ^ I(0xffffffffu);  // all ones where g < 2^31
  const I r = (((g & I(0x7fffffffu)) - I(1u << 30)) << 1) + I(1u);
  const I neg = sra(r, 31);
  const I ra = (r ^ neg) - neg;  // |r| in [1, 2^31 - 1]
  F xh, xl;
  reduced_angle<8, F, I>(ra, F(0.25f), &xh, &xl);
  const SinCosPairs<F> t = sincos_pairs<true, F, I>(xh, xl);
  // Renormalised (Fast2Sum): sin = s1 + s2, cos = c1 + c2 with |s2| <= ulp(s1) / 2.
  const F s1 = t.sh + t.sl, s2 = t.sl - (s1 - t.sh);
  const F c1 = t.ch + t.cl, c2 = t.cl - (c1 - t.ch);
  const I nswap = odd ^ I(0xffffffffu);
  const F nh = select_bits<F, I>(odd, c1, s1), nl = select_bits<F, I>(odd, c2, s2);
  const F dh = select_bits<F, I>(nswap, c1, s1), dl = select_bits<F, I>(nswap, c2, s2);
  const F y = recip<F, I>(dh);
  const F q0 = nh * y;
  F p, e;
  two_prod<F>(q0, dh, &p, &e);
  const F res = ((nh - p) - e) + (nl - q0 * dl);
  const F tq = q0 + res * y;
  return as_f32(as_u32(tq) ^ ((neg ^ odd) & I(0x80000000u)));
}

// ---- e^x in binary32 -------------------------------------------------------------------------
// x < -0x1.5d5p6 (-87.328125, where e^x < 1.0085 * 2^-126) gives +0 and
// |x| < 2^-30 gives 1 (e^x rounds to 1 there), so that no intermediate is
// subnormal; x is clamped to [-0x1.5d5p6, 89] (above 88.73 e^x overflows to
// inf anyway). k = round(x / ln2) by the 1.5 * 2^23 shifter, r = x - k ln2_hi
// (exact) - k ln2_lo with the rounding error of that subtraction kept,
// e^r = 1 + r + r^2 E(r) with E a 5-term minimax fit (2^-28.2) on
// |r| <= ln2/2, and 2^k applied as 2^floor(k/2) * 2^ceil(k/2) (normal
// factors; the first product is exact).
constexpr float kExpLo = -0x1.5d5p6f;
//
// exp_pair(x, xl) is e^(x + xl) for a small xl (|xl| <= 2^-20 |x|), the
// log_normal's unevaluated pair: the reduced argument is r = (rh - rl) + xl
// rounded, its rounding errors kept in rc (Fast2Sum; where |rh - rl| < |xl|,
// r is below 2^-13 and the inexact rc is far below an ulp); exp_(x) is
// exp_pair(x, +0), bit for bit the plain e^x.
template <class F, class I>
XRNG_HD XRNG_INLINE F exp_pair(F x, F xl) {
  const I zero = lt_mask(x, F(kExpLo));
  const I tiny = lt_mask(as_f32(as_u32(x) & I(0x7fffffffu)), F(0x1p-30f));
  x = as_f32(as_u32(x) & (tiny ^ I(0xffffffffu)));
  x = min_(max_(x, F(kExpLo)), F(89.0f));
  const F shifter = F(0x1.8p23f);
  const F kd0 = x * F(kInvLn2) + shifter;
  const I k = as_u32(kd0) - as_u32(shifter);
  const F kd = kd0 - shifter;
  const F rh = x - kd * F(kLn2Hi);
  const F rl = kd * F(kLn2Lo);
  const F r0 = rh - rl;
  const F r = r0 + xl;
  const F rc = ((rh - r0) - rl) + ((r0 - r) + xl);
  F p = F(0x1.6a3cfep-10f);
  p = p * r + F(0x1.123856p-7f);
  p = p * r + F(0x1.5558bep-5f);
  p = p * r + F(0x1.555494p-3f);
  p = p * r + F(0x1.fffffcp-2f);
  const F e = F(1.0f) + (r + (rc + (r * r) * p));
  const I k1 = sra(k, 1);
  const I k2 = k - k1;
  const F y = (e * as_f32((k1 + I(127u)) << 23)) * as_f32((k2 + I(127u)) << 23);
  return as_f32(as_u32(y) & (zero ^ I(0xffffffffu)));
}
template <class F, class I>
XRNG_HD XRNG_INLINE F exp_(F x) {
  return exp_pair<F, I>(x, F(0.0f));
}

// ---- exact products of pairs (the log_normal) ---------------------------------------------------
// hi12(a): a cut to its 12 leading significant bits (a mask of the bits);
// a - hi12(a) is exact and has at most 12 significant bits, so with
// ah = hi12(a), al = a - ah and likewise for b, every partial product is
// exact and dekker_err gives a * b - p exactly (p = fl(a * b), no overflow,
// and every partial product normal).
template <class F, class I>
XRNG_HD XRNG_INLINE F hi12(F a) {
  return as_f32(as_u32(a) & I(0xfffff000u));
}
template <class F>
XRNG_HD XRNG_INLINE F dekker_err(F ah, F al, F bh, F bl, F p) {
  return (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
}
// x, or +0 where |x| < t (a low part too small to matter, kept from making a
// subnormal product).
template <class F, class I>
XRNG_HD XRNG_INLINE F flush_below(F x, F t) {
  return as_f32(as_u32(x) & (lt_mask(as_f32(as_u32(x) & I(0x7fffffffu)), t) ^ I(0xffffffffu)));
}

// ---- the log_normal: e^(mean + std z) with z and the affine step as pairs -------------------
// e^x turns an absolute error of x into a relative one (|x| up to 88), so
// x = mean + std (r cos) is carried as an unevaluated pair xh + xl accurate to
// about 2^-26 |x| + 2^-40 absolute: ln u = lh + ll (the sum of log_unit_parts
// and its rounding error); r = rh + rl with rh = sqrt(-2 lh) (the normal's
// radius) and rl = ((-2 lh - rh^2) - 2 ll) / (2 rh) (rh^2 exact by Dekker,
// 1 / rh by the integer seed and one Newton step: rl is needed to 2^-6);
// cos = c + cl (the pair of sincos_turns_pairs; cl flushed below 2^-40);
// z = zh + zl with zh = rh c, its exact error (Dekker) and rh cl + rl c;
// std z = qh + ql likewise (std's product exact where |qh| >= 2^-26; below,
// the low part is dropped: e^x is within 2^-26 of 1 + x there); mean + qh by
// 2Sum, xl = its error + ql (+0 where |xh| >= 2^100: e^x is 0 or inf there,
// and the pair's steps could overflow). zh + rl, cl and zl are the normal's
// z only to about 2^-24: the pair never changes the normal's own values.
template <class F, class I>
XRNG_HD XRNG_INLINE F exp_affine_pair(F rh, F hh, F hl, F rl, F c, F cl, F mean, F std, F sh, F sl) {
  const F zh = rh * c;
  const F ch = hi12<F, I>(c);
  const F ze = dekker_err<F>(hh, hl, ch, c - ch, zh);
  const F zl = ze + (rh * flush_below<F, I>(cl, F(0x1p-40f)) + rl * c);
  const F qh = std * zh;
  const I g = lt_mask(as_f32(as_u32(qh) & I(0x7fffffffu)), F(0x1p-26f)) ^ I(0xffffffffu);
  const F zb = as_f32(as_u32(zh) & g);
  const F zlb = as_f32(as_u32(flush_below<F, I>(zl, F(0x1p-80f))) & g);
  const F zbh = hi12<F, I>(zb);
  const F ql = dekker_err<F>(sh, sl, zbh, zb - zbh, std * zb) + std * zlb;
  const F xh = mean + qh;
  const F bb = xh - mean;
  const F xe = (mean - (xh - bb)) + (qh - bb);
  const I fin = lt_mask(as_f32(as_u32(xh) & I(0x7fffffffu)), F(0x1p100f));
  return exp_pair<F, I>(xh, as_f32(as_u32(xe + ql) & fin));
}
template <class F, class I>
XRNG_HD XRNG_INLINE void log_normal_pair(I a, I b, F mean, F std, F* y0, F* y1) {
  F ls, lt;
  log_unit_parts<F, I>(a, &ls, &lt);
  const F lh = ls + lt;
  const F ll = lt - (lh - ls);
  const F xr = lh * F(-2.0f);
  const F rh = sqrt_(xr);
  const F hh = hi12<F, I>(rh), hl = rh - hh;
  const F pr = rh * rh;
  const F pe = dekker_err<F>(hh, hl, hh, hl, pr);
  F y = as_f32(I(0x7ef311c3u) - as_u32(rh));
  y = y * (F(2.0f) - rh * y);
  const F rl = (((xr - pr) - pe) + ll * F(-2.0f)) * (F(0.5f) * y);
  F c, cl, s, sl;
  sincos_turns_pairs<true, F, I>(b, &c, &cl, &s, &sl);
  const F sh = hi12<F, I>(std), sd = std - sh;
  *y0 = exp_affine_pair<F, I>(rh, hh, hl, rl, c, cl, mean, std, sh, sd);
  *y1 = exp_affine_pair<F, I>(rh, hh, hl, rl, s, sl, mean, std, sh, sd);
}

}  // namespace math32
}  // namespace xrng
