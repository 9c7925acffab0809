// Accuracy of the Box-Muller building blocks against long double references
// (label "exhaustive": every one of the 2^32 words, 2 threads, minutes).
// Built a second time with XRNG_ACCURACY_QUICK as test_accuracy_quick (label
// "unit"): the same checks on every 4099th word and on smaller samples.
//
// The reference is long double (x87, 64-bit significand): 11 bits more than
// double, so a measured error in double ulps is itself uncertain by about
// 2^-11 ~ 0.0005 ulp (plus logl/sincosl's own sub-ulp error in long double).
// Errors are |result - exact| divided by the ulp of the exact value in the
// result's format (binary32 ulps: 2^(e-23); binary64: 2^(e-52)).
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "host/xrng.h"

namespace {

#if defined(XRNG_ACCURACY_QUICK)
constexpr uint64_t kStride = 4099;                // every 4099th block / value: about 10^6 of the 2^32 words
constexpr uint64_t kPairsF32 = uint64_t{1} << 20;  // random pairs for the final f32 value
constexpr uint64_t kPairsF64 = uint64_t{1} << 18;
#else
constexpr uint64_t kStride = 1;                    // all 2^32 words
constexpr uint64_t kPairsF32 = 100000000;          // 10^8 of the 2^64 pairs
constexpr uint64_t kPairsF64 = 10000000;
#endif
constexpr int kThreads = 2;

const long double kPiL = 3.141592653589793238462643383279502884L;

std::string fmt(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9f", x);
  return b;
}

// ulp of a (normal, nonzero) long double value in binary32 / binary64, as an
// exact power of two. On x87 (64-bit significand) the exponent is read from
// the bits, which keeps the 2^32-word sweeps fast; elsewhere ilogbl/ldexpl.
#if LDBL_MANT_DIG == 64
int exponent_of(long double x) {
  uint16_t se;
  std::memcpy(&se, reinterpret_cast<const unsigned char*>(&x) + 8, 2);
  return static_cast<int>(se & 0x7fff) - 16383;
}
long double pow2(int k) {  // 2^k for k in the normal range
  unsigned char b[sizeof(long double)] = {};
  const uint64_t m = uint64_t{1} << 63;
  const uint16_t se = static_cast<uint16_t>(k + 16383);
  std::memcpy(b, &m, 8);
  std::memcpy(b + 8, &se, 2);
  long double r;
  std::memcpy(&r, b, sizeof r);
  return r;
}
#else
int exponent_of(long double x) { return ilogbl(x); }
long double pow2(int k) { return ldexpl(1.0L, k); }
#endif
// 1 / ulp, so that an error in ulps is an exact scaling
long double inv_ulp32(long double x) {
  int e = exponent_of(x);
  if (e < -126) e = -126;
  return pow2(23 - e);
}
long double inv_ulp64(long double x) {
  int e = exponent_of(x);
  if (e < -1022) e = -1022;
  return pow2(52 - e);
}

// The largest error seen, and where.
struct MaxErr {
  double err = 0;
  uint64_t at = 0;
  uint64_t exact_zero = 0;  // inputs whose exact value is 0 (they must give 0 exactly)
  bool bad_zero = false;
  void add(long double got, long double exact, long double inv_ulp, uint64_t where) {
    if (exact == 0) {
      ++exact_zero;
      if (got != 0) bad_zero = true;
      return;
    }
    const double e = static_cast<double>(fabsl(got - exact) * inv_ulp);
    if (e > err) {
      err = e;
      at = where;
    }
  }
  void merge(const MaxErr& o) {
    if (o.err > err) {
      err = o.err;
      at = o.at;
    }
    exact_zero += o.exact_zero;
    bad_zero = bad_zero || o.bad_zero;
  }
};

// Runs body(i, acc) for i in [0, n) step `stride` on kThreads threads; body
// receives an array of `k` accumulators.
template <int K, class Body>
std::vector<MaxErr> sweep(uint64_t n, uint64_t stride, Body body) {
  std::vector<std::vector<MaxErr>> part(kThreads, std::vector<MaxErr>(K));
  std::vector<std::thread> ts;
  const uint64_t steps = (n + stride - 1) / stride;
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      const uint64_t b = steps * t / kThreads, e = steps * (t + 1) / kThreads;
      for (uint64_t s = b; s < e; ++s) body(s * stride, part[t].data());
    });
  }
  for (auto& th : ts) th.join();
  std::vector<MaxErr> out(K);
  for (const auto& p : part)
    for (int k = 0; k < K; ++k) out[k].merge(p[k]);
  return out;
}

