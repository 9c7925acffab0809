// Value kernels: the element functions of the registry's rows (rng/detail/rows.h)
// on vectors of groups.
//
// The double-precision transforms are the templates of rng/detail/math.h and
// rng/detail/distributions.h instantiated with the lane types DR<R> / UR<R>
// (isa.h), so the operation sequence is the scalar one by construction. The
// few element functions that distributions.h writes only in scalar form
// (uniform, bernoulli, randint, f16/bf16 rounding) are re-expressed here with
// the same operations; the comment at each says why the result is the same,
// and tests/simd proves it (exhaustively over all 2^32 words where per-word).
#pragma once

#include "../../rng/detail/distributions_v2.h"
#include "../../rng/plan.h"
#include "isa.h"

namespace xrng::detail {
namespace {

// ---- the kernel of a row -------------------------------------------------------------------------
// Kernel<dist, dtype>: the vector transform of the row (dist, dtype) of
// XRNG_ROWS, stream version 1. kVector says whether there is one. A vector
// kernel evaluates S groups per step, each of G elements from K words (the
// row's columns in rng/registry.h): step(w, plan, o) reads S*K words from w
// and writes S*G elements to o.
//
// The primary template is the scalar fallback, stated here rather than left
// to a missing specialisation: a row without a vector kernel has
// kVector = false, fill_impl (fill.h) declines it, and the dispatcher
// (host/fill.cpp, compiled for the baseline ISA) applies the row's scalar
// element function to words from the vector Philox. Its values are those of
// the scalar reference either way: a missing kernel costs speed, never
// correctness, and a new row of the registry works here without any change.
// The scalar element functions are deliberately not called from this
// translation unit: instantiating them here with scalar types would emit
// AVX-compiled weak copies that a baseline caller could be linked to (isa.h).
//
// Rows on the fallback: geometric (every dtype: its ceil to an integer and the
// saturation of the integer outputs have no lane form in the core yet), and
// the f64 rows of exponential and cauchy (distributions.h writes them in
// scalar form only; templating those bodies would make each a one-line kernel).
//
// V is the stream version of the row (registry.h, XRNG_ROWS): the rows of
// version 1 are below; the binary32 rows of stream v2 (normal, log_normal,
// exponential, cauchy in f32/f16/bf16) are at the end of this header.
template <Dist DI, DType T, int V = 1>
struct Kernel {
  static constexpr bool kVector = false;
};
struct VectorKernel {
  static constexpr bool kVector = true;
};

template <Dist DI, DType T>
using out_of = typename RowShape<DI, T>::out_t;

// ---- bits ------------------------------------------------------------------------------------------
template <>
struct Kernel<Dist::bits, DType::u32> : VectorKernel {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan&, uint32_t* o) { storeu(o, loadu<vu32>(w)); }
};
template <>
struct Kernel<Dist::bits, DType::u64> : VectorKernel {
  static constexpr int S = N64;  // dist::bits_u64: w0 | w1 << 32 is the little-endian pair
  static void step(const uint32_t* w, const Plan&, uint64_t* o) { storeu(o, loadu<vu64>(w)); }
};

// ---- narrowing of binary32 results ---------------------------------------------------------------
// Stores N32 binary32 values as dtype T: as they are (f32) or rounded to
// 16 bits (dist::to_f16 by F16C, dist::to_bf16 by the lane form in isa.h).
template <DType T, class O>
XRNG_INLINE void store_f32_as(O* o, vf32 z) {
  if constexpr (T == DType::f32)
    storeu(o, z);
  else if constexpr (T == DType::f16)
    storeu(o, f32_to_f16(z));
  else {
    static_assert(T == DType::bf16);
    storeu(o, f32_to_bf16(z));
  }
}

// ---- uniform -----------------------------------------------------------------------------------------
// dist::uniform_f32/f16/bf16: u = (w >> shift) * 2^-bits in double (exact),
// y = float(uniform_affine(u)), rounded once by vcvtpd2ps (RNE, as the
// scalar cast). Returned for all N32 words of a step.
template <int kShift>
XRNG_INLINE vf32 uniform_f32_lanes(vu32 x, const UniformParams& p) {
  constexpr double kScale = 1.0 / static_cast<double>(1ull << (32 - kShift));
  vf32h y[2];
  for (int h = 0; h < 2; ++h) {
    const vi32h m = (vi32h)(half<vu32h>(x, h) >> kShift);  // < 2^24: the signed conversion is exact
    const D u = dof(__builtin_convertvector(m, vf64) * kScale);
    y[h] = __builtin_convertvector(dist::uniform_affine<D, U>(u, p).v[0], vf32h);
  }
  return concat<vf32>(y[0], y[1]);
}

template <>
struct Kernel<Dist::uniform, DType::f32> : VectorKernel {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan& pl, float* o) {
    const UniformParams& p = pl.uniform;
    const vu32 x = loadu<vu32>(w);
    if (p.unit) {
      // low = 0 (or -0), width = 1: the scalar path computes float(0 + u * 1)
      // = u exactly (u has 24 bits), and u < 1 = high. (w >> 8) * 2^-24 in
      // binary32 is the same exact value.
      storeu(o, __builtin_convertvector((vi32)(x >> 8), vf32) * 0x1p-24f);
      return;
    }
    const vf32 y = uniform_f32_lanes<8>(x, p);
    const vf32 hi = bcast<vf32>(static_cast<float>(p.high));
    const vf32 below = bcast<vf32>(static_cast<float>(p.below_high));
    storeu(o, y >= hi ? below : y);
  }
};
template <>
struct Kernel<Dist::uniform, DType::f64> : VectorKernel {
  static constexpr int S = N64;
  static void step(const uint32_t* w, const Plan& pl, double* o) {
    const UniformParams& p = pl.uniform;
    const vu64 m = loadu<vu64>(w) >> 11;  // bits_u64(w0, w1) >> 11 < 2^53
    // double(m) exactly: both halves convert exactly, hi * 2^32 is exact, and
    // the sum is an integer below 2^53, so the addition is exact too.
    const D hi = math::u52_to_f64<D, U>(uof(m >> 32)) * D(4294967296.0);
    const D lo = math::u52_to_f64<D, U>(uof(m & kLo32));
    const D u = (hi + lo) * D(0x1p-53);
    const vf64 y = dist::uniform_affine<D, U>(u, p).v[0];
    storeu(o, y >= p.high ? bcast<vf64>(p.below_high) : y);
  }
};
template <>
struct Kernel<Dist::uniform, DType::f16> : VectorKernel {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan& pl, uint16_t* o) {
    const UniformParams& p = pl.uniform;
    const vu16h h = f32_to_f16(uniform_f32_lanes<21>(loadu<vu32>(w), p));
    const vi32 ge = f16_to_f32(h) >= static_cast<float>(p.high);
    const vu32 r = ge ? bcast<vu32>(p.below_high_bits) : __builtin_convertvector(h, vu32);
    storeu(o, narrow16(r));
  }
};
template <>
struct Kernel<Dist::uniform, DType::bf16> : VectorKernel {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan& pl, uint16_t* o) {
    const UniformParams& p = pl.uniform;
    const vu16h b = f32_to_bf16(uniform_f32_lanes<24>(loadu<vu32>(w), p));
    const vu32 b32 = __builtin_convertvector(b, vu32);
    const vi32 ge = (vf32)(b32 << 16) >= static_cast<float>(p.high);  // bf16_bits_to_f32
    const vu32 r = ge ? bcast<vu32>(p.below_high_bits) : b32;
    storeu(o, narrow16(r));
  }
};

