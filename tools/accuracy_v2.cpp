// accuracy_v2: the measured accuracy of stream v2's binary32 transforms
// (rng/detail/math32.h, SPEC.md "Stream v2"), and the proof that none of
// their intermediates is subnormal.
//
//   accuracy_v2 [--stride S] [--pairs N] [--threads T] [--subnormal] [--check] [--before]
//               [--only radius,neg_log,cos,sin,tan,exp,log_normal]
//
// Per-word transforms, every S-th vector of 8 inputs (S = 1: all 2^32 words;
// default 1; with S > 1 also the 2^16 smallest and largest inputs):
//   radius   sqrt(-2 ln u)   of word a   (u = (a + 1/2) 2^-32, exact)
//   neg_log  -ln u           of word a   (the exponential)
//   cos, sin of 2 pi b 2^-32 of word b
//   tan      tan(pi (u - 1/2)) of word a, u = (a + 1/2) 2^-32 (the Cauchy; its angle is exact)
//   exp      e^x of every binary32 x in [-0x1.5d5p6, 88.72] (and the clamps outside)
// each against a binary64 evaluation of the exact function of the word by
// stream v1's own transcendentals (rng/detail/math.h: u = (a + 1/2) 2^-32 and
// the angle are exact in binary64, the functions within about 2^-52
// relative, so a measured error in binary32 ulps is uncertain by about
// 2^-28 ulp). Never from a rounded u: the error counts everything between
// the word and the binary32 value. The error is |v2 value - reference| in
// units of the binary32 ulp of the reference.
// With --subnormal, every floating-point operation of the v2 transforms runs
// on a checked lane type that records any subnormal result: the sweep proves
// the "no subnormal intermediate" rule over all inputs (about 4x slower, so
// not the CI run).
//
// Final values: N pairs (default 10^9) from the stream of key 0 (words 2i,
// 2i + 1 of pair i): dist::v2::normal_f32 (mean 0, std 1) against
// sqrt(-2 ln u) cos / sin (2 pi b 2^-32) in binary64, log_normal_f32 (mean 0,
// std 1) against e to that binary64 value, exponential_f32 (rate 1) of each
// of the two words against -ln((w + 1/2) 2^-32): 2N values of each, all
// against the exact function of the words.
//
// --before: the same measurements of the first definition of stream v2 (u
// rounded to binary32 before its logarithm; SPEC.md 9, "Revision"), kept
// below as legacy:: to show what the revision changed.
//
// The log_normal sweep: every S-th word a paired with b(a) (below, a
// bijection), the first value of math32::log_normal_pair (mean 0, std 1)
// against e^(sqrt(-2 ln u(a)) cos(2 pi b 2^-32)) in binary64: all 2^32 words
// in both roles, and with --subnormal every intermediate of the pair's path.
//
// --check: exit 1 unless every per-word transform is within 1 ulp, the final
// normal, exponential and log_normal values (and the log_normal sweep) within
// 3 ulp, and no subnormal was seen. Exit 77 on an x86 CPU without AVX2 (the
// program is vectorised with host/simd/isa.h at AVX2 width on x86-64, at NEON
// width on AArch64).
#if defined(__aarch64__) || defined(_M_ARM64)
#define XRNG_SIMD_BYTES 16
#else
#define XRNG_SIMD_BYTES 32
#endif
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "host/simd/isa.h"
#include "rng/detail/distributions_v2.h"
#include "rng/stream.h"