uint64_t splitmix(uint64_t i) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Exact radius sqrt(-2 ln u), u = (m + 1/2) 2^-bits.
long double radius_ref(uint64_t m, int bits) {
  const long double u = ldexpl(static_cast<long double>(m) + 0.5L, -bits);
  return sqrtl(-2.0L * logl(u));
}
// The radius reference for the 2^32-word sweep, for a block of kBlock
// consecutive words from w0 (a multiple of kBlock): log u = log u0 +
// log1p(x), x = i / (w0 + 1/2) <= 2^-14, with log1p as its series to x^5
// (the first omitted term is below 2^-84, against |log u| >= 2^-12: a
// relative 2^-72). logl is called once per block instead of once per word.
// Near the ends (w0 < 2^20, where x is large, and w0 > 2^32 - 2^20, where
// log u0 and log1p(x) nearly cancel) every word calls logl directly. The
// test "block reference == direct reference" checks the two agree.
constexpr uint64_t kBlock = 64;
void radius_ref_block(uint64_t w0, long double out[kBlock]) {
  if (w0 < (uint64_t{1} << 20) || w0 >= (uint64_t{1} << 32) - (uint64_t{1} << 20)) {
    for (uint64_t i = 0; i < kBlock; ++i) out[i] = radius_ref(w0 + i, 32);
    return;
  }
  const long double b = static_cast<long double>(w0) + 0.5L;
  const long double l0 = logl(ldexpl(b, -32));
  const long double inv = 1.0L / b;
  for (uint64_t i = 0; i < kBlock; ++i) {
    const long double x = static_cast<long double>(i) * inv;
    const long double l1p = x * (1.0L - x * (0.5L - x * (1.0L / 3 - x * (0.25L - x * 0.2L))));
    out[i] = sqrtl(-2.0L * (l0 + l1p));
  }
}

// Exact (cos, sin)(2 pi m 2^-bits) with xrng's integer quadrant reduction:
// q = round(4t), r = t - q/4 (exact), then cosl/sinl of 2 pi r only.
void sincos_ref(uint64_t m, int bits, long double* c, long double* s) {
  const uint64_t eighth = uint64_t{1} << (bits - 3);
  const uint64_t a = m + eighth;
  const uint64_t q = a >> (bits - 2);
  const int64_t rb = static_cast<int64_t>(a - (q << (bits - 2))) - static_cast<int64_t>(eighth);
  const long double x = 2.0L * kPiL * ldexpl(static_cast<long double>(rb), -bits);
  long double c0, s0;
  sincosl(x, &s0, &c0);
  switch (q & 3) {
    case 0: *c = c0; *s = s0; break;
    case 1: *c = -s0; *s = c0; break;
    case 2: *c = -c0; *s = -s0; break;
    default: *c = s0; *s = -c0; break;
  }
}

}  // namespace

TEST_CASE("accuracy: the block radius reference equals the direct one") {
  // relative difference below 2^-60 (the references carry about 2^-63)
  long double worst = 0;
  for (uint64_t k = 0; k < 20000; ++k) {
    const uint64_t w0 = (splitmix(k) & 0xffffffffull) & ~(kBlock - 1);
    long double blk[kBlock];
    radius_ref_block(w0, blk);
    for (uint64_t i = 0; i < kBlock; i += 9) {
      const long double d = radius_ref(w0 + i, 32);
      worst = std::max(worst, fabsl(blk[i] - d) / d);
    }
  }
  for (uint64_t w0 : {uint64_t{1} << 20, (uint64_t{1} << 32) - (uint64_t{1} << 20) - kBlock}) {
    long double blk[kBlock];
    radius_ref_block(w0, blk);
    for (uint64_t i = 0; i < kBlock; ++i) worst = std::max(worst, fabsl(blk[i] - radius_ref(w0 + i, 32)) / blk[i]);
  }
  MESSAGE("block vs direct radius reference: max relative difference 2^", std::log2(static_cast<double>(worst)));
  CHECK(worst < 0x1p-60L);
}