// ---- normal and log-normal pairs -----------------------------------------------------------------
// dist::normal_pair_f32_core on kPairRegs * N64 pairs at once; log_normal
// applies math::exp_ to both values of the pair (dist::log_normal_f32). The
// binary64 values are rounded to binary32 by vcvtpd2ps (the scalar
// static_cast<float>) and interleaved z0, z1: kPairRegs vectors of N32 floats.
constexpr int kPairRegs = 4;
template <Dist DI>
XRNG_INLINE void pair_f32_lanes(const uint32_t* w, const NormalParams& p, vf32* out) {
  static_assert(DI == Dist::normal || DI == Dist::log_normal);
  constexpr int R = kPairRegs;
  UR<R> a, b;
  for (int r = 0; r < R; ++r) {
    const vu64 x = loadu<vu64>(w + 2 * N64 * r);  // lane g: w[2g] | w[2g+1] << 32
    a.v[r] = x & kLo32;
    b.v[r] = x >> 32;
  }
  DR<R> z0, z1;
  dist::normal_pair_f32_core<DR<R>, UR<R>>(a, b, DR<R>(p.mean), DR<R>(p.std), &z0, &z1);
  if constexpr (DI == Dist::log_normal) {
    z0 = math::exp_<DR<R>, UR<R>>(z0);
    z1 = math::exp_<DR<R>, UR<R>>(z1);
  }
  for (int r = 0; r < R; ++r) {
    const vf32 c =
        concat<vf32>(__builtin_convertvector(z0.v[r], vf32h), __builtin_convertvector(z1.v[r], vf32h));
    out[r] = shuffle<kInterleave32>(c, c);
  }
}
// normal / log_normal f32, f16, bf16: the binary32 pairs of pair_f32_lanes,
// stored as they are or rounded to 16 bits (dist::normal_f16, ...).
template <Dist DI, DType T>
struct PairNarrowKernel : VectorKernel {
  static constexpr int S = kPairRegs * N64;
  template <class O>
  static void step(const uint32_t* w, const Plan& pl, O* o) {
    vf32 z[kPairRegs];
    pair_f32_lanes<DI>(w, pl.normal, z);
    for (int r = 0; r < kPairRegs; ++r) store_f32_as<T>(o + r * N32, z[r]);
  }
};
// normal / log_normal f64: dist::normal_pair_f64_core on the 64-bit words
// (w0 | w1 << 32, w2 | w3 << 32) of each group, exp_ for log_normal
// (dist::normal_f64, dist::log_normal_f64).
template <Dist DI>
struct PairF64Kernel : VectorKernel {
  static constexpr int S = kPairRegs * N64;
  static void step(const uint32_t* w, const Plan& pl, double* o) {
    constexpr int R = kPairRegs;
    UR<R> a, b;
    for (int r = 0; r < R; ++r) {
      const vu64 x0 = loadu<vu64>(w + 4 * N64 * r), x1 = loadu<vu64>(w + 4 * N64 * r + 2 * N64);  // a0 b0 a1 b1..
      a.v[r] = shuffle<kEven64>(x0, x1);
      b.v[r] = shuffle<kOdd64>(x0, x1);
    }
    DR<R> z0, z1;
    dist::normal_pair_f64_core<DR<R>, UR<R>>(a, b, DR<R>(pl.normal.mean), DR<R>(pl.normal.std), &z0, &z1);
    if constexpr (DI == Dist::log_normal) {
      z0 = math::exp_<DR<R>, UR<R>>(z0);
      z1 = math::exp_<DR<R>, UR<R>>(z1);
    }
    for (int r = 0; r < R; ++r) {
      storeu(o + 2 * N64 * r, shuffle<kInterleaveLo>(z0.v[r], z1.v[r]));
      storeu(o + 2 * N64 * r + N64, shuffle<kInterleaveHi>(z0.v[r], z1.v[r]));
    }
  }
};
template <>
struct Kernel<Dist::normal, DType::f32> : PairNarrowKernel<Dist::normal, DType::f32> {};
template <>
struct Kernel<Dist::normal, DType::f16> : PairNarrowKernel<Dist::normal, DType::f16> {};
template <>
struct Kernel<Dist::normal, DType::bf16> : PairNarrowKernel<Dist::normal, DType::bf16> {};
template <>
struct Kernel<Dist::normal, DType::f64> : PairF64Kernel<Dist::normal> {};
template <>
struct Kernel<Dist::log_normal, DType::f32> : PairNarrowKernel<Dist::log_normal, DType::f32> {};
template <>
struct Kernel<Dist::log_normal, DType::f16> : PairNarrowKernel<Dist::log_normal, DType::f16> {};
template <>
struct Kernel<Dist::log_normal, DType::bf16> : PairNarrowKernel<Dist::log_normal, DType::bf16> {};
template <>
struct Kernel<Dist::log_normal, DType::f64> : PairF64Kernel<Dist::log_normal> {};

