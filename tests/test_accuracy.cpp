// Accuracy of the value transforms against long double references (label
// "exhaustive": every 61st of the 2^32 words by default, every word with
// XRNG_EXHAUSTIVE_FULL=1, 2 threads, minutes): the
// Box-Muller radius and sincos (normal), -log u (exponential, geometric),
// tan (Cauchy), exp (log-normal), and the f64 rows of the newer distributions.
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
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "host/xrng.h"

using xrng::Dist;
using xrng::DrawParams;
using xrng::DType;
template <Dist D, DType T>
using Row = xrng::Row<D, T, 1>;

namespace {

#if defined(XRNG_ACCURACY_QUICK)
constexpr uint64_t kStride = 4099;                // every 4099th block / value: about 10^6 of the 2^32 words
constexpr uint64_t kPairsF32 = uint64_t{1} << 20;  // random pairs for the final f32 value
constexpr uint64_t kPairsF64 = uint64_t{1} << 18;
constexpr uint64_t kExpPoints = 1000000;           // exp_: points of the sweep over [-746, 710]
constexpr uint64_t kExpSubPoints = 100000;         // exp_: points of the sweep over its subnormal results
#else
// Stream 1 is frozen: test_golden pins its values, so re-proving its
// transforms over all 2^32 words on every CI run proves nothing new. By
// default this program takes every 61st block / value (7 * 10^7 words) and a
// sixteenth of the random samples; XRNG_EXHAUSTIVE_FULL=1 in the environment
// runs the full proof (every word, 10^8 pairs: about 10 minutes on 2 cores),
// which is due whenever rng/detail/math.h or distributions.h changes.
const bool kFull = [] {
  const char* e = std::getenv("XRNG_EXHAUSTIVE_FULL");
  return e != nullptr && e[0] != '\0' && e[0] != '0';
}();
const uint64_t kStride = kFull ? 1 : 61;
const uint64_t kPairsF32 = kFull ? 100000000 : 100000000 / 16;  // 10^8 of the 2^64 pairs
const uint64_t kPairsF64 = kFull ? 10000000 : 10000000 / 16;
const uint64_t kExpPoints = kFull ? 100000000 : 100000000 / 16;
const uint64_t kExpSubPoints = kFull ? 10000000 : 10000000 / 16;
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
  uint64_t count = 0;       // free counter (inputs checked, or some event), summed over threads
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
    count += o.count;
    bad_zero = bad_zero || o.bad_zero;
  }
};

// Runs body(i, acc) for i in [0, n) step `stride` on kThreads threads; body
// receives an array of `k` accumulators (MaxErr, or any type with merge()).
template <int K, class Acc = MaxErr, class Body>
std::vector<Acc> sweep(uint64_t n, uint64_t stride, Body body) {
  std::vector<std::vector<Acc>> part(kThreads, std::vector<Acc>(K));
  std::vector<std::thread> ts;
  const uint64_t steps = (n + stride - 1) / stride;
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      const uint64_t b = steps * t / kThreads, e = steps * (t + 1) / kThreads;
      for (uint64_t s = b; s < e; ++s) body(s * stride, part[t].data());
    });
  }
  for (auto& th : ts) th.join();
  std::vector<Acc> out(K);
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