TEST_CASE("accuracy: Box-Muller radius over 2^32 words") {
  // [0] double result in double ulps, [1] the result rounded to binary32 in binary32 ulps, [2] counts words
  const auto m = sweep<3>((uint64_t{1} << 32) / kBlock, kStride, [](uint64_t blk, MaxErr* acc) {
    long double ex[kBlock];
    const uint64_t w0 = blk * kBlock;
    radius_ref_block(w0, ex);
    for (uint64_t i = 0; i < kBlock; ++i) {
      const double r = xrng::math::box_muller_radius<32, double, uint64_t>(w0 + i);
      acc[0].add(r, ex[i], inv_ulp64(ex[i]), w0 + i);
      acc[1].add(static_cast<float>(r), ex[i], inv_ulp32(ex[i]), w0 + i);
    }
    acc[2].exact_zero += kBlock;
  });
  MESSAGE("radius<32>: max error ", fmt(m[0].err), " double ulps (word ", m[0].at, "), ", fmt(m[1].err),
          " float ulps after rounding to f32 (word ", m[1].at, "); words checked: ", m[2].exact_zero);
  if (kStride == 1) CHECK(m[2].exact_zero == (uint64_t{1} << 32));
  CHECK(m[0].err <= 2.0);
  CHECK(m[1].err <= 0.5001);
  CHECK(m[0].exact_zero == 0);
}

TEST_CASE("accuracy: cos and sin of 2 pi t over 2^32 words") {
  // Word w is quadrant q = round(4t) and r = t - q/4 = rb 2^-32 turns,
  // rb in [-2^29, 2^29): (q mod 4, rb) <-> w is a bijection. The reference
  // (cos, sin)(2 pi r) is computed once per |rb| (cos is even, sin odd, and
  // 2 pi_l (-r) = -(2 pi_l r) exactly) and checked on the eight words
  // (q, +rb), (q, -rb), q = 0..3: every one of the 2^32 words is checked
  // against its own reference value, with 2^29 + 1 calls of sincosl.
  // [0] cos, [1] sin in double ulps; [2] cos, [3] sin rounded to binary32 in binary32 ulps; [4] counts words
  const int64_t half = int64_t{1} << 29;
  const auto m = sweep<5>(static_cast<uint64_t>(half) + 1, kStride, [half](uint64_t a, MaxErr* acc) {
    const long double x = 2.0L * kPiL * ldexpl(static_cast<long double>(a), -32);
    long double c0, s0;
    sincosl(x, &s0, &c0);
    for (int sign = 1; sign >= -1; sign -= 2) {
      const int64_t rb = sign * static_cast<int64_t>(a);
      if (rb >= half || (sign < 0 && a == 0)) continue;  // rb in [-2^29, 2^29), 0 once
      const long double sr = sign > 0 ? s0 : -s0;
      for (uint64_t q = 0; q < 4; ++q) {
        const uint64_t w = static_cast<uint64_t>((static_cast<int64_t>(q << 30) + rb)) & 0xffffffffull;
        long double ec, es;
        switch (q) {
          case 0: ec = c0; es = sr; break;
          case 1: ec = -sr; es = c0; break;
          case 2: ec = -c0; es = -sr; break;
          default: ec = sr; es = -c0; break;
        }
        double c, s;
        xrng::math::sincos_turns<32, double, uint64_t>(w, &c, &s);
        acc[0].add(c, ec, inv_ulp64(ec), w);
        acc[1].add(s, es, inv_ulp64(es), w);
        acc[2].add(static_cast<float>(c), ec, inv_ulp32(ec), w);
        acc[3].add(static_cast<float>(s), es, inv_ulp32(es), w);
        acc[4].exact_zero += 1;
      }
    }
  });
  MESSAGE("sincos_turns<32>: max error cos ", fmt(m[0].err), " (word ", m[0].at, "), sin ", fmt(m[1].err), " (word ",
          m[1].at, ") double ulps; rounded to f32: cos ", fmt(m[2].err), ", sin ", fmt(m[3].err),
          " float ulps; words checked: ", m[4].exact_zero, ", exact zeros: ", m[0].exact_zero + m[1].exact_zero);
  if (kStride == 1) CHECK(m[4].exact_zero == (uint64_t{1} << 32));
  CHECK(m[0].err <= 2.0);
  CHECK(m[1].err <= 2.0);
  CHECK(m[2].err <= 0.5001);
  CHECK(m[3].err <= 0.5001);
  CHECK(!m[0].bad_zero);
  CHECK(!m[1].bad_zero);
}