// ---- per-word transforms in binary64: exponential, cauchy --------------------------------------------
// The row's `core32` template of distributions.h on the 32-bit words of a step
// (zero-extended to 64-bit lanes), rounded to binary32 by vcvtpd2ps (the
// scalar static_cast<float>), then stored as f32 / f16 / bf16 (the scalar
// rows narrow that binary32 value with dist::to_f16 / to_bf16).
//   Core::eval<R>(UR<R> w, const Plan&) -> DR<R>: the binary64 value of each word.
constexpr int kWordRegs = 4;  // double registers per step: independent chains through log / sincos
template <class Core, DType T>
struct WordF32Kernel : VectorKernel {
  static constexpr int S = kWordRegs * N64;
  template <class O>
  static void step(const uint32_t* w, const Plan& pl, O* o) {
    constexpr int R = kWordRegs;
    static_assert(R % 2 == 0, "two double registers per vector of words");
    UR<R> m;
    for (int r = 0; r < R / 2; ++r) {
      const vu32 x = loadu<vu32>(w + r * N32);
      m.v[2 * r] = __builtin_convertvector(half<vu32h>(x, 0), vu64);
      m.v[2 * r + 1] = __builtin_convertvector(half<vu32h>(x, 1), vu64);
    }
    const DR<R> y = Core::template eval<R>(m, pl);
    for (int r = 0; r < R / 2; ++r) {
      const vf32 z =
          concat<vf32>(__builtin_convertvector(y.v[2 * r], vf32h), __builtin_convertvector(y.v[2 * r + 1], vf32h));
      store_f32_as<T>(o + r * N32, z);
    }
  }
};
// dist::exponential_f32: exponential_core32(w, rate) = -log(u) / rate.
struct ExponentialCore {
  template <int R>
  static XRNG_INLINE DR<R> eval(const UR<R>& w, const Plan& p) {
    return dist::exponential_core32<DR<R>, UR<R>>(w, DR<R>(p.exponential.rate));
  }
};
// dist::cauchy_f32: cauchy_core32(w, median, sigma) = median + sigma tan(pi (u - 1/2)).
struct CauchyCore {
  template <int R>
  static XRNG_INLINE DR<R> eval(const UR<R>& w, const Plan& p) {
    return dist::cauchy_core32<DR<R>, UR<R>>(w, DR<R>(p.cauchy.median), DR<R>(p.cauchy.sigma));
  }
};
template <>
struct Kernel<Dist::exponential, DType::f32> : WordF32Kernel<ExponentialCore, DType::f32> {};
template <>
struct Kernel<Dist::exponential, DType::f16> : WordF32Kernel<ExponentialCore, DType::f16> {};
template <>
struct Kernel<Dist::exponential, DType::bf16> : WordF32Kernel<ExponentialCore, DType::bf16> {};
template <>
struct Kernel<Dist::cauchy, DType::f32> : WordF32Kernel<CauchyCore, DType::f32> {};
template <>
struct Kernel<Dist::cauchy, DType::f16> : WordF32Kernel<CauchyCore, DType::f16> {};
template <>
struct Kernel<Dist::cauchy, DType::bf16> : WordF32Kernel<CauchyCore, DType::bf16> {};

// ---- bernoulli ---------------------------------------------------------------------------------------
// dist::bernoulli_u8: word < threshold, compared as unsigned integers.
template <>
struct Kernel<Dist::bernoulli, DType::u8> : VectorKernel {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan& pl, uint8_t* o) {
    const uint64_t th = pl.bernoulli.threshold;
    vu32 r;
    if (th > kLo32) {
      r = bcast<vu32>(1u);  // threshold 2^32: every word is below it
    } else {
      r = (vu32)(loadu<vu32>(w) < static_cast<uint32_t>(th)) & 1u;
    }
    storeu(o, narrow8(r));
  }
};