namespace acc {
using namespace xrng;
using xrng::detail::D;
using xrng::detail::U;
using xrng::detail::vf32;
using xrng::detail::vf64;
using xrng::detail::vi32;
using xrng::detail::vu32;
using xrng::detail::vu64;
using xrng::detail::N32;
using xrng::detail::N64;

// ---- checked binary32 lanes ----------------------------------------------------------------
// CF / CI: one vector register (AVX2 or NEON) of binary32 / uint32 lanes with math32.h's lane
// contract. Each value also carries `s`, the lanes in which it or any value it
// was computed from was subnormal (nonzero and below 2^-126 in magnitude):
// every operation ors its operands' masks and tests its own result, so the
// result of a transform carries the proof for its whole computation (every
// intermediate of these transforms feeds the result).
template <bool kCheck>
struct CF {
  vf32 v;
  vu32 s;
  CF() = default;
  explicit CF(float x) : v(vf32{} + x), s(vu32{}) {}
  static CF of(vf32 x, vu32 in) {
    CF c;
    c.v = x;
    if constexpr (kCheck) {
      const vf32 ax = (vf32)((vu32)x & 0x7fffffffu);
      c.s = in | (vu32)((ax < 0x1p-126f) & (ax > 0.0f));
    } else {
      c.s = vu32{};
    }
    return c;
  }
};
template <bool kCheck>
struct CI {
  vu32 v;
  vu32 s;
  CI() = default;
  explicit CI(uint32_t x) : v(vu32{} + x), s(vu32{}) {}
  static CI of(vu32 x, vu32 in) {
    CI c;
    c.v = x;
    c.s = in;
    return c;
  }
};
#define XRNG_ACC_OPS(K)                                                                          \
  template <bool K> inline CF<K> operator+(CF<K> a, CF<K> b) { return CF<K>::of(a.v + b.v, a.s | b.s); } \
  template <bool K> inline CF<K> operator-(CF<K> a, CF<K> b) { return CF<K>::of(a.v - b.v, a.s | b.s); } \
  template <bool K> inline CF<K> operator*(CF<K> a, CF<K> b) { return CF<K>::of(a.v * b.v, a.s | b.s); }
XRNG_ACC_OPS(K)
#undef XRNG_ACC_OPS
template <bool K> inline CI<K> operator+(CI<K> a, CI<K> b) { return CI<K>::of(a.v + b.v, a.s | b.s); }
template <bool K> inline CI<K> operator-(CI<K> a, CI<K> b) { return CI<K>::of(a.v - b.v, a.s | b.s); }
template <bool K> inline CI<K> operator*(CI<K> a, CI<K> b) { return CI<K>::of(a.v * b.v, a.s | b.s); }
template <bool K> inline CI<K> operator&(CI<K> a, CI<K> b) { return CI<K>::of(a.v & b.v, a.s | b.s); }
template <bool K> inline CI<K> operator|(CI<K> a, CI<K> b) { return CI<K>::of(a.v | b.v, a.s | b.s); }
template <bool K> inline CI<K> operator^(CI<K> a, CI<K> b) { return CI<K>::of(a.v ^ b.v, a.s | b.s); }
template <bool K> inline CI<K> operator<<(CI<K> a, int k) { return CI<K>::of(a.v << k, a.s); }
template <bool K> inline CI<K> operator>>(CI<K> a, int k) { return CI<K>::of(a.v >> k, a.s); }
template <bool K> inline CF<K> sqrt_(CF<K> a) { return CF<K>::of(xrng::detail::vsqrt32(a.v), a.s); }
template <bool K> inline CF<K> min_(CF<K> a, CF<K> b) { return CF<K>::of(b.v < a.v ? b.v : a.v, a.s | b.s); }
template <bool K> inline CF<K> max_(CF<K> a, CF<K> b) { return CF<K>::of(a.v < b.v ? b.v : a.v, a.s | b.s); }
template <bool K> inline CI<K> lt_mask(CF<K> a, CF<K> b) { return CI<K>::of((vu32)(a.v < b.v), a.s | b.s); }
template <bool K> inline CI<K> as_u32(CF<K> a) { return CI<K>::of((vu32)a.v, a.s); }
template <bool K> inline CF<K> as_f32(CI<K> a) { return CF<K>::of((vf32)a.v, a.s); }
template <bool K> inline CI<K> sra(CI<K> a, int k) { return CI<K>::of((vu32)((vi32)a.v >> k), a.s); }
template <bool K> inline CF<K> cvt_i32(CI<K> a) { return CF<K>::of(__builtin_convertvector((vi32)a.v, vf32), a.s); }

// ---- the first definition of stream v2's ln u (before the revision) --------------------------
// u = (a + 1/2) 2^-32 rounded to binary32, then ln u: kept only to measure
// what the revision changed (--before); the stream no longer uses it.
namespace legacy {
using math::as_f32;
using math::as_u32;
using math32::cvt_i32;
using math32::min_;
using math32::sqrt_;
template <class F, class I>
F unit_open(I a) {
  const F hi = cvt_i32(a >> 8) * F(256.0f);
  const F lo = cvt_i32(a & I(255u)) + F(0.5f);
  return min_(hi + lo, F(0x1.fffffep31f)) * F(0x1p-32f);
}
template <class F, class I>
F log_unit(F u) {
  const I hx = as_u32(u) + I(0x3f800000u - 0x3f3504f3u);
  const F kf = cvt_i32((hx >> 23) - I(127u));
  const I mb = (hx & I(0x007fffffu)) + I(0x3f3504f3u);
  const F m = as_f32(mb);
  const F mh = as_f32(mb & I(0xfffff000u));
  const F f = m - F(1.0f);
  const F fh = mh - F(1.0f);
  const F fl = m - mh;
  F p = F(-0x1.38ca4ap-4f);
  p = p * f + F(0x1.055edep-3f);
  p = p * f + F(-0x1.0d823ep-3f);
  p = p * f + F(0x1.22d92cp-3f);
  p = p * f + F(-0x1.54728ap-3f);
  p = p * f + F(0x1.99a01cp-3f);
  p = p * f + F(-0x1.000226p-2f);
  p = p * f + F(0x1.555554p-2f);
  const F v = f - (F(0.5f) * fh) * fh;
  const F rest = (f * f) * (f * p) - (F(0.5f) * fl) * (f + fh);
  const F hi = kf * F(math32::kLn2Hi);
  const F s = hi + v;
  const F ds = (hi - s) + v;
  return s + ((ds + kf * F(math32::kLn2Lo)) + rest);
}
template <class F, class I>
F radius(I a) {
  return sqrt_(log_unit<F, I>(unit_open<F, I>(a)) * F(-2.0f));
}
template <class F, class I>
F neg_log(I a) {
  return F(0.0f) - log_unit<F, I>(unit_open<F, I>(a));
}
}  // namespace legacy
bool g_before = false;  // --before: measure legacy:: instead of math32::

// ---- binary64 references (v1's transcendentals, lanes of N64) -----------------------------------
D dof(vf64 x) { return xrng::detail::dof(x); }
U uof(vu64 x) { return xrng::detail::uof(x); }
// ulp in binary32 of the (normal-range) binary64 values r: 2^(e - 23).
vf64 ulp32(vf64 r) {
  const vu64 e = ((vu64)r >> 52) & 0x7ffu;
  return (vf64)((e - 23u) << 52);
}
vf64 absd(vf64 x) { return (vf64)((vu64)x & 0x7fffffffffffffffull); }

// ---- a sweep --------------------------------------------------------------------------------------
struct Result {
  std::string name;
  double max_ulp = 0;
  uint32_t arg = 0;        // input of the maximum
  uint64_t count = 0;      // inputs measured
  uint64_t subnormal = 0;  // inputs with a subnormal intermediate
  uint64_t bad = 0;        // inputs outside the measured domain that broke their rule (exp clamps)
};

// Kind of transform of a sweep over 32-bit inputs.
enum class T { radius, neg_log, cos, sin, tan, exp, log_normal };
const char* name_of(T t) {
  switch (t) {
    case T::radius: return "radius sqrt(-2 ln u)";
    case T::neg_log: return "neg_log -ln u";
    case T::cos: return "cos 2 pi b 2^-32";
    case T::sin: return "sin 2 pi b 2^-32";
    case T::tan: return "tan pi (u - 1/2)";
    case T::exp: return "exp x";
    case T::log_normal: return "log_normal e^(r cos)";
  }
  return "?";
}
constexpr float kExpHi = 88.72283f;  // below ln(FLT_MAX) = 88.7228391...: e^x finite

// The log_normal sweep pairs word a with b(a) = a * 0x9e3779b9 + 0x7f4a7c15
// (a bijection: every word is some pair's a and another's b).
template <class CI>
CI lognormal_b(CI a) {
  return a * CI(0x9e3779b9u) + CI(0x7f4a7c15u);
}

// v2 values y and references ref (binary64, two halves of N64) of N32 inputs x;
// mask: lanes measured (exp: only the domain); bad: lanes that broke a clamp rule.
template <bool K>
void eval(T t, vu32 x, vf32* y, vu32* sub, vf64 ref[2], vu32* mask, uint64_t* bad) {
  using CF = acc::CF<K>;
  using CI = acc::CI<K>;
  CI xi = CI::of(x, vu32{});
  CF yc(0.0f);
  *mask = vu32{} + 0xffffffffu;
  switch (t) {
    case T::radius: yc = g_before ? legacy::radius<CF, CI>(xi) : math32::radius<CF, CI>(xi); break;
    case T::neg_log: yc = g_before ? legacy::neg_log<CF, CI>(xi) : math32::neg_log<CF, CI>(xi); break;
    case T::cos:
    case T::sin: {
      CF c, s;
      math32::sincos_turns<CF, CI>(xi, &c, &s);
      yc = t == T::cos ? c : s;
      break;
    }
    case T::tan: yc = math32::tan_centered<CF, CI>(xi); break;
    case T::exp: yc = math32::exp_<CF, CI>(as_f32(xi)); break;
    case T::log_normal: {  // words (a, b(a)), mean 0, std 1: the first value of the pair
      CF y1;
      if (g_before) {
        CF c, s;
        math32::sincos_turns<CF, CI>(lognormal_b(xi), &c, &s);
        yc = math32::exp_<CF, CI>(legacy::radius<CF, CI>(xi) * c + CF(0.0f));
      } else {
        math32::log_normal_pair<CF, CI>(xi, lognormal_b(xi), CF(0.0f), CF(1.0f), &yc, &y1);
      }
      break;
    }
  }
  *y = yc.v;
  *sub = yc.s;
  for (int h = 0; h < 2; ++h) {
    const vu64 w = __builtin_convertvector(xrng::detail::half<xrng::detail::vu32h>(x, h), vu64);
    switch (t) {
      case T::radius:  // from the word: u = (w + 1/2) 2^-32 exact in binary64
        ref[h] = math::box_muller_radius<32, D, U>(uof(w)).v[0];
        break;
      case T::neg_log:
        ref[h] = math::neg_log_unit<32, D, U>(uof(w)).v[0];
        break;
      case T::cos:
      case T::sin: {
        D c, s;
        math::sincos_turns<32, D, U>(uof(w), &c, &s);
        ref[h] = t == T::cos ? c.v[0] : s.v[0];
        break;
      }
      case T::tan: ref[h] = math::tan_centered<32, D, U>(uof(w)).v[0]; break;
      case T::log_normal: {
        const vu64 wb = __builtin_convertvector(xrng::detail::half<xrng::detail::vu32h>(lognormal_b(xi).v, h), vu64);
        D c, s;
        math::sincos_turns<32, D, U>(uof(wb), &c, &s);
        ref[h] = math::exp_<D, U>(math::box_muller_radius<32, D, U>(uof(w)) * c).v[0];
        break;
      }
      case T::exp: {
        const vf64 xd = __builtin_convertvector(xrng::detail::half<xrng::detail::vf32h>((vf32)x, h), vf64);
        ref[h] = math::exp_<D, U>(dof(xd < -1000.0 ? vf64{} - 1000.0 : (xd > 1000.0 ? vf64{} + 1000.0 : xd))).v[0];
        break;
      }
    }
  }
  if (t == T::exp) {
    const vf32 xf = (vf32)x;
    const vi32 nan = (vi32)((x & 0x7fffffffu) > 0x7f800000u);
    const vf32 ax = (vf32)(x & 0x7fffffffu);
    const vi32 sub_in = (ax < 0x1p-126f) & (ax > 0.0f);  // subnormal inputs: not in the domain (the affine step never makes one)
    const vi32 in = (xf >= math32::kExpLo) & (xf <= kExpHi) & ~nan & ~sub_in;
    *mask = (vu32)in;
    // Outside the domain: x < kExpLo gives +0, x > kExpHi gives inf (x in
    // (88.72283, 88.7228391] rounds to FLT_MAX or inf: either is accepted).
    const vi32 lo_bad = (xf < math32::kExpLo) & ~nan & ((vu32)*y != 0u);
    const vi32 hi_bad = (xf > 88.7229f) & ~nan & ((vu32)*y != 0x7f800000u);
    for (int i = 0; i < N32; ++i) *bad += (lo_bad[i] != 0) + (hi_bad[i] != 0);
  }
}

template <bool K>
Result sweep(T t, uint64_t stride, int threads) {
  Result res;
  res.name = name_of(t);
  std::mutex mu;
  std::atomic<uint64_t> count{0}, sub{0}, bad{0};
  constexpr uint64_t kBlock = N32;  // inputs per vector: a block of N32 consecutive inputs every stride blocks
  const uint64_t blocks = (uint64_t{1} << 32) / kBlock;
  constexpr uint64_t kEdge = (uint64_t{1} << 16) / kBlock;  // blocks at each end always measured
  auto worker = [&](int id) {
    double best = 0;
    uint32_t arg = 0;
    uint64_t n = 0, ns = 0, nb = 0;
    auto block = [&](uint64_t blk) {
      vu32 x;
      for (int i = 0; i < N32; ++i) x[i] = static_cast<uint32_t>(blk * kBlock + i);
      vu32 g_sub;
      vf32 y;
      vf64 ref[2];
      vu32 mask;
      eval<K>(t, x, &y, &g_sub, ref, &mask, &nb);
      for (int h = 0; h < 2; ++h) {
        const vf64 yd = __builtin_convertvector(xrng::detail::half<xrng::detail::vf32h>(y, h), vf64);
        const vf64 err = absd(yd - ref[h]) / ulp32(ref[h]);
        const vu64 m = __builtin_convertvector(xrng::detail::half<xrng::detail::vu32h>(mask, h), vu64);
        // NaN errors compare false: caught by !(err <= best)
        const vu64 hit = (vu64)(!(err <= best)) & m;
        bool any = false;
        for (int i = 0; i < N64; ++i) any |= hit[i] != 0;
        if (any) {
          for (int i = 0; i < N64; ++i) {
            if (m[i] == 0 || err[i] <= best) continue;
            best = err[i] != err[i] ? 1e300 : err[i];
            arg = x[h * N64 + i];
          }
        }
      }
      for (int i = 0; i < N32; ++i) {
        n += mask[i] != 0;
        ns += (g_sub[i] & mask[i]) != 0;
      }
    };
    for (uint64_t blk = static_cast<uint64_t>(id) * stride; blk < blocks; blk += stride * threads) block(blk);
    // With a stride, the 2^16 smallest and largest inputs too (u near 0 and
    // 1, the angles near 0 and a full turn): the ends where the transforms
    // are hardest.
    if (stride > 1) {
      for (uint64_t blk = static_cast<uint64_t>(id); blk < kEdge; blk += threads) {
        if (blk % stride != 0) block(blk);
        if ((blocks - 1 - blk) % stride != 0) block(blocks - 1 - blk);
      }
    }
    count += n;
    sub += ns;
    bad += nb;
    std::lock_guard<std::mutex> g(mu);
    if (best > res.max_ulp) {
      res.max_ulp = best;
      res.arg = arg;
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker, i);
  for (auto& th : pool) th.join();
  res.count = count;
  res.subnormal = sub;
  res.bad = bad;
  return res;
}

// ---- final values: normal, log_normal, exponential --------------------------------------------------------
struct Final {
  double max_ulp = 0;
  uint64_t arg = 0;       // pair index of the maximum
  uint64_t count = 0;
  uint64_t over[4] = {};  // values with error > 0.5, 1, 2, 3 ulp
  void add(float y, double ref, uint64_t at) {
    const double e = ref == 0.0 ? (y == 0.0f ? 0.0 : 1e300) : std::fabs(y - ref) / ulp32_scalar(ref);
    ++count;
    for (int j = 0; j < 4; ++j) over[j] += e > (j == 0 ? 0.5 : j);
    if (e > max_ulp) {
      max_ulp = e;
      arg = at;
    }
  }
  void merge(const Final& o) {
    count += o.count;
    for (int j = 0; j < 4; ++j) over[j] += o.over[j];
    if (o.max_ulp > max_ulp) {
      max_ulp = o.max_ulp;
      arg = o.arg;
    }
  }
  static double ulp32_scalar(double r) {
    const double a = std::fabs(r);
    if (a < 0x1p-126) return 0x1p-149;
    int e;
    std::frexp(a, &e);
    return std::ldexp(1.0, e - 24);
  }
};
struct PairResult {
  Final normal, log_normal, exponential;
};
PairResult pairs(uint64_t n, int threads) {
  PairResult res;
  std::mutex mu;
  const Stream s{0, 0};  // key 0: seed 0, subsequence 0
  NormalParams p;        // mean32 0, std32 1
  ExponentialParams pe;  // inv_rate32 1
  auto worker = [&](int id) {
    PairResult r;
    constexpr uint64_t kChunk = 1 << 14;
    std::vector<uint32_t> w(2 * kChunk);
    for (uint64_t c = static_cast<uint64_t>(id) * kChunk; c < n; c += kChunk * threads) {
      const uint64_t m = std::min<uint64_t>(kChunk, n - c);
      for (uint64_t b = 0; b < m / 2; ++b) {  // blocks of 4 words (chunks start on block boundaries)
        const u32x4 blk = stream_block(s, (2 * c) / 4 + b);
        std::memcpy(&w[4 * b], blk.v, 16);
      }
      if (m % 2) stream_words(s, 2 * (c + m - 1), 2, &w[2 * (m - 1)]);
      for (uint64_t i = 0; i < m; ++i) {
        const uint32_t a = w[2 * i], b = w[2 * i + 1];
        float z[2], ln[2], ex[2];
        if (g_before) {  // the first definition: the same formulas on legacy::radius / neg_log
          const float rad = legacy::radius<float, uint32_t>(a);
          float c0, s0;
          math32::sincos_turns<float, uint32_t>(b, &c0, &s0);
          z[0] = p.mean32 + p.std32 * (rad * c0);
          z[1] = p.mean32 + p.std32 * (rad * s0);
          ln[0] = math32::exp_<float, uint32_t>(z[0]);
          ln[1] = math32::exp_<float, uint32_t>(z[1]);
          ex[0] = legacy::neg_log<float, uint32_t>(a) * pe.inv_rate32;
          ex[1] = legacy::neg_log<float, uint32_t>(b) * pe.inv_rate32;
        } else {
          dist::v2::normal_f32(a, b, p, z);
          dist::v2::log_normal_f32(a, b, p, ln);
          ex[0] = dist::v2::exponential_f32(a, pe);
          ex[1] = dist::v2::exponential_f32(b, pe);
        }
        const double rad = math::box_muller_radius<32, double, uint64_t>(a);
        double cs[2];
        math::sincos_turns<32, double, uint64_t>(b, &cs[0], &cs[1]);
        for (int k = 0; k < 2; ++k) {
          const double ref = rad * cs[k];
          r.normal.add(z[k], ref, c + i);
          r.log_normal.add(ln[k], math::exp_<double, uint64_t>(ref), c + i);
          r.exponential.add(ex[k], math::neg_log_unit<32, double, uint64_t>(w[2 * i + k]), c + i);
        }
      }
    }
    std::lock_guard<std::mutex> g(mu);
    res.normal.merge(r.normal);
    res.log_normal.merge(r.log_normal);
    res.exponential.merge(r.exponential);
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker, i);
  for (auto& th : pool) th.join();
  return res;
}

}  // namespace acc

int main(int argc, char** argv) {
  uint64_t stride = 1, npairs = 1000000000;
  bool check = false, subnormal = false;
  std::string only;  // --only a,b: the per-word sweeps whose short name is listed
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--stride") {
      stride = std::strtoull(next(), nullptr, 0);
    } else if (a == "--pairs") {
      npairs = std::strtoull(next(), nullptr, 0);
    } else if (a == "--threads") {
      threads = std::atoi(next());
    } else if (a == "--subnormal") {
      subnormal = true;
    } else if (a == "--check") {
      check = true;
    } else if (a == "--only") {
      only = "," + std::string(next()) + ",";
    } else if (a == "--before") {
      acc::g_before = true;
    } else {
      std::fprintf(stderr,
                   "usage: accuracy_v2 [--stride S] [--pairs N] [--threads T] [--subnormal] [--check] [--before]\n"
                   "                   [--only radius,neg_log,cos,sin,tan,exp,log_normal]\n"
                   "  per-word transforms on every S-th vector of inputs (1: all 2^32), N final normal pairs;\n"
                   "  --subnormal: also check every intermediate for subnormals (about 4x slower);\n"
                   "  --before: measure the first definition of stream v2 (u rounded before ln u)\n");
      return 2;
    }
  }
  if (stride == 0 || threads < 1) {
    std::fprintf(stderr, "stride and threads must be >= 1\n");
    return 2;
  }