// Exact ln u and radius sqrt(-2 ln u), u = (m + 1/2) 2^-bits.
long double log_ref(uint64_t m, int bits) { return logl(ldexpl(static_cast<long double>(m) + 0.5L, -bits)); }
long double radius_ref(uint64_t m, int bits) { return sqrtl(-2.0L * log_ref(m, bits)); }
// The log reference for the 2^32-word sweeps, for a block of kBlock
// consecutive words from w0 (a multiple of kBlock): log u = log u0 +
// log1p(x), x = i / (w0 + 1/2) <= 2^-14, with log1p as its series to x^5
// (the first omitted term is below 2^-84, against |log u| >= 2^-12: a
// relative 2^-72). logl is called once per block instead of once per word.
// Near the ends (w0 < 2^20, where x is large, and w0 > 2^32 - 2^20, where
// log u0 and log1p(x) nearly cancel) every word calls logl directly. The
// test "block reference == direct reference" checks the two agree.
constexpr uint64_t kBlock = 64;
void log_ref_block(uint64_t w0, long double out[kBlock]) {
  if (w0 < (uint64_t{1} << 20) || w0 >= (uint64_t{1} << 32) - (uint64_t{1} << 20)) {
    for (uint64_t i = 0; i < kBlock; ++i) out[i] = log_ref(w0 + i, 32);
    return;
  }
  const long double b = static_cast<long double>(w0) + 0.5L;
  const long double l0 = logl(ldexpl(b, -32));
  const long double inv = 1.0L / b;
  for (uint64_t i = 0; i < kBlock; ++i) {
    const long double x = static_cast<long double>(i) * inv;
    const long double l1p = x * (1.0L - x * (0.5L - x * (1.0L / 3 - x * (0.25L - x * 0.2L))));
    out[i] = l0 + l1p;
  }
}
void radius_ref_block(uint64_t w0, long double out[kBlock]) {
  log_ref_block(w0, out);
  for (uint64_t i = 0; i < kBlock; ++i) out[i] = sqrtl(-2.0L * out[i]);
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

// Exact tan(pi (u - 1/2)), u = (m + 1/2) 2^-bits, with tan_centered's exact
// integer angle a = 2m + 1 + 3 2^bits (mod 2^(bits+2)), in units of
// 2^-(bits+2) turns: (cos, sin) from sincos_ref, then one long double
// division. After the exact reduction cos and sin are each relatively
// accurate (near the pole, cos is a sine of a small argument), so tan is too.
long double tan_ref(uint64_t m, int bits) {
  const uint64_t a = ((m << 1) + (uint64_t{3} << bits) + 1) & ((uint64_t{1} << (bits + 2)) - 1);
  long double c, s;
  sincos_ref(a, bits + 2, &c, &s);
  return s / c;
}

// A geometric value k against the exact ceil(R), R = log u / log(1 - p), R
// from long double references (relative error about 2^-62). The transform
// forms R in double with a relative error below 2^-50 (log_unit within 1 ulp,
// log(1 - p) within 3 ulp, one division: at most about 4.5 ulp of 2^-53), so
// k may differ from ceil(R) only where R lies within R 2^-50 of an integer,
// and then by at most 1 + R 2^-50. The bound checked is
// |k - ceil(R)| <= 1 + 2^-49 ceil(R) (twice that). For saturating integer
// rows the caller passes R clamped to the type's maximum.
struct GeoErr {
  uint64_t words = 0;        // inputs compared
  uint64_t mismatches = 0;   // k != ceil(R), R clear of integers by more than the reference's error
  uint64_t undecided = 0;    // k != ceil(R_ref) but R within 2^-60 R of an integer: the reference cannot tell
  long double max_diff = 0;  // largest |k - ceil(R)|
  long double max_rel = 0;   // largest |k - ceil(R)| / ceil(R)
  uint64_t at = 0;
  long double kmax = 0;      // largest k seen
  bool out_of_bound = false;
  void add(long double k, long double R, uint64_t where) {
    ++words;
    if (k > kmax) kmax = k;
    if (k - 1 < R && R <= k) return;  // k == ceil(R)
    if (std::isinf(k) && R >= 0x1p1024L) return;  // the exact k is beyond the double range: inf
    const long double c = ceill(R);
    const long double d = fabsl(k - c);
    if (fabsl(R - nearbyintl(R)) <= R * 0x1p-60L)
      ++undecided;
    else
      ++mismatches;
    if (d > max_diff) {
      max_diff = d;
      at = where;
    }
    max_rel = std::max(max_rel, d / c);
    if (!(d <= 1 + c * 0x1p-49L)) out_of_bound = true;
  }
  void merge(const GeoErr& o) {
    words += o.words;
    mismatches += o.mismatches;
    undecided += o.undecided;
    if (o.max_diff > max_diff) {
      max_diff = o.max_diff;
      at = o.at;
    }
    max_rel = std::max(max_rel, o.max_rel);
    kmax = std::max(kmax, o.kmax);
    out_of_bound = out_of_bound || o.out_of_bound;
  }
  std::string summary() const {
    char b[256];
    std::snprintf(b, sizeof b, "%llu words: %llu differ from ceil(R) (+%llu undecided), max |k - ceil(R)| = %.4Lg (input %llu), max relative %.3Lg, max k %.6Lg",
                  static_cast<unsigned long long>(words), static_cast<unsigned long long>(mismatches),
                  static_cast<unsigned long long>(undecided), max_diff, static_cast<unsigned long long>(at), max_rel, kmax);
    return b;
  }
};

// The largest value of some quantity, and where.
struct Largest {
  double v = -INFINITY;
  uint64_t at = 0;
  void add(double x, uint64_t where) {
    if (x > v) {
      v = x;
      at = where;
    }
  }
  void merge(const Largest& o) { add(o.v, o.at); }
};

// xrng's k of exp_ (x = k ln2 + r), to check that a window of consecutive
// doubles crosses a change of k.
double exp_k(double x) { return (x * 0x1.71547652b82fep0 + 0x1.8p52) - 0x1.8p52; }

template <class R>
typename R::out_t eval1(const uint32_t* w, const xrng::Plan& p) {
  typename R::out_t o[R::kGroup];
  R::eval(w, p, o);
  return o[0];
}

}  // namespace

TEST_CASE("accuracy: the block log and radius references equal the direct ones") {
  // relative difference below 2^-60 (the references carry about 2^-63)
  long double worst = 0, worst_log = 0;
  for (uint64_t k = 0; k < 20000; ++k) {
    const uint64_t w0 = (splitmix(k) & 0xffffffffull) & ~(kBlock - 1);
    long double blk[kBlock], lblk[kBlock];
    radius_ref_block(w0, blk);
    log_ref_block(w0, lblk);
    for (uint64_t i = 0; i < kBlock; i += 9) {
      const long double d = radius_ref(w0 + i, 32), l = log_ref(w0 + i, 32);
      worst = std::max(worst, fabsl(blk[i] - d) / d);
      worst_log = std::max(worst_log, fabsl(lblk[i] - l) / fabsl(l));
    }
  }
  for (uint64_t w0 : {uint64_t{1} << 20, (uint64_t{1} << 32) - (uint64_t{1} << 20) - kBlock}) {
    long double blk[kBlock], lblk[kBlock];
    radius_ref_block(w0, blk);
    log_ref_block(w0, lblk);
    for (uint64_t i = 0; i < kBlock; ++i) {
      worst = std::max(worst, fabsl(blk[i] - radius_ref(w0 + i, 32)) / blk[i]);
      worst_log = std::max(worst_log, fabsl(lblk[i] - log_ref(w0 + i, 32)) / fabsl(lblk[i]));
    }
  }
  MESSAGE("block vs direct reference: max relative difference radius 2^", std::log2(static_cast<double>(worst)),
          ", log 2^", std::log2(static_cast<double>(worst_log)));
  CHECK(worst < 0x1p-60L);
  CHECK(worst_log < 0x1p-60L);
}

namespace {
// p of the geometric check on the log sweep: near 1 (k is 1 or 2), 1/2, the
// typical 0.3, small (1e-4: k up to 2.3e5, beyond f16), tiny (1e-9: k up to
// 2.3e10, beyond i32).
constexpr double kGeoP[] = {0.999999, 0.5, 0.3, 1e-4, 1e-9};
constexpr int kGeoN = 5;
constexpr uint64_t kGeoEvery = 16;  // blocks: the geometric p's and the rate-2.5 exponential see every 16th block
struct LogAcc {
  // [0] radius in double ulps, [1] radius rounded to binary32 in float ulps,
  // [2] neg_log_unit<32> in double ulps, [3] it rounded to binary32 (the
  // exponential f32 value for rate 1) in float ulps, [4] the exponential f32
  // row for rate 2.5 in float ulps; [5].count: words checked, [5].exact_zero:
  // words where the exponential f32 row (rate 1) differs from the rounded
  // neg_log_unit (checked on the geometric blocks).
  MaxErr e[6];
  GeoErr g[kGeoN];
  void merge(const LogAcc& o) {
    for (int i = 0; i < 6; ++i) e[i].merge(o.e[i]);
    for (int i = 0; i < kGeoN; ++i) g[i].merge(o.g[i]);
  }
};
}  // namespace