// ---- randint -----------------------------------------------------------------------------------------
// dist::randint_i32: low 32 bits of low + mulhi64(w0 | w1 << 32, range).
template <>
struct Kernel<Dist::randint, DType::i32> : VectorKernel {
  static constexpr int S = N64;
  static void step(const uint32_t* w, const Plan& pl, int32_t* o) {
    const vu64 v = mulhi64(loadu<vu64>(w), pl.randint.range) + static_cast<uint64_t>(pl.randint.low);
    storeu(o, trunc32(v));
  }
};
// dist::randint_i64: (hi * range + mulhi(lo, range)) >> 64 with the carry.
template <>
struct Kernel<Dist::randint, DType::i64> : VectorKernel {
  static constexpr int S = N64;
  static void step(const uint32_t* w, const Plan& pl, int64_t* o) {
    const uint64_t range = pl.randint.range;
    const vu64 x0 = loadu<vu64>(w), x1 = loadu<vu64>(w + 2 * N64);  // lo0 hi0 lo1 hi1 ...
    const vu64 lo = shuffle<kEven64>(x0, x1), hi = shuffle<kOdd64>(x0, x1);
    const vu64 t = mulhi64(lo, range);
    const vu64 hl = hi * range;
    const vu64 hh = mulhi64(hi, range);
    const vu64 carry = (vu64)((hl + t) < hl);  // all ones where the sum wraps
    storeu(o, hh - carry + static_cast<uint64_t>(pl.randint.low));
  }
};