#if XRNG_SIMD_BYTES == 32
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::printf("SKIPPED: accuracy_v2 needs AVX2\n");
    return 77;
  }
#endif
  bool ok = true;
  std::printf("stream v2 per-word transforms: every %llu-th vector of %d inputs, %d threads\n",
              static_cast<unsigned long long>(stride), acc::N32, threads);
  std::printf("%-24s %12s %12s %12s %10s %6s\n", "transform", "max ulp", "at input", "inputs",
              subnormal ? "subnormal" : "(unchecked)", "bad");
  for (acc::T t : {acc::T::radius, acc::T::neg_log, acc::T::cos, acc::T::sin, acc::T::tan, acc::T::exp,
                   acc::T::log_normal}) {
    static const char* const kShort[] = {"radius", "neg_log", "cos", "sin", "tan", "exp", "log_normal"};
    if (!only.empty() && only.find("," + std::string(kShort[static_cast<int>(t)]) + ",") == std::string::npos) continue;
    const auto t0 = std::chrono::steady_clock::now();
    const acc::Result r = subnormal ? acc::sweep<true>(t, stride, threads) : acc::sweep<false>(t, stride, threads);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-24s %12.6f   0x%08x %12llu %10llu %6llu  (%.1f s)\n", r.name.c_str(), r.max_ulp, r.arg,
                static_cast<unsigned long long>(r.count), static_cast<unsigned long long>(r.subnormal),
                static_cast<unsigned long long>(r.bad), secs);
    std::fflush(stdout);
    // Per-word transforms within 1 ulp; the log_normal sweep (a final value) within 3.
    if (r.max_ulp > (t == acc::T::log_normal ? 3.0 : 1.0) || r.subnormal != 0 || r.bad != 0) ok = false;
  }
  if (npairs > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    const acc::PairResult p = acc::pairs(npairs, threads);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("final f32 values against the exact function of their words, %llu pairs of key 0 (%.1f s):\n",
                static_cast<unsigned long long>(npairs), secs);
    std::printf("%-30s %10s %10s %10s %10s %10s %12s %14s\n", "draw", "max ulp", "> 0.5", "> 1", "> 2", "> 3",
                "values", "at pair");
    const struct {
      const char* name;
      const acc::Final* f;
    } rows[] = {{"normal (mean 0, std 1)", &p.normal},
                {"exponential (rate 1)", &p.exponential},
                {"log_normal (mean 0, std 1)", &p.log_normal}};
    for (const auto& row : rows) {
      const double n = static_cast<double>(row.f->count);
      std::printf("%-30s %10.6f %9.4f%% %9.4f%% %9.5f%% %9.5f%% %12llu %14llu\n", row.name, row.f->max_ulp,
                  100.0 * row.f->over[0] / n, 100.0 * row.f->over[1] / n, 100.0 * row.f->over[2] / n,
                  100.0 * row.f->over[3] / n, static_cast<unsigned long long>(row.f->count),
                  static_cast<unsigned long long>(row.f->arg));
    }
    if (p.normal.max_ulp > 3.0 || p.exponential.max_ulp > 3.0 || p.log_normal.max_ulp > 3.0) ok = false;
  }
  if (check) {
    std::printf(ok ? "PASS\n" : "FAIL\n");
    return ok ? 0 : 1;
  }
  return 0;
}
