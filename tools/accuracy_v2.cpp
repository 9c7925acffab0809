// accuracy_v2: the measured accuracy of stream v2's binary32 transforms
// (rng/detail/math32.h, SPEC.md "Stream v2"), and the proof that none of
// their intermediates is subnormal.
//
//   accuracy_v2 [--stride S] [--pairs N] [--threads T] [--subnormal] [--check]
//
// Per-word transforms, every S-th input (S = 1: all 2^32 words; default 1):
//   radius   sqrt(-2 ln u)   of word a   (u = math32::unit_open(a))
//   neg_log  -ln u           of word a   (the exponential)
//   cos, sin of 2 pi b 2^-32 of word b
//   tan      tan(pi (u - 1/2)) of word a, u = (a + 1/2) 2^-32 (the Cauchy; its angle is exact)
//   exp      e^x of every binary32 x in [-0x1.5d5p6, 88.72] (and the clamps outside)
// each against a binary64 evaluation of the same formula by stream v1's own
// transcendentals (rng/detail/math.h: within about 2^-52 relative, so a
// measured error in binary32 ulps is uncertain by about 2^-28 ulp). The error
// is |v2 value - reference| in units of the binary32 ulp of the reference.
// With --subnormal, every floating-point operation of the v2 transforms runs
// on a checked lane type that records any subnormal result: the sweep proves
// the "no subnormal intermediate" rule over all inputs (about 4x slower, so
// not the CI run).
//
// Final normal values: N pairs (default 10^9) from the stream of key 0 (words
// 2i, 2i + 1 of pair i), dist::v2::normal_f32 with mean 0, std 1, against
// sqrt(-2 ln u) cos / sin (2 pi b 2^-32) in binary64 with u the v2 u of a (the
// exact real formula of v2's definition).
//
// --check: exit 1 unless every per-word transform is within 1 ulp, the final
// values within 3 ulp, and no subnormal was seen. Exit 77 on an x86 CPU
// without AVX2 (the program is vectorised with host/simd/isa.h at AVX2 width
// on x86-64, at NEON width on AArch64).
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
enum class T { radius, neg_log, cos, sin, tan, exp };
const char* name_of(T t) {
  switch (t) {
    case T::radius: return "radius sqrt(-2 ln u)";
    case T::neg_log: return "neg_log -ln u";
    case T::cos: return "cos 2 pi b 2^-32";
    case T::sin: return "sin 2 pi b 2^-32";
    case T::tan: return "tan pi (u - 1/2)";
    case T::exp: return "exp x";
  }
  return "?";
}
constexpr float kExpHi = 88.72283f;  // below ln(FLT_MAX) = 88.7228391...: e^x finite

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
    case T::radius: yc = math32::radius<CF, CI>(xi); break;
    case T::neg_log: yc = math32::neg_log<CF, CI>(xi); break;
    case T::cos:
    case T::sin: {
      CF c, s;
      math32::sincos_turns<CF, CI>(xi, &c, &s);
      yc = t == T::cos ? c : s;
      break;
    }
    case T::tan: yc = math32::tan_centered<CF, CI>(xi); break;
    case T::exp: yc = math32::exp_<CF, CI>(as_f32(xi)); break;
  }
  *y = yc.v;
  *sub = yc.s;
  for (int h = 0; h < 2; ++h) {
    const vu64 w = __builtin_convertvector(xrng::detail::half<xrng::detail::vu32h>(x, h), vu64);
    switch (t) {
      case T::radius:
      case T::neg_log: {
        // u exactly as v2 defines it (a binary32 value), then ln u in binary64.
        const CF u = math32::unit_open<CF, CI>(xi);
        const vf64 ud = __builtin_convertvector(xrng::detail::half<xrng::detail::vf32h>(u.v, h), vf64);
        const D l = math::log_unit<D, U>(dof(ud));
        ref[h] = t == T::radius ? sqrt_(l * D(-2.0)).v[0] : (D(0.0) - l).v[0];
        break;
      }
      case T::cos:
      case T::sin: {
        D c, s;
        math::sincos_turns<32, D, U>(uof(w), &c, &s);
        ref[h] = t == T::cos ? c.v[0] : s.v[0];
        break;
      }
      case T::tan: ref[h] = math::tan_centered<32, D, U>(uof(w)).v[0]; break;
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
  auto worker = [&](int id) {
    double best = 0;
    uint32_t arg = 0;
    uint64_t n = 0, ns = 0, nb = 0;
    for (uint64_t blk = static_cast<uint64_t>(id) * stride; blk < blocks; blk += stride * threads) {
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

// ---- final normal values ------------------------------------------------------------------------------
struct PairResult {
  double max_ulp = 0;
  uint64_t arg = 0;
  uint64_t count = 0;
  uint64_t over[4] = {};  // values with error > 0.5, 1, 2, 3 ulp
};
double ulp32_scalar(double r) {
  const double a = std::fabs(r);
  if (a < 0x1p-126) return 0x1p-149;
  int e;
  std::frexp(a, &e);
  return std::ldexp(1.0, e - 24);
}
PairResult pairs(uint64_t n, int threads) {
  PairResult res;
  std::mutex mu;
  const Stream s{0, 0};  // key 0: seed 0, subsequence 0
  NormalParams p;  // mean32 0, std32 1
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
        float z[2];
        dist::v2::normal_f32(w[2 * i], w[2 * i + 1], p, z);
        const double u = static_cast<double>(math32::unit_open<float, uint32_t>(w[2 * i]));
        const double rad = std::sqrt(-2.0 * math::log_unit<double, uint64_t>(u));
        double cs[2];
        math::sincos_turns<32, double, uint64_t>(w[2 * i + 1], &cs[0], &cs[1]);
        for (int k = 0; k < 2; ++k) {
          const double ref = rad * cs[k];
          const double e = ref == 0.0 ? (z[k] == 0.0f ? 0.0 : 1e300) : std::fabs(z[k] - ref) / ulp32_scalar(ref);
          ++r.count;
          for (int j = 0; j < 4; ++j) r.over[j] += e > (j == 0 ? 0.5 : j);
          if (e > r.max_ulp) {
            r.max_ulp = e;
            r.arg = c + i;
          }
        }
      }
    }
    std::lock_guard<std::mutex> g(mu);
    res.count += r.count;
    for (int j = 0; j < 4; ++j) res.over[j] += r.over[j];
    if (r.max_ulp > res.max_ulp) {
      res.max_ulp = r.max_ulp;
      res.arg = r.arg;
    }
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
    } else {
      std::fprintf(stderr,
                   "usage: accuracy_v2 [--stride S] [--pairs N] [--threads T] [--subnormal] [--check]\n"
                   "  per-word transforms on every S-th vector of inputs (1: all 2^32), N final normal pairs;\n"
                   "  --subnormal: also check every intermediate for subnormals (about 4x slower)\n");
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
  for (acc::T t : {acc::T::radius, acc::T::neg_log, acc::T::cos, acc::T::sin, acc::T::tan, acc::T::exp}) {
    const auto t0 = std::chrono::steady_clock::now();
    const acc::Result r = subnormal ? acc::sweep<true>(t, stride, threads) : acc::sweep<false>(t, stride, threads);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-24s %12.6f   0x%08x %12llu %10llu %6llu  (%.1f s)\n", r.name.c_str(), r.max_ulp, r.arg,
                static_cast<unsigned long long>(r.count), static_cast<unsigned long long>(r.subnormal),
                static_cast<unsigned long long>(r.bad), secs);
    std::fflush(stdout);
    if (r.max_ulp > 1.0 || r.subnormal != 0 || r.bad != 0) ok = false;
  }
  if (npairs > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    const acc::PairResult p = acc::pairs(npairs, threads);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("final normal f32 (mean 0, std 1), %llu pairs of key 0: max %.6f ulp at pair %llu; "
                "values over 0.5/1/2/3 ulp: %llu %llu %llu %llu of %llu  (%.1f s)\n",
                static_cast<unsigned long long>(npairs), p.max_ulp, static_cast<unsigned long long>(p.arg),
                static_cast<unsigned long long>(p.over[0]), static_cast<unsigned long long>(p.over[1]),
                static_cast<unsigned long long>(p.over[2]), static_cast<unsigned long long>(p.over[3]),
                static_cast<unsigned long long>(p.count), secs);
    if (p.max_ulp > 3.0) ok = false;
  }
  if (check) {
    std::printf(ok ? "PASS\n" : "FAIL\n");
    return ok ? 0 : 1;
  }
  return 0;
}