// ---- stream v2: binary32 transforms -------------------------------------------------------------
// The cores of distributions_v2.h (math32.h underneath) instantiated with the
// binary32 lanes FR<R> / W32<R> of isa.h: the scalar operation sequence by
// construction, R registers of N32 lanes per step (independent chains).
// Registers per step: AVX2 has 16 vector registers, two chains would spill;
// AVX-512 and NEON have 32.
constexpr int kV2Regs = kBytes == 32 ? 1 : 2;
#if XRNG_SIMD_BYTES == 64
// AVX-512: the radius of the word a and the angle of the word b (the steps
// that sincos_turns_v2 and radius_v2 below describe, the very same
// operations) in one function, their two independent chains of operations
// interleaved statement by statement, each statement for all R registers:
// the out-of-order core finds twice the independent work within its window
// (written one after the other, the radius's 270 instructions came before
// any of the angle's). kRadius / kAngle pick what is wanted; radius_v2 and
// sincos_turns_v2 call it for one of the two (the other chain is dead code),
// so the probe's sweeps of all 2^32 words check these statements.
template <int R, bool kRadius, bool kAngle>
XRNG_INLINE void radius_angle_v2(const W32<R>& a, const W32<R>& b, FR<R>* r_out, FR<R>* c_out, FR<R>* s_out) {
  using F = FR<R>;
  const float ch = math32::kCH / 4.0f, cl = math32::kCL / 4.0f;
  // radius: 9.1's pair and log_unit_parts' exact steps (radius_v2's comment); angle: the reduced angle (4r).
  F sl, kf, f0, e0, xh, xl;
  for (int k = 0; k < R; ++k) {
    const vf32 hi = (vf32)_mm512_cvtepu32_ps((__m512i)(a.v[k] & 0xffffff00u));
    const vf32 lo = (vf32)((a.v[k] & 255u) | 0x4b000000u) - 0x1.fffffep22f;
    // 4b mod 2^32 by one shift (the add pipes are not this loop's bound:
    // one operation instead of two integer additions)
    const vi32 r4 = (vi32)(b.v[k] << 2);
    const vf32 s = hi + lo;
    const vf32 rn = __builtin_convertvector(r4, vf32);
    sl.v[k] = lo - (s - hi);
    const vf32 rr = __builtin_convertvector(sub_wrap(r4, cvtt_i32(rn)), vf32);
    // hx - (32 << 23), hx = bits(s) + 0x3f800000 - 0x3f3504f3 as in log_unit_parts
    const vu32 hx = (vu32)s + (0x3f800000u - 0x3f3504f3u - (32u << 23));
    const vf32 p = rn * ch;
    kf.v[k] = (vf32)_mm512_getexp_ps((__m512)hx);
    const vf32 e = vfms32(rn, bcast<vf32>(ch), p);
    const vf32 m = (vf32)((hx & 0x007fffffu) + 0x3f3504f3u);
    xh.v[k] = p;
    const vf32 scale = (vf32)(0x6f000000u - (hx & 0x7f800000u));  // 2^-(k+32): the bits (254 - ke) << 23
    xl.v[k] = e + (rn * cl + rr * ch);
    f0.v[k] = m - 1.0f;
    e0.v[k] = sl.v[k] * scale;
  }
  // log_unit_finish (math32.h) and sincos_pairs<false> without the floor of z, side by side.
  const F f = f0 + e0;
  const F z = xh * xh;
  const F e = (f0 - f) + e0;
  const F hz = F(0.5f) * z;
  F fh;
  for (int k = 0; k < R; ++k)
    fh.v[k] = (vf32)_mm512_roundscale_ps((__m512)f.v[k], (11 << 4) | _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  F ps = F(-0x1.995408p-13f);
  const F fl = f - fh;
  F p = F(-0x1.38ca4ap-4f);
  ps = ps * z + F(0x1.110778p-7f);
  p = p * f + F(0x1.055edep-3f);
  ps = ps * z + F(-0x1.555546p-3f);
  p = p * f + F(-0x1.0d823ep-3f);
  F pc = F(0x1.99e80cp-16f);
  pc = pc * z + F(-0x1.6c0c28p-10f);
  p = p * f + F(0x1.22d92cp-3f);
  pc = pc * z + F(0x1.55554ap-5f);
  p = p * f + F(-0x1.54728ap-3f);
  const F w = F(1.0f) - hz;
  p = p * f + F(0x1.99a01cp-3f);
  const F tsl = xl * w + (xh * z) * ps;
  p = p * f + F(-0x1.000226p-2f);
  const F tcl = ((F(1.0f) - w) - hz) + ((z * z) * pc - xh * xl);
  p = p * f + F(0x1.555554p-2f);
  if constexpr (kRadius) {
    const F t = (F(0.5f) * fh) * fh;
    const F v = f - t;
    const F dv = (f - v) - t;
    const F ff = f * f;
    const F rest = ff * (f * p) - (F(0.5f) * fl) * (f + fh);
    const F corr = e * ((F(1.0f) - f) + ff);
    const F h = kf * F(math32::kLn2Hi);
    const F s = h + v;
    const F ds = (h - s) + v;
    const F tail = ((ds + kf * F(math32::kLn2Lo)) + (dv + corr)) + rest;
    *r_out = sqrt_((s + tail) * F(-2.0f));
  }
  // The angle's quadrant after the radius's square root: its operations fill
  // the root's latency (0.872 against 0.886 ns per value with it before the
  // radius's tail, medians of nine alternated runs).
  if constexpr (kAngle) {
    for (int k = 0; k < R; ++k) {
      const vu32 m = b.v[k] + (1u << 29);
      const vf32 sn = xh.v[k] + tsl.v[k];
      const vf32 cs = w.v[k] + tcl.v[k];
      const vu32 cflip = (m + (1u << 30)) & 0x80000000u, sflip = m & 0x80000000u;
      c_out->v[k] = (vf32)((vu32)select_bit30(m, sn, cs) ^ cflip);  // q odd: swap
      s_out->v[k] = (vf32)((vu32)select_bit30(m, cs, sn) ^ sflip);
    }
  }
}
#endif

// cos and sin of 2 pi b 2^-32: math32::sincos_turns (SPEC.md 9.3, 9.4), the
// same values by fewer vector operations. Where the scalar form takes an exact
// detour, this takes a shorter exact one; every rounded operation is the
// scalar one, in the scalar order (math32::sincos_pairs itself):
//  * the reduced angle r = ((b + 2^29) mod 2^30) - 2^29 is the low 30 bits of
//    b sign-extended. On x86 the kernel works with 4r = 4b mod 2^32 (an
//    int32, by two integer additions) instead: RN(4r) = 4 RN(r) and
//    4r - RN(4r) = 4 (r - RN(r)) exactly, and the constants CH, CL are taken
//    divided by 4 (exact: powers of two, no underflow), so every product,
//    and so every rounding, is the scalar one.
//    RN(4r) may be 2^31, which vcvttps2dq turns into 0x80000000 = -2^31: the
//    integer difference 4r - (-2^31) wraps to 4r - 2^31, the right value
//    (NEON's conversion saturates instead: it keeps the unscaled r);
//  * the reduced angle's R = RN(r) is vcvtdq2ps of r (A + B = r exactly,
//    rounded once: the same value), and rr = r - R (exact, |rr| <= 16, 64 for 4r) is the
//    integer difference r - int(R) converted (exact both ways), where the
//    scalar form splits r into two halves and takes a Fast2Sum;
//  * Dekker's exact product error is one fused multiply-subtract (below);
//  * sincos_pairs' floor of z at 2^-60 (there for the Cauchy's tiny angles)
//    is left out: here z = xh^2 is 0 or at least CH^2 > 2^-59, so the floor
//    changes only z = 0 (b a multiple of 2^30), where it makes cl about
//    2^-124.6 instead of 0, and cs = w + cl = 1 + cl is 1 either way (cl
//    itself is not returned);
//  * the quadrant's swap and sign flips read the bits of m = b + 2^29
//    directly: q odd is bit 30, sin's flip ((q & 2) << 30) is bit 31, cos's
//    (((q + 1) & 2) << 30) is bit 31 of m + 2^30, and the swap is a select.
// AVX-512: these steps (x86's) are the angle's statements of radius_angle_v2
// above. tests/simd (test_simd_exhaustive, probe v2_sincos) compares it with
// the scalar reference over all 2^32 words.
template <int R>
XRNG_INLINE void sincos_turns_v2(const W32<R>& b, FR<R>* c_out, FR<R>* s_out) {
#if XRNG_SIMD_BYTES == 64
  radius_angle_v2<R, false, true>(b, b, nullptr, c_out, s_out);
#else
  // kScale: the factor of the reduced angle's integer (4 on x86, 1 on NEON).
  constexpr float kScale = kBytes == 16 ? 1.0f : 4.0f;
  const float ch = math32::kCH / kScale, cl = math32::kCL / kScale;
  FR<R> xh, xl;
  W32<R> m2;  // AVX2: 2m = 2b + 2^30 mod 2^32, whose sign bit is bit 30 of m (q odd)
#if XRNG_SIMD_BYTES == 32
  // The same steps as below (x86), each for all R registers before the next
  // (the registers' chains side by side in the instruction stream).
  {
    W32<R> r;
    FR<R> rn, rr;
    for (int k = 0; k < R; ++k) {
      const vu32 b2 = b.v[k] + b.v[k];
      r.v[k] = b2 + b2;
      m2.v[k] = b2 + (1u << 30);
    }
    for (int k = 0; k < R; ++k) rn.v[k] = __builtin_convertvector((vi32)r.v[k], vf32);
    for (int k = 0; k < R; ++k) rr.v[k] = __builtin_convertvector(sub_wrap((vi32)r.v[k], cvtt_i32(rn.v[k])), vf32);
    for (int k = 0; k < R; ++k) xh.v[k] = rn.v[k] * ch;
    for (int k = 0; k < R; ++k) xl.v[k] = vfms32(rn.v[k], bcast<vf32>(ch), xh.v[k]) + (rn.v[k] * cl + rr.v[k] * ch);
  }
#else
  for (int k = 0; k < R; ++k) {
    vi32 r;  // kScale times the reduced angle
    if constexpr (kBytes == 16) {
      r = (vi32)((b.v[k] + (1u << 29)) & 0x3fffffffu) - (1 << 29);
    } else {
      // 4b mod 2^32 by two integer additions (any pipe; on Zen 4 a shift
      // takes one of the two FP add pipes, the kernel's busiest).
      const vu32 b2 = b.v[k] + b.v[k];
      r = (vi32)(b2 + b2);
    }
    const vf32 rn = __builtin_convertvector(r, vf32);
    const vf32 rr = __builtin_convertvector(sub_wrap(r, cvtt_i32(rn)), vf32);
    // math32::reduced_angle<6>(r, 1) from here on. Its e, Dekker's exact
    // product error R * CH - xh (Veltkamp split, four products, four sums),
    // is that exact value; a fused multiply-subtract rounds it once, which
    // leaves it as it is: the same e, in one operation (equal for every r in
    // [-2^29, 2^29), checked one by one; and the probe's sweep of all 2^32
    // words). The one FMA of stream v2's vector code (test_simd_no_fused_v2
    // knows it).
    const vf32 p = rn * ch;
    const vf32 e = vfms32(rn, bcast<vf32>(ch), p);
    xh.v[k] = p;
    xl.v[k] = e + (rn * cl + rr * ch);
  }
#endif
  // math32::sincos_pairs<false>(xh, xl) without the floor of z (above).
  using F = FR<R>;
  const F z = xh * xh;
  const F hz = F(0.5f) * z;
  F ps, pc;
  math32::sincos_polys<F>(z, &ps, &pc);
  const F w = F(1.0f) - hz;
  const F tsl = xl * w + (xh * z) * ps;
  const F tcl = ((F(1.0f) - w) - hz) + ((z * z) * pc - xh * xl);
  for (int k = 0; k < R; ++k) {
    const vu32 m = b.v[k] + (1u << 29);
    const vf32 sn = xh.v[k] + tsl.v[k];
    const vf32 cs = w.v[k] + tcl.v[k];
    const vu32 cflip = (m + (1u << 30)) & 0x80000000u, sflip = m & 0x80000000u;
#if XRNG_SIMD_BYTES == 32
    // vblendvps reads the sign bit: that of 2m (an integer addition above)
    // instead of m << 1 (a shift, on Zen 4 one of the two FP add pipes).
    c_out->v[k] = (vf32)((vu32)select_sign(m2.v[k], sn, cs) ^ cflip);  // q odd: swap
    s_out->v[k] = (vf32)((vu32)select_sign(m2.v[k], cs, sn) ^ sflip);
#else
    (void)m2;
    c_out->v[k] = (vf32)((vu32)select_bit30(m, sn, cs) ^ cflip);  // q odd: swap
    s_out->v[k] = (vf32)((vu32)select_bit30(m, cs, sn) ^ sflip);
#endif
  }
#endif
}

// The radius sqrt(-2 ln u) of the word a: math32::radius (SPEC.md 9.1, 9.2),
// the same values. On AVX-512 (the statements of radius_angle_v2 above, side
// by side with the angle's), log_unit_parts' exact integer and exponent
// steps take shorter exact forms, each giving the very value the scalar step
// gives (every rounded operation is the scalar one, in its order). They are
// chosen to spare the FP add / convert / shift pipes (Zen 4 runs 512-bit
// adds, subtractions, conversions and shifts on the same two pipes, the
// kernel's busiest; integer logic and additions run on any of the four):
//  * hi = (a >> 8) * 256 is a & ~255 converted as an unsigned integer
//    (vcvtudq2ps: at most 24 significant bits, exact);
//  * lo = (a & 255) + 1/2 is the binary32 2^23 + (a & 255) (its bits
//    0x4b000000 | (a & 255), one vpternlogd) minus 2^23 - 1/2: an exact
//    difference (both operands and the result are representable);
//  * with hx = bits(s) + 0x3f800000 - 0x3f3504f3 - (32 << 23) (the scalar
//    hx less 32 in its exponent field, which is then ke - 32, between 94 and
//    127 for s in [1/2, 2^32]: a positive normal binary32), k = ke - 159 is
//    the exponent of that binary32 (vgetexpps, exact), m's bits are
//    (hx & 0x7fffff) + 0x3f3504f3 as before (the mantissa field is the
//    scalar one), and 2^(-32-k), the scalar (254 - ke) << 23, is the bits
//    0x6f000000 - (hx & 0x7f800000) (= (222 - (ke - 32)) << 23): integer
//    operations only;
//  * fh = RN(f + 1.5 2^12) - 1.5 2^12 is f rounded to a multiple of 2^-11,
//    ties to even (|f| < 1/2: the sum's ulp is 2^-11, and 1.5 2^12 is an even
//    multiple of it): vrndscaleps with 11 fraction bits, nearest even. Its
//    sign differs only where fh is zero and f < 0 (-0 for +0), and fh then
//    enters f - fh, f + fh (f itself, f != 0) and fh * fh / 2 (+0) only.
// On AVX2 (no unsigned conversion, vgetexpps or vrndscaleps) the same kind of
// shorter exact steps, chosen to spare the FP add pipes (Zen 4 runs
// additions, subtractions, conversions, rounding and every shift there,
// multiplications and vblendvps on the other two, integer logic and
// additions anywhere; timed with rdtsc, instruction pairs in 12 independent
// chains):
//  * the pair of 9.1 scaled by 2^-8 (exact: a power of two, no underflow, so
//    s 2^-8 and sl 2^-8 come from the same rounding): hi 2^-8 is a >> 8
//    converted (no multiplication by 256), lo 2^-8 is the binary32
//    2^15 + (a & 255) 2^-8 (bits 0x47000000 | (a & 255)) minus 2^15 - 2^-9,
//    an exact difference (no conversion);
//  * the scalar hx is bits(s 2^-8) + (8 << 23); from ex = hx & 0x7f800000
//    (ke << 23), kf = ke - 159 is (ex - (159 << 23)) converted (at most 6
//    significant bits) times 2^-23, and 2^(-32-k) 2^8 (for sl 2^-8) the bits
//    (262 << 23) - ex: no shift;
//  * fh is vroundps (nearest even) of f 2^11, times 2^-11 (both products
//    exact; the same value as the shifter, -0 aside: above).
// Other ISAs: math32::radius itself. tests/simd (test_simd_exhaustive, probe
// v2_radius) compares it with the scalar reference over all 2^32 words.
template <int R>
XRNG_INLINE FR<R> radius_v2(const W32<R>& a) {
#if XRNG_SIMD_BYTES == 64
  FR<R> r;
  radius_angle_v2<R, true, false>(a, a, &r, nullptr, nullptr);
  return r;
#elif XRNG_SIMD_BYTES == 32
  // Each step for all R registers before the next (the registers' chains
  // side by side in the instruction stream).
  using F = FR<R>;
  F hi, lo, s, sl, f0, e0, kf;
  W32<R> hx, ex;
  for (int k = 0; k < R; ++k) hi.v[k] = __builtin_convertvector((vi32)(a.v[k] >> 8), vf32);  // hi 2^-8
  for (int k = 0; k < R; ++k) lo.v[k] = (vf32)((a.v[k] & 255u) | 0x47000000u) - (0x1p15f - 0x1p-9f);  // lo 2^-8
  for (int k = 0; k < R; ++k) s.v[k] = hi.v[k] + lo.v[k];  // s 2^-8
  for (int k = 0; k < R; ++k) hx.v[k] = (vu32)s.v[k] + (0x3f800000u - 0x3f3504f3u + (8u << 23));  // the scalar hx
  for (int k = 0; k < R; ++k) sl.v[k] = lo.v[k] - (s.v[k] - hi.v[k]);  // sl 2^-8
  for (int k = 0; k < R; ++k) ex.v[k] = hx.v[k] & 0x7f800000u;         // ke << 23
  for (int k = 0; k < R; ++k) f0.v[k] = (vf32)((hx.v[k] & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
  for (int k = 0; k < R; ++k) e0.v[k] = sl.v[k] * (vf32)((262u << 23) - ex.v[k]);  // sl 2^(-32-k)
  for (int k = 0; k < R; ++k) kf.v[k] = __builtin_convertvector((vi32)(ex.v[k] - (159u << 23)), vf32) * 0x1p-23f;
  const F f = f0 + e0;
  const F e = (f0 - f) + e0;
  F fh;
  for (int k = 0; k < R; ++k)
    fh.v[k] = (vf32)_mm256_round_ps((__m256)(f.v[k] * 0x1p11f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC) *
              0x1p-11f;
  F ls, tail;
  math32::log_unit_finish<F>(f, e, fh, kf, &ls, &tail);
  return sqrt_((ls + tail) * F(-2.0f));
#else
  return math32::radius<FR<R>, W32<R>>(a);
#endif
}
// The normal pairs of words (a, b): dist::v2::normal_pair_core with the
// radius of radius_v2 and the angle of sincos_turns_v2. kUnit (mean 0, std
// 1): 0 + 1 * (r c) is (r c) + 0 bit for bit (1 * v = v exactly, and +0 + v = v + 0 turns -0 into +0 and
// keeps everything else): the same values with one operation per element
// instead of two.
template <bool kUnit, int R>
XRNG_INLINE void normal_v2_pairs(const W32<R>& a, const W32<R>& b, const NormalParams& p, FR<R>* z0, FR<R>* z1) {
#if XRNG_SIMD_BYTES == 64
  FR<R> r, c, sn;
  radius_angle_v2<R, true, true>(a, b, &r, &c, &sn);
#else
  const FR<R> r = radius_v2<R>(a);
  FR<R> c, sn;
  sincos_turns_v2<R>(b, &c, &sn);
#endif
  if constexpr (kUnit) {
    *z0 = r * c + FR<R>(0.0f);
    *z1 = r * sn + FR<R>(0.0f);
  } else {
    const FR<R> mean(p.mean32), sd(p.std32);
    *z0 = mean + sd * (r * c);
    *z1 = mean + sd * (r * sn);
  }
}
XRNG_INLINE bool normal_is_unit(const NormalParams& p) {
  return p.mean32 == 0.0f && p.std32 == 1.0f && (__builtin_bit_cast(uint32_t, p.mean32) >> 31) == 0;
}

// Pairs (normal, log_normal): words a0 b0 a1 b1 ... of N32 pairs per register;
// z0 z1 interleaved on output, stored as f32 / f16 / bf16.
template <Dist DI, DType T>
struct PairV2Kernel : VectorKernel {
  static constexpr int S = kV2Regs * N32;
  static constexpr int S1 = N32;  // the groups of a one-register step, step<1> (run_steps' last, short step)
  template <int R = kV2Regs, class O>
  static void step(const uint32_t* w, const Plan& pl, O* o) {
    W32<R> a, b;
    for (int r = 0; r < R; ++r) {
      const vu32 x0 = loadu<vu32>(w + 2 * N32 * r), x1 = loadu<vu32>(w + 2 * N32 * r + N32);
      a.v[r] = shuffle<kEven32>(x0, x1);
      b.v[r] = shuffle<kOdd32>(x0, x1);
    }
    FR<R> z0, z1;
    if constexpr (DI == Dist::log_normal) {
      dist::v2::log_normal_core<FR<R>, W32<R>>(a, b, FR<R>(pl.normal.mean32), FR<R>(pl.normal.std32), &z0, &z1);
    } else if (normal_is_unit(pl.normal)) {
      normal_v2_pairs<true, R>(a, b, pl.normal, &z0, &z1);
    } else {
      normal_v2_pairs<false, R>(a, b, pl.normal, &z0, &z1);
    }
    for (int r = 0; r < R; ++r) {
      store_f32_as<T>(o + 2 * N32 * r, shuffle<kZipLo32>(z0.v[r], z1.v[r]));
      store_f32_as<T>(o + 2 * N32 * r + N32, shuffle<kZipHi32>(z0.v[r], z1.v[r]));
    }
  }
};
// Per-word transforms (exponential, cauchy): Core::eval<R>(W32<R>, const Plan&) -> FR<R>.
template <class Core, DType T>
struct WordV2Kernel : VectorKernel {
  static constexpr int S = kV2Regs * N32;
  static constexpr int S1 = N32;  // (as PairV2Kernel's)
  template <int R = kV2Regs, class O>
  static void step(const uint32_t* w, const Plan& pl, O* o) {
    W32<R> x;
    for (int r = 0; r < R; ++r) x.v[r] = loadu<vu32>(w + N32 * r);
    const FR<R> y = Core::template eval<R>(x, pl);
    for (int r = 0; r < R; ++r) store_f32_as<T>(o + N32 * r, y.v[r]);
  }
};
struct ExponentialV2Core {  // dist::v2::exponential_f32
  template <int R>
  static XRNG_INLINE FR<R> eval(const W32<R>& w, const Plan& p) {
    return dist::v2::exponential_core<FR<R>, W32<R>>(w, FR<R>(p.exponential.inv_rate32));
  }
};
struct CauchyV2Core {  // dist::v2::cauchy_f32
  template <int R>
  static XRNG_INLINE FR<R> eval(const W32<R>& w, const Plan& p) {
    return dist::v2::cauchy_core<FR<R>, W32<R>>(w, FR<R>(p.cauchy.median32), FR<R>(p.cauchy.sigma32));
  }
};
#define XRNG_V2_KERNEL(DIST, DTYPE, ...) \
  template <>                           \
  struct Kernel<Dist::DIST, DType::DTYPE, 2> : __VA_ARGS__ {};
XRNG_V2_KERNEL(normal, f32, PairV2Kernel<Dist::normal, DType::f32>)
XRNG_V2_KERNEL(normal, f16, PairV2Kernel<Dist::normal, DType::f16>)
XRNG_V2_KERNEL(normal, bf16, PairV2Kernel<Dist::normal, DType::bf16>)
XRNG_V2_KERNEL(log_normal, f32, PairV2Kernel<Dist::log_normal, DType::f32>)
XRNG_V2_KERNEL(log_normal, f16, PairV2Kernel<Dist::log_normal, DType::f16>)
XRNG_V2_KERNEL(log_normal, bf16, PairV2Kernel<Dist::log_normal, DType::bf16>)
XRNG_V2_KERNEL(exponential, f32, WordV2Kernel<ExponentialV2Core, DType::f32>)
XRNG_V2_KERNEL(exponential, f16, WordV2Kernel<ExponentialV2Core, DType::f16>)
XRNG_V2_KERNEL(exponential, bf16, WordV2Kernel<ExponentialV2Core, DType::bf16>)
XRNG_V2_KERNEL(cauchy, f32, WordV2Kernel<CauchyV2Core, DType::f32>)
XRNG_V2_KERNEL(cauchy, f16, WordV2Kernel<CauchyV2Core, DType::f16>)
XRNG_V2_KERNEL(cauchy, bf16, WordV2Kernel<CauchyV2Core, DType::bf16>)
#undef XRNG_V2_KERNEL

// ---- a run of groups ---------------------------------------------------------------------------------
// n groups of G elements from K words each, from words w (n*K words, nothing
// read beyond) into o (n*G elements), by the vector kernel Kn.
template <class Kn, uint64_t K, uint64_t G, class O>
__attribute__((flatten)) void run_steps(const uint32_t* w, uint64_t n, const Plan& p, O* o) {
  static_assert(Kn::kVector, "rows without a vector kernel are evaluated by the dispatcher (Kernel's primary template)");
  constexpr uint64_t S = Kn::S;
  uint64_t i = 0;
  for (; i + S <= n; i += S) Kn::step(w + i * K, p, o + i * G);
  if (i < n) {  // a partial step on a padded copy
    if constexpr (requires { Kn::S1; }) {  // (the same lanes' values by one register, where that holds them)
      if constexpr (Kn::S1 < S) {
        if (n - i <= Kn::S1) {
          alignas(64) uint32_t tw[Kn::S1 * K] = {};
          alignas(64) O to[Kn::S1 * G];
          std::memcpy(tw, w + i * K, (n - i) * K * sizeof(uint32_t));
          Kn::template step<1>(tw, p, to);
          std::memcpy(o + i * G, to, (n - i) * G * sizeof(to[0]));
          return;
        }
      }
    }
    alignas(64) uint32_t tw[S * K] = {};
    alignas(64) O to[S * G];
    std::memcpy(tw, w + i * K, (n - i) * K * sizeof(uint32_t));
    Kn::step(tw, p, to);
    std::memcpy(o + i * G, to, (n - i) * G * sizeof(to[0]));
  }
}
// The row (DI, T, V) with a vector kernel.
template <Dist DI, DType T, int V = 1>
XRNG_INLINE void run_groups(const uint32_t* w, uint64_t n, const Plan& p, out_of<DI, T>* o) {
  using Shape = RowShape<DI, T, V>;
  run_steps<Kernel<DI, T, V>, Shape::kWords, Shape::kGroup>(w, n, p, o);
}

}  // namespace
}  // namespace xrng::detail