TEST_CASE("accuracy: log u over 2^32 words: Box-Muller radius, -log u (exponential), geometric") {
  // One reference, ln u from log_ref_block, for every transform of the same
  // log_unit: the normal's radius sqrt(-2 ln u), the exponential's -ln u and
  // the geometric's ceil(ln u / ln(1 - p)).
  const xrng::Plan e1 = xrng::make_plan(Dist::exponential, DType::f32, DrawParams::with_rate(1.0));
  const xrng::Plan e25 = xrng::make_plan(Dist::exponential, DType::f32, DrawParams::with_rate(2.5));
  xrng::GeometricParams geo[kGeoN];
  long double log1m_p[kGeoN];
  for (int j = 0; j < kGeoN; ++j) {
    geo[j] = xrng::make_plan(Dist::geometric, DType::f32, DrawParams::probability(kGeoP[j])).geometric;
    log1m_p[j] = log1pl(-static_cast<long double>(kGeoP[j]));
  }
  const auto m = sweep<1, LogAcc>((uint64_t{1} << 32) / kBlock, kStride, [&](uint64_t blk, LogAcc* acc) {
    long double L[kBlock];
    const uint64_t w0 = blk * kBlock;
    log_ref_block(w0, L);
    MaxErr* e = acc->e;
    for (uint64_t i = 0; i < kBlock; ++i) {
      const uint64_t w = w0 + i;
      const long double rad = sqrtl(-2.0L * L[i]), nl = -L[i];
      const double r = xrng::math::box_muller_radius<32, double, uint64_t>(w);
      e[0].add(r, rad, inv_ulp64(rad), w);
      e[1].add(static_cast<float>(r), rad, inv_ulp32(rad), w);
      const double x = xrng::math::neg_log_unit<32, double, uint64_t>(w);
      e[2].add(x, nl, inv_ulp64(nl), w);
      e[3].add(static_cast<float>(x), nl, inv_ulp32(nl), w);
    }
    e[5].count += kBlock;
    if (blk % kGeoEvery != 0) return;
    for (uint64_t i = 0; i < kBlock; ++i) {
      const uint64_t w = w0 + i;
      const uint32_t w32 = static_cast<uint32_t>(w);
      const long double nl25 = -L[i] / 2.5L;
      e[4].add(eval1<Row<Dist::exponential, DType::f32>>(&w32, e25), nl25, inv_ulp32(nl25), w);
      e[5].exact_zero += eval1<Row<Dist::exponential, DType::f32>>(&w32, e1) !=
                         static_cast<float>(xrng::math::neg_log_unit<32, double, uint64_t>(w));
      for (int j = 0; j < kGeoN; ++j) acc->g[j].add(xrng::dist::geometric_value<32>(w, geo[j]), L[i] / log1m_p[j], w);
    }
  });
  const LogAcc& a = m[0];
  const MaxErr* e = a.e;
  MESSAGE("radius<32>: max error ", fmt(e[0].err), " double ulps (word ", e[0].at, "), ", fmt(e[1].err),
          " float ulps after rounding to f32 (word ", e[1].at, "); words checked: ", e[5].count);
  MESSAGE("neg_log_unit<32>: max error ", fmt(e[2].err), " double ulps (word ", e[2].at, "), ", fmt(e[3].err),
          " float ulps after rounding to f32 = exponential f32, rate 1 (word ", e[3].at, "); exponential f32 rate 2.5 on ",
          a.g[0].words, " words: ", fmt(e[4].err), " float ulps (word ", e[4].at, ")");
  if (kStride == 1) CHECK(e[5].count == (uint64_t{1} << 32));
  CHECK(e[0].err <= 2.0);
  CHECK(e[1].err <= 0.5001);
  CHECK(e[0].exact_zero == 0);
  // log_unit is within 1 ulp (its error, halved by the sqrt, is what the
  // radius shows); the negation is exact and the division by the rate adds
  // half a double ulp, far below the float half ulp.
  CHECK(e[2].err <= 1.0);
  CHECK(e[3].err <= 0.5001);
  CHECK(e[4].err <= 0.5001);
  CHECK(e[2].exact_zero == 0);
  CHECK(e[5].exact_zero == 0);  // the rate-1 row is the rounded neg_log_unit
  CHECK(a.g[0].words > 0);
  for (int j = 0; j < kGeoN; ++j) {
    MESSAGE("geometric_value<32>, p = ", kGeoP[j], ": ", a.g[j].summary());
    CHECK(a.g[j].words == a.g[0].words);
    CHECK(!a.g[j].out_of_bound);
  }
  // For p >= 0.3 (R <= 65) the double R is within 65 * 2^-50 < 2^-43 of the
  // exact one, so k can differ from ceil(R) only where R is that close to an
  // integer: about 2^-10 words of the 2^28 expected, and none measured (for
  // p = 1/2 the one word on an integer, R = 33 at word 0, gives 33). For
  // smaller p the differences are counted and bounded above.
  for (int j = 0; j < 3; ++j) CHECK(a.g[j].mismatches + a.g[j].undecided == 0);
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

TEST_CASE("accuracy: normal and log_normal f32 values on random pairs") {
  // The same pairs and references for both: z = r cos, r sin (normal) and
  // exp(z) (log_normal, against expl of the long double z). The binary64 z
  // carries a few ulps of relative error (normal f64: within 4), which exp
  // turns into a relative error |z| times that (|z| <= 6.77): about 2^-48,
  // far below the binary32 half ulp. [0], [1]: normal z0, z1; [2], [3]:
  // log_normal (0, 1); [4], [5]: log_normal (1, 2), the second sample
  // parameters, on every 16th pair. In float ulps.
  const xrng::NormalParams p12{1.0, 2.0};
  const auto m = sweep<6>(kPairsF32, 1, [&](uint64_t i, MaxErr* acc) {
    const uint64_t x = splitmix(i);
    const uint32_t a = static_cast<uint32_t>(x), b = static_cast<uint32_t>(x >> 32);
    float z[2];
    xrng::dist::normal_f32(a, b, xrng::NormalParams{}, z);
    const long double r = radius_ref(a, 32);
    long double c, s;
    sincos_ref(b, 32, &c, &s);
    acc[0].add(z[0], r * c, inv_ulp32(r * c), i);
    acc[1].add(z[1], r * s, inv_ulp32(r * s), i);
    float y[2];
    xrng::dist::log_normal_f32(a, b, xrng::NormalParams{}, y);
    const long double e0 = expl(r * c), e1 = expl(r * s);
    acc[2].add(y[0], e0, inv_ulp32(e0), i);
    acc[3].add(y[1], e1, inv_ulp32(e1), i);
    if (i % 16 == 0) {
      xrng::dist::log_normal_f32(a, b, p12, y);
      const long double g0 = expl(1.0L + 2.0L * (r * c)), g1 = expl(1.0L + 2.0L * (r * s));
      acc[4].add(y[0], g0, inv_ulp32(g0), i);
      acc[5].add(y[1], g1, inv_ulp32(g1), i);
    }
  });
  MESSAGE("normal f32 over ", kPairsF32, " pairs: max error z0 ", fmt(m[0].err), " (pair ", m[0].at, "), z1 ", fmt(m[1].err),
          " (pair ", m[1].at, ") float ulps");
  MESSAGE("log_normal f32 over ", kPairsF32, " pairs: max error (0, 1): ", fmt(m[2].err), " (pair ", m[2].at, "), ",
          fmt(m[3].err), " (pair ", m[3].at, "); (1, 2) on every 16th pair: ", fmt(m[4].err), ", ", fmt(m[5].err),
          " float ulps");
  CHECK(m[0].err <= 1.0);
  CHECK(m[1].err <= 1.0);
  CHECK(!m[0].bad_zero);
  CHECK(!m[1].bad_zero);
  for (int k = 2; k < 6; ++k) CHECK(m[k].err <= 0.5001);
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

// ---- geometric: edge cases -------------------------------------------------------------------------

TEST_CASE("accuracy: geometric edge cases: log(1 - p), p = 1, exact ratios, saturation") {
  // log(1 - p) (DistDef<geometric>, from log_unit with Goldberg's log1p
  // correction) against log1pl over p = m 2^-e, e in [1, 60), p < 1.
  Largest lerr;
  for (uint64_t i = 0; i < 200000; ++i) {
    const double p = std::ldexp(1.0 + static_cast<double>(splitmix(i) >> 12) * 0x1p-52, -1 - static_cast<int>(splitmix(i + 999999) % 59));
    const double got = xrng::make_plan(Dist::geometric, DType::f64, DrawParams::probability(p)).geometric.log1m_p;
    const long double ex = log1pl(-static_cast<long double>(p));
    lerr.add(static_cast<double>(fabsl(got - ex) * inv_ulp64(ex)), i);
  }
  MESSAGE("log(1 - p) over 200000 p in [2^-60, 1): max error ", fmt(lerr.v), " double ulps");
  // log_unit(1 - p) within 1 ulp, then p / (1 - (1 - p)) and the product:
  // two more roundings and the first-order error of the correction.
  CHECK(lerr.v <= 3.0);

  // p = 1: every element is 1, without a log.
  const xrng::Plan one = xrng::make_plan(Dist::geometric, DType::i64, DrawParams::probability(1.0));
  CHECK(one.geometric.certain);
  for (uint64_t w : {uint64_t{0}, uint64_t{1}, uint64_t{0xffffffff}})
    CHECK(xrng::dist::geometric_value<32>(w, one.geometric) == 1.0);

  // Where u = (1 - p)^j exactly, R = j is an integer and k = j is the exact
  // answer; the double R can land on either side. Word 0 (u = 2^-33):
  // p = 1/2 gives R = 33, p = 7/8 gives R = 11 ((1/8)^11 = 2^-33).
  const double k_half = xrng::dist::geometric_value<32>(0, xrng::make_plan(Dist::geometric, DType::f64, DrawParams::probability(0.5)).geometric);
  const double k_78 = xrng::dist::geometric_value<32>(0, xrng::make_plan(Dist::geometric, DType::f64, DrawParams::probability(0.875)).geometric);
  MESSAGE("word 0 (u = 2^-33): p = 1/2 gives k = ", k_half, " (exact 33), p = 7/8 gives k = ", k_78, " (exact 11)");
  CHECK(std::fabs(k_half - 33.0) <= 1.0);
  CHECK(std::fabs(k_78 - 11.0) <= 1.0);

  // Saturation and overflow: p = 1e-12 puts k up to 2.3e13 (i32 saturates
  // at 2^31 - 1, f16 becomes inf above 65504), the smallest p (2^-1074)
  // makes R overflow double: inf in float rows, the maximum in integer rows.
  const uint32_t w0 = 0;  // u = 2^-33: the largest k of the 32-bit rows
  const xrng::Plan p12_i32 = xrng::make_plan(Dist::geometric, DType::i32, DrawParams::probability(1e-12));
  const xrng::Plan p12_f16 = xrng::make_plan(Dist::geometric, DType::f16, DrawParams::probability(1e-12));
  CHECK(eval1<Row<Dist::geometric, DType::i32>>(&w0, p12_i32) == INT32_MAX);
  CHECK(eval1<Row<Dist::geometric, DType::f16>>(&w0, p12_f16) == 0x7c00u);
  const double tiny = 0x1p-1074;
  const uint32_t w2[2] = {0, 0};
  CHECK(eval1<Row<Dist::geometric, DType::i64>>(w2, xrng::make_plan(Dist::geometric, DType::i64, DrawParams::probability(tiny))) == INT64_MAX);
  CHECK(eval1<Row<Dist::geometric, DType::i32>>(&w0, xrng::make_plan(Dist::geometric, DType::i32, DrawParams::probability(tiny))) == INT32_MAX);
  CHECK(std::isinf(eval1<Row<Dist::geometric, DType::f64>>(w2, xrng::make_plan(Dist::geometric, DType::f64, DrawParams::probability(tiny)))));
  CHECK(std::isinf(eval1<Row<Dist::geometric, DType::f32>>(&w0, xrng::make_plan(Dist::geometric, DType::f32, DrawParams::probability(tiny)))));
  // The largest word (u = 1 - 2^-33) gives the smallest k: R = 2^-33 / 1e-12
  // = 116.4..., clear of integers, so k is exactly ceil(R).
  const uint32_t wmax = 0xffffffffu;
  const long double r_max = log_ref(wmax, 32) / log1pl(-1e-12L);
  CHECK(eval1<Row<Dist::geometric, DType::i32>>(&wmax, p12_i32) == static_cast<int32_t>(ceill(r_max)));
  CHECK(ceill(r_max) == 117.0L);
}

// ---- Cauchy: tan(pi (u - 1/2)) ----------------------------------------------------------------------

namespace {
// The tan reference for the 2^32-word sweep. Word w is the angle k pi 2^-33,
// k = 2w + 1 - 2^32, an odd integer in (-2^32, 2^32). For v = 2j + 1 <
// 2^31 and x = pi v 2^-33 <= pi/4, (sin x, cos x) give the references of
// four words:
//   k = v: tan x,  k = -v: -tan x,  k = 2^32 - v: cot x,  k = v - 2^32: -cot x.
// For a block of kBlock consecutive j from j0, sincosl is called once, at
// x0 = pi (2 j0 + 1) 2^-33, and x0 + i h (h = pi 2^-32) follows by the
// angle-addition formulas with a table of (sin, cos)(i h): every term is
// positive or small (x <= pi/4), so the relative error stays near 2^-63.
// The test "block reference == direct reference" checks it.
struct TanTable {
  long double s[kBlock], c[kBlock];
  TanTable() {
    for (uint64_t i = 0; i < kBlock; ++i) sincosl(kPiL * ldexpl(static_cast<long double>(i), -32), &s[i], &c[i]);
  }
};
const TanTable kTanTable;
void tan_ref_block(uint64_t j0, long double t[kBlock], long double ct[kBlock]) {
  long double s0, c0;
  sincosl(kPiL * ldexpl(static_cast<long double>(2 * j0 + 1), -33), &s0, &c0);
  for (uint64_t i = 0; i < kBlock; ++i) {
    const long double s = s0 * kTanTable.c[i] + c0 * kTanTable.s[i];
    const long double c = c0 * kTanTable.c[i] - s0 * kTanTable.s[i];
    t[i] = s / c;
    ct[i] = c / s;
  }
}
// The four words of v, in the order tan x, -tan x, cot x, -cot x.
void tan_words(uint64_t v, uint64_t w[4]) {
  const uint64_t two32 = uint64_t{1} << 32;
  w[0] = (two32 + v - 1) / 2;
  w[1] = (two32 - v - 1) / 2;
  w[2] = (2 * two32 - v - 1) / 2;
  w[3] = (v - 1) / 2;
}
}  // namespace

TEST_CASE("accuracy: the block tan reference equals the direct one") {
  // tan_ref (sincos_ref of the same integer angle) on every word of 3000
  // random blocks and of the first and last block: relative difference
  // below 2^-60; tan_words maps onto all four quadrants' words.
  long double worst = 0;
  uint64_t out_of_range = 0;
  const uint64_t blocks = (uint64_t{1} << 30) / kBlock;
  for (uint64_t k = 0; k < 3002; ++k) {
    const uint64_t b = k == 0 ? 0 : k == 1 ? blocks - 1 : splitmix(k) % blocks;
    long double t[kBlock], ct[kBlock];
    tan_ref_block(b * kBlock, t, ct);
    for (uint64_t i = 0; i < kBlock; ++i) {
      uint64_t w[4];
      tan_words(2 * (b * kBlock + i) + 1, w);
      const long double ref[4] = {t[i], -t[i], ct[i], -ct[i]};
      for (int q = 0; q < 4; ++q) {
        out_of_range += w[q] >= (uint64_t{1} << 32);
        const long double d = tan_ref(w[q], 32);
        worst = std::max(worst, fabsl(ref[q] - d) / fabsl(d));
      }
    }
  }
  MESSAGE("block vs direct tan reference: max relative difference 2^", std::log2(static_cast<double>(worst)));
  CHECK(worst < 0x1p-60L);
  CHECK(out_of_range == 0);
}

TEST_CASE("accuracy: tan(pi (u - 1/2)) (Cauchy) over 2^32 words") {
  // [0] tan_centered<32> in double ulps, [1] it rounded to binary32 (the
  // cauchy f32 value for median 0, sigma 1) in float ulps, [2].count: mirror
  // words (k and -k) whose values are not exactly opposite, [3].count: words
  // checked, [3].exact_zero: words (every 16th block) where the cauchy f32
  // row (0, 1) differs from the rounded tan_centered.
  const xrng::Plan c01 = xrng::make_plan(Dist::cauchy, DType::f32, DrawParams::location_scale(0.0, 1.0));
  const auto m = sweep<4>((uint64_t{1} << 30) / kBlock, kStride, [&](uint64_t blk, MaxErr* acc) {
    long double t[kBlock], ct[kBlock];
    tan_ref_block(blk * kBlock, t, ct);
    for (uint64_t i = 0; i < kBlock; ++i) {
      uint64_t w[4];
      tan_words(2 * (blk * kBlock + i) + 1, w);
      const long double ref[4] = {t[i], -t[i], ct[i], -ct[i]};
      double tv[4];
      for (int q = 0; q < 4; ++q) {
        tv[q] = xrng::math::tan_centered<32, double, uint64_t>(w[q]);
        acc[0].add(tv[q], ref[q], inv_ulp64(ref[q]), w[q]);
        acc[1].add(static_cast<float>(tv[q]), ref[q], inv_ulp32(ref[q]), w[q]);
        if (blk % 16 == 0) {
          const uint32_t w32 = static_cast<uint32_t>(w[q]);
          acc[3].exact_zero += eval1<Row<Dist::cauchy, DType::f32>>(&w32, c01) != static_cast<float>(tv[q]);
        }
      }
      acc[2].count += (tv[0] != -tv[1]) + (tv[2] != -tv[3]);
    }
    acc[3].count += 4 * kBlock;
  });
  MESSAGE("tan_centered<32>: max error ", fmt(m[0].err), " double ulps (word ", m[0].at, "), ", fmt(m[1].err),
          " float ulps after rounding to f32 = cauchy f32 (0, 1) (word ", m[1].at, "); words checked: ", m[3].count,
          "; mirror pairs not exactly opposite: ", m[2].count);
  if (kStride == 1) CHECK(m[3].count == (uint64_t{1} << 32));
  // sin and cos of sincos_turns are each within 2 ulp (the sincos test);
  // their quotient adds one rounding: within 2 + 2 + 0.5 ulp.
  CHECK(m[0].err <= 4.5);
  CHECK(m[1].err <= 0.5001);
  CHECK(m[3].exact_zero == 0);  // the (0, 1) row is the rounded tan_centered (0 + 1 * t is exact)
  // The reduction and the polynomials are odd in the angle, so the transform
  // is exactly odd: the Cauchy's median is exactly `median`.
  CHECK(m[2].count == 0);
  CHECK(m[0].exact_zero == 0);  // k is odd: never a zero angle
}

// ---- log-normal: exp_ -------------------------------------------------------------------------------

TEST_CASE("accuracy: exp_ in double: sweep, subnormal results, overflow and underflow, monotonicity") {
  // [0] normal results in double ulps; [1] subnormal results in ulps of the
  // subnormal grid (2^-1074), [1].count: results equal to the correctly
  // rounded value (double)expl(x); [2] overflow checks: .count counts x with
  // exp(x) beyond the double range, .exact_zero those that did not give inf;
  // [3].count: normal results equal to the correctly rounded value.
  // expl is the reference (64-bit significand; x is exact in long double).
  // Subnormal results: e = e^r is rounded to 53 bits and then once more by
  // the scaling, so the error is at most 1/2 ulp of the subnormal grid plus
  // e's own error (<= 1 ulp of 53 bits) scaled to that grid, 2^(ilogb(y) +
  // 1022) grid ulps: [4] is the largest excess over that bound (<= 2^-40,
  // the reference's own uncertainty, when the bound holds).
  const long double kOverflow = 0x1p1024L * (1.0L - 0x1p-54L);  // from here on, rounding gives inf
  auto body = [&](double x, uint64_t i, MaxErr* acc, Largest* excess) {
    const double y = xrng::math::exp_<double, uint64_t>(x);
    const long double ex = expl(static_cast<long double>(x));
    if (ex >= kOverflow) {
      ++acc[2].count;
      if (!std::isinf(y)) ++acc[2].exact_zero;
      return;
    }
    const double err = static_cast<double>(fabsl(y - ex) * inv_ulp64(ex));
    const bool cr = y == static_cast<double>(ex);
    if (ex < 0x1p-1022L) {
      acc[1].add(y, ex, inv_ulp64(ex), i);
      acc[1].count += cr;
      ++acc[5].count;
      excess->add(err - (0.5 + std::ldexp(1.0, std::max(exponent_of(ex) + 1022, -200))), i);
    } else {
      acc[0].add(y, ex, inv_ulp64(ex), i);
      acc[3].count += cr;
      ++acc[4].count;
    }
  };
  struct Acc {
    MaxErr e[6];  // [4].count, [5].count: points with normal, subnormal (or zero) results
    Largest excess;
    void merge(const Acc& o) {
      for (int i = 0; i < 6; ++i) e[i].merge(o.e[i]);
      excess.merge(o.excess);
    }
  };
  // The full range [-746, 710], evenly spaced, and the range whose results
  // are subnormal, [-745.2, -708.3] (exp(-708.3) is just above 2^-1022).
  const auto full = sweep<1, Acc>(kExpPoints, 1, [&](uint64_t i, Acc* a) {
    body(-746.0 + 1456.0 * ((static_cast<double>(i) + 0.5) / static_cast<double>(kExpPoints)), i, a->e, &a->excess);
  });
  const auto sub = sweep<1, Acc>(kExpSubPoints, 1, [&](uint64_t i, Acc* a) {
    body(-745.2 + 36.9 * ((static_cast<double>(i) + 0.5) / static_cast<double>(kExpSubPoints)), i, a->e, &a->excess);
  });
  const Acc& f = full[0];
  const Acc& s = sub[0];
  MESSAGE("exp_ over ", kExpPoints, " points in [-746, 710]: ", f.e[4].count, " normal results, max error ",
          fmt(f.e[0].err), " double ulps (point ", f.e[0].at, "), ", f.e[3].count, " correctly rounded; ", f.e[5].count,
          " subnormal or zero results, max error ", fmt(f.e[1].err), " grid ulps, ", f.e[1].count,
          " correctly rounded; ", f.e[2].count, " beyond the double range, ", f.e[2].exact_zero, " of them not inf");
  MESSAGE("exp_ over ", kExpSubPoints, " points in [-745.2, -708.3]: ", s.e[5].count,
          " subnormal or zero results, max error ", fmt(s.e[1].err), " grid ulps (point ", s.e[1].at, "), ",
          s.e[1].count, " correctly rounded; largest excess over 1/2 + e's error: ", s.excess.v);
  // e = 1 + (r + r^2 P(r)): the last addition rounds (1/2 ulp), the inner
  // fma (at most 1/4 ulp of e, |e - 1| < 0.42) and r = hi - lo (2^-55
  // absolute: 1/4 ulp of e below 1, 1/8 above) add below 1/2 ulp; the
  // scaling by 2^k is exact for normal results.
  CHECK(f.e[0].err <= 1.0);
  CHECK(f.e[2].exact_zero == 0);
  CHECK(f.excess.v <= 0x1p-40);
  CHECK(s.excess.v <= 0x1p-40);
  CHECK(s.e[1].err <= 1.0);

  // Exact values and the ends of the range. The thresholds come from expl:
  // the largest x whose exp(x) rounds below inf (DBL_MAX + ulp/2), and the
  // largest x whose exp(x) rounds to 0 (at most 2^-1075, a tie to even).
  CHECK(xrng::math::exp_<double, uint64_t>(0.0) == 1.0);
  CHECK(xrng::math::exp_<double, uint64_t>(-0.0) == 1.0);
  auto bisect = [](double lo, double hi, auto below) {  // largest x in [lo, hi) with below(x)
    while (std::nextafter(lo, hi) < hi) {
      const double mid = lo + (hi - lo) / 2;
      (below(mid) ? lo : hi) = mid;
    }
    return lo;
  };
  const double x_max = bisect(709.0, 710.0, [&](double x) { return expl(static_cast<long double>(x)) < kOverflow; });
  const double x_zero = bisect(-746.0, -745.0, [](double x) { return expl(static_cast<long double>(x)) <= 0x1p-1075L; });
  const double y_max = xrng::math::exp_<double, uint64_t>(x_max);
  MESSAGE("last finite exp at x = ", fmt(x_max), ": exp_ = ", y_max, "; last zero at x = ", fmt(x_zero));
  CHECK(x_max == 0x1.62e42fefa39efp+9);   // 709.78271289338397, the double just below ln(DBL_MAX + ulp/2)
  CHECK(x_zero == -0x1.74910d52d3052p+9);  // -745.13321910194122, the double just below -1075 ln 2
  CHECK(std::isfinite(y_max));
  CHECK(static_cast<double>(fabsl(y_max - expl(static_cast<long double>(x_max))) * inv_ulp64(expl(static_cast<long double>(x_max)))) <= 1.0);
  for (double x : {std::nextafter(x_max, 1000.0), 709.9, 710.0, 1e300, static_cast<double>(INFINITY)})
    CHECK(xrng::math::exp_<double, uint64_t>(x) == INFINITY);
  const double y_zero = xrng::math::exp_<double, uint64_t>(x_zero);
  CHECK(y_zero == 0.0);
  CHECK(!std::signbit(y_zero));
  CHECK(xrng::math::exp_<double, uint64_t>(std::nextafter(x_zero, 0.0)) == 0x1p-1074);
  for (double x : {-745.5, -746.0, -1e300, static_cast<double>(-INFINITY)}) {
    const double y = xrng::math::exp_<double, uint64_t>(x);
    CHECK(y == 0.0);
    CHECK(!std::signbit(y));
  }
  // |x| below 2^-54: e^x rounds to 1 (x > 0: 1 + x is below 1 + ulp/2; x < 0: above 1 - ulp/4).
  for (int e = 54; e <= 1074; e += 20) {
    CHECK(xrng::math::exp_<double, uint64_t>(std::ldexp(1.0, -e)) == 1.0);
    CHECK(xrng::math::exp_<double, uint64_t>(-std::ldexp(1.0, -e)) == 1.0);
  }

  // Monotonicity on consecutive doubles where it can break: around every
  // change of k (x near (k + 1/2) ln 2, where the reduced r jumps from about
  // +ln2/2 to -ln2/2), 300 doubles on each side (each window must contain
  // the change of k, or it tests nothing); and around x = +-2^-e, e = 1..60,
  // 100 doubles on each side, where r is x itself.
  uint64_t decreasing = 0, windows_without_switch = 0, steps = 0;
  auto walk = [&](double x0, int half) {  // consecutive doubles x0 - half ulps .. x0 + half ulps
    double x = x0;
    for (int i = 0; i < half; ++i) x = std::nextafter(x, -INFINITY);
    const double first = x;
    double prev = xrng::math::exp_<double, uint64_t>(x);
    for (int i = 0; i < 2 * half; ++i) {
      x = std::nextafter(x, INFINITY);
      const double y = xrng::math::exp_<double, uint64_t>(x);
      decreasing += y < prev;
      prev = y;
      ++steps;
    }
    return exp_k(first) != exp_k(x);
  };
  for (int k = -1076; k <= 1023; ++k) windows_without_switch += !walk((k + 0.5) * 0x1.62e42fefa39efp-1, 300);
  for (int e = 1; e <= 60; ++e) {
    walk(std::ldexp(1.0, -e), 100);
    walk(-std::ldexp(1.0, -e), 100);
  }
  MESSAGE("monotonicity: ", steps, " steps between consecutive doubles, ", decreasing, " decreasing; ",
          windows_without_switch, " of 2100 windows without a change of k");
  CHECK(windows_without_switch == 0);
  CHECK(decreasing == 0);
}

TEST_CASE("accuracy: f32 rows with a location and a scale: cauchy (-2, 0.5)") {
  // median + sigma tan in binary64, rounded once. Where the result is far
  // smaller than its terms (tan near 4 here) the binary64 error of the terms
  // (tan within 4.5 ulp, the product and sum 1/2 ulp each) is no longer small
  // against the result's float ulp, as for any location-scale family. Bound:
  // |got - exact| <= 1/2 ulp32(exact) + 2^-24 ulp32(|median| + |sigma tan|),
  // the second term being 8 times the binary64 error of the terms (5.5 ulp of
  // 2^-53 relative is 2^-26.5 float ulps). [0]: error in float ulps of the
  // result; [1]: largest excess over the bound, in float ulps of the terms.
  const xrng::Plan c = xrng::make_plan(Dist::cauchy, DType::f32, DrawParams::location_scale(-2.0, 0.5));
  struct Acc {
    MaxErr err;
    Largest excess;
    void merge(const Acc& o) {
      err.merge(o.err);
      excess.merge(o.excess);
    }
  };
  // Word 3960049481 has tan = 4.000000003 (u = 1/2 + atan(4)/pi = 0.92202...):
  // the result crosses 0 there; half the inputs are within 10^4 words of it.
  const uint64_t w_cross = 3960049481u;
  CHECK(std::fabs(static_cast<double>(tan_ref(w_cross, 32)) - 4.0) < 1e-8);
  const auto m = sweep<1, Acc>(kPairsF32 / 10, 1, [&](uint64_t i, Acc* acc) {
    const uint64_t w = i % 2 ? splitmix(i) & 0xffffffffu : w_cross + (splitmix(i) % 20000) - 10000;
    const uint32_t w32 = static_cast<uint32_t>(w);
    const long double t = tan_ref(w, 32), ex = -2.0L + 0.5L * t;
    const float y = eval1<Row<Dist::cauchy, DType::f32>>(&w32, c);
    acc->err.add(y, ex, inv_ulp32(ex), w);
    const long double terms = 2.0L + fabsl(0.5L * t);
    acc->excess.add(static_cast<double>((fabsl(y - ex) - 0.5L / inv_ulp32(ex)) * inv_ulp32(terms)), w);
  });
  MESSAGE("cauchy f32 (-2, 0.5) over ", kPairsF32 / 10, " words: max error ", fmt(m[0].err.err), " float ulps (word ",
          m[0].err.at, "); largest excess over 1/2 ulp: ", m[0].excess.v, " float ulps of |median| + |sigma tan| (word ",
          m[0].excess.at, ")");
  CHECK(m[0].excess.v <= 0x1p-24);
}

// ---- f64 rows of the newer distributions ------------------------------------------------------------

namespace {
// p of the f64 / i64 geometric rows: near 1, typical, small, tiny (i64 saturates for 1e-300 at k > 2^63)
constexpr double kGeoP64[] = {0.999999, 0.3, 1e-4, 1e-12, 1e-300};
constexpr int kGeoN64 = 5;
struct RowsAcc {
  MaxErr e[5];  // exponential rate 1, 2.5; cauchy; log_normal z0, z1 (double ulps)
  Largest ln_excess;  // log_normal: largest excess of the error over 1 + 8 |z| ulps
  GeoErr g[kGeoN64], gi[kGeoN64];
  void merge(const RowsAcc& o) {
    for (int i = 0; i < 5; ++i) e[i].merge(o.e[i]);
    ln_excess.merge(o.ln_excess);
    for (int i = 0; i < kGeoN64; ++i) {
      g[i].merge(o.g[i]);
      gi[i].merge(o.gi[i]);
    }
  }
};
}  // namespace

TEST_CASE("accuracy: f64 rows of exponential, geometric, log_normal, cauchy on random words") {
  // Each row's element function (Row<...>::eval) on random words against long
  // double references, in double ulps: exponential -log(u)/rate, u = (m +
  // 1/2) 2^-52; cauchy tan(pi (u - 1/2)); log_normal exp(z) with z the exact
  // normal; geometric (f64 and saturating i64) against ceil(R) as above.
  const xrng::Plan e1 = xrng::make_plan(Dist::exponential, DType::f64, DrawParams::with_rate(1.0));
  const xrng::Plan e25 = xrng::make_plan(Dist::exponential, DType::f64, DrawParams::with_rate(2.5));
  const xrng::Plan c01 = xrng::make_plan(Dist::cauchy, DType::f64, DrawParams::location_scale(0.0, 1.0));
  const xrng::Plan ln01 = xrng::make_plan(Dist::log_normal, DType::f64, DrawParams::moments(0.0, 1.0));
  xrng::Plan gf[kGeoN64], gi[kGeoN64];
  long double log1m_p[kGeoN64];
  for (int j = 0; j < kGeoN64; ++j) {
    gf[j] = xrng::make_plan(Dist::geometric, DType::f64, DrawParams::probability(kGeoP64[j]));
    gi[j] = xrng::make_plan(Dist::geometric, DType::i64, DrawParams::probability(kGeoP64[j]));
    log1m_p[j] = log1pl(-static_cast<long double>(kGeoP64[j]));
  }
  const auto m = sweep<1, RowsAcc>(kPairsF64, 1, [&](uint64_t i, RowsAcc* acc) {
    const uint64_t a = splitmix(2 * i), b = splitmix(2 * i + 1);
    const uint32_t w[4] = {static_cast<uint32_t>(a), static_cast<uint32_t>(a >> 32), static_cast<uint32_t>(b),
                           static_cast<uint32_t>(b >> 32)};
    const long double L = log_ref(a >> 12, 52);
    acc->e[0].add(eval1<Row<Dist::exponential, DType::f64>>(w, e1), -L, inv_ulp64(-L), i);
    acc->e[1].add(eval1<Row<Dist::exponential, DType::f64>>(w, e25), -L / 2.5L, inv_ulp64(-L / 2.5L), i);
    const long double t = tan_ref(a >> 12, 52);
    acc->e[2].add(eval1<Row<Dist::cauchy, DType::f64>>(w, c01), t, inv_ulp64(t), i);
    double y[2];
    Row<Dist::log_normal, DType::f64>::eval(w, ln01, y);
    const long double r = radius_ref(a >> 12, 52);
    long double c, s;
    sincos_ref(b >> 12, 52, &c, &s);
    const long double z0 = r * c, z1 = r * s, g0 = expl(z0), g1 = expl(z1);
    acc->e[3].add(y[0], g0, inv_ulp64(g0), i);
    acc->e[4].add(y[1], g1, inv_ulp64(g1), i);
    // exp_ passes z's relative error times |z| on: with z within 4 ulp
    // (normal f64) that is up to 8 |z| ulp of the result, plus exp_'s own 1 ulp.
    acc->ln_excess.add(static_cast<double>(fabsl(y[0] - g0) * inv_ulp64(g0) - (1.0L + 8.0L * fabsl(z0))), i);
    acc->ln_excess.add(static_cast<double>(fabsl(y[1] - g1) * inv_ulp64(g1) - (1.0L + 8.0L * fabsl(z1))), i);
    for (int j = 0; j < kGeoN64; ++j) {
      const long double R = L / log1m_p[j];
      acc->g[j].add(eval1<Row<Dist::geometric, DType::f64>>(w, gf[j]), R, i);
      acc->gi[j].add(static_cast<long double>(eval1<Row<Dist::geometric, DType::i64>>(w, gi[j])),
                     std::min(R, static_cast<long double>(INT64_MAX)), i);
    }
  });
  const RowsAcc& a = m[0];
  MESSAGE("f64 rows over ", kPairsF64, " inputs (double ulps): exponential rate 1 ", fmt(a.e[0].err), ", rate 2.5 ",
          fmt(a.e[1].err), "; cauchy ", fmt(a.e[2].err), " (input ", a.e[2].at, "); log_normal z0 ", fmt(a.e[3].err),
          ", z1 ", fmt(a.e[4].err), " (largest excess over 1 + 8|z|: ", a.ln_excess.v, ")");
  CHECK(a.e[0].err <= 1.0);  // log_unit within 1 ulp, negation exact
  // A division by the rate: the log's relative error (up to 2^-52) is up to
  // 2 ulps of a quotient at the top of its binade, plus half an ulp.
  CHECK(a.e[1].err <= 2.5);
  CHECK(a.e[2].err <= 4.5);  // sin, cos within 2 ulp each, one division
  CHECK(a.ln_excess.v <= 0.0);
  for (int j = 0; j < kGeoN64; ++j) {
    MESSAGE("geometric f64, p = ", kGeoP64[j], ": ", a.g[j].summary());
    MESSAGE("geometric i64, p = ", kGeoP64[j], ": ", a.gi[j].summary());
    CHECK(!a.g[j].out_of_bound);
    CHECK(!a.gi[j].out_of_bound);
  }
  CHECK(a.gi[kGeoN64 - 1].kmax == static_cast<long double>(INT64_MAX));  // p = 1e-300 saturates
}