TEST_CASE("accuracy: normal f32 values z = r cos, r sin on random pairs") {
  const auto m = sweep<2>(kPairsF32, 1, [](uint64_t i, MaxErr* acc) {
    const uint64_t x = splitmix(i);
    const uint32_t a = static_cast<uint32_t>(x), b = static_cast<uint32_t>(x >> 32);
    float z[2];
    xrng::dist::normal_f32(a, b, xrng::NormalParams{}, z);
    const long double r = radius_ref(a, 32);
    long double c, s;
    sincos_ref(b, 32, &c, &s);
    acc[0].add(z[0], r * c, inv_ulp32(r * c), i);
    acc[1].add(z[1], r * s, inv_ulp32(r * s), i);
  });
  MESSAGE("normal f32 over ", kPairsF32, " pairs: max error z0 ", fmt(m[0].err), " (pair ", m[0].at, "), z1 ", fmt(m[1].err),
          " (pair ", m[1].at, ") float ulps");
  CHECK(m[0].err <= 1.0);
  CHECK(m[1].err <= 1.0);
  CHECK(!m[0].bad_zero);
  CHECK(!m[1].bad_zero);
}

TEST_CASE("accuracy: normal f64 values on random inputs") {
  // [0] z0, [1] z1, [2] radius<52>, [3] cos<52>, [4] sin<52>, all in double ulps
  const auto m = sweep<5>(kPairsF64, 1, [](uint64_t i, MaxErr* acc) {
    const uint64_t a = splitmix(2 * i), b = splitmix(2 * i + 1);
    const uint32_t w[4] = {static_cast<uint32_t>(a), static_cast<uint32_t>(a >> 32), static_cast<uint32_t>(b),
                           static_cast<uint32_t>(b >> 32)};
    double z[2];
    xrng::dist::normal_f64(w, xrng::NormalParams{}, z);
    const long double r = radius_ref(a >> 12, 52);
    long double c, s;
    sincos_ref(b >> 12, 52, &c, &s);
    acc[0].add(z[0], r * c, inv_ulp64(r * c), i);
    acc[1].add(z[1], r * s, inv_ulp64(r * s), i);
    const double rr = xrng::math::box_muller_radius<52, double, uint64_t>(a >> 12);
    double cc, ss;
    xrng::math::sincos_turns<52, double, uint64_t>(b >> 12, &cc, &ss);
    acc[2].add(rr, r, inv_ulp64(r), i);
    acc[3].add(cc, c, inv_ulp64(c), i);
    acc[4].add(ss, s, inv_ulp64(s), i);
  });
  MESSAGE("normal f64 over ", kPairsF64, " inputs (reference: long double, 11 bits beyond double): max error z0 ",
          fmt(m[0].err), ", z1 ", fmt(m[1].err), "; radius<52> ", fmt(m[2].err), ", cos<52> ", fmt(m[3].err),
          ", sin<52> ", fmt(m[4].err),
          " double ulps");
  CHECK(m[0].err <= 4.0);
  CHECK(m[1].err <= 4.0);
  CHECK(m[2].err <= 2.0);
  CHECK(m[3].err <= 2.0);
  CHECK(m[4].err <= 2.0);
}
