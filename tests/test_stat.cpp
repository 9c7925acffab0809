// Statistical suite (label "stat"): fixed seeds, explicit thresholds. Every
// threshold is a tail probability of the test statistic under the null
// hypothesis; with fixed seeds a test is deterministic, so a failure is a
// property of the stream, never bad luck to be retried with another seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "host/xrng.h"
#include "stat_util.h"

using xrng::Dist;
using xrng::DrawParams;
using xrng::DType;
using xrng_test::chi2;
using xrng_test::chi2_critical;

namespace {

const xrng::FillOptions kOpt{xrng::Backend::automatic, 2};

// Kolmogorov: P(sqrt(n) D > 1.95) = 0.001 (asymptotically). Fifteen KS
// tests run in the suite, so a correct stream fails one with probability
// about 1.5%; with the fixed seeds the outcome is fixed.
constexpr double kKsMax = 1.95;
// Moments: |sample mean of x^k - E[x^k]| < 5 standard errors, the standard
// error being the exact sqrt(Var(x^k) / n) of the target law (a two-sided
// 5-sigma band: 5.7e-7 per check).
constexpr double kMomentSigmas = 5.0;
// Chi-square: reject above the Wilson-Hilferty quantile at z = 4 (3.2e-5).
constexpr double kChi2Z = 4.0;

template <class T>
std::vector<T> draw(Dist d, DType t, const DrawParams& q, uint64_t seed, uint64_t n) {
  std::vector<T> v(n);
  xrng::fill(xrng::make_plan(d, t, q), xrng::Key(seed), 0, 0, n, v.data(), kOpt);
  return v;
}

// Checks E[x^k] for k = 1..4 against exact values, with exact variances
// Var(x^k) = E[x^2k] - E[x^k]^2 from the moments `m` (m[k] = E[x^k], k <= 8).
void check_moments(const xrng_test::Moments& s, const double m[9], const std::string& what) {
  for (int k = 1; k <= 4; ++k) {
    const double se = std::sqrt((m[2 * k] - m[k] * m[k]) / static_cast<double>(s.n));
    const double got = s.mean(k);
    MESSAGE(what, ": E[x^", k, "] = ", got, " (expected ", m[k], ", ", (got - m[k]) / se, " standard errors)");
    CHECK(std::fabs(got - m[k]) < kMomentSigmas * se);
  }
}

}  // namespace

TEST_SUITE("stat") {

TEST_CASE("uniform f32/f64: KS and moments, n = 10^7") {
  const uint64_t n = 10000000;
  // E[u^k] = 1/(k+1) for u uniform on [0, 1)
  double m[9];
  for (int k = 0; k <= 8; ++k) m[k] = 1.0 / (k + 1);
  {
    std::vector<float> u = draw<float>(Dist::uniform, DType::f32, {}, 1001, n);
    xrng_test::Moments s;
    s.add(u);
    check_moments(s, m, "uniform f32");
    CHECK(*std::min_element(u.begin(), u.end()) >= 0.0f);
    CHECK(*std::max_element(u.begin(), u.end()) < 1.0f);
    const double k = xrng_test::ks_sqrt_n_d(u, [](double x) { return x; });
    MESSAGE("uniform f32: sqrt(n) D = ", k);
    CHECK(k < kKsMax);
  }
  {
    std::vector<double> u = draw<double>(Dist::uniform, DType::f64, {}, 1002, n);
    xrng_test::Moments s;
    s.add(u);
    check_moments(s, m, "uniform f64");
    const double k = xrng_test::ks_sqrt_n_d(u, [](double x) { return x; });
    MESSAGE("uniform f64: sqrt(n) D = ", k);
    CHECK(k < kKsMax);
  }
  {  // an affine range: KS against the CDF of U[-3, 5)
    DrawParams q;
    q.low = -3;
    q.high = 5;
    std::vector<float> u = draw<float>(Dist::uniform, DType::f32, q, 1003, n);
    const double k = xrng_test::ks_sqrt_n_d(u, [](double x) { return (x + 3.0) / 8.0; });
    MESSAGE("uniform f32 [-3, 5): sqrt(n) D = ", k);
    CHECK(k < kKsMax);
  }
}

TEST_CASE("normal f32/f64: KS and moments, n = 10^7") {
  const uint64_t n = 10000000;
  // E[z^k] for k = 0..8: 1, 0, 1, 0, 3, 0, 15, 0, 105
  const double m[9] = {1, 0, 1, 0, 3, 0, 15, 0, 105};
  {
    std::vector<float> z = draw<float>(Dist::normal, DType::f32, {}, 2001, n);
    xrng_test::Moments s;
    s.add(z);
    check_moments(s, m, "normal f32");
    const double k = xrng_test::ks_sqrt_n_d(z, xrng_test::normal_cdf);
    MESSAGE("normal f32: sqrt(n) D = ", k);
    CHECK(k < kKsMax);
  }
  {
    std::vector<double> z = draw<double>(Dist::normal, DType::f64, {}, 2002, n);
    xrng_test::Moments s;
    s.add(z);
    check_moments(s, m, "normal f64");
    const double k = xrng_test::ks_sqrt_n_d(z, xrng_test::normal_cdf);
    MESSAGE("normal f64: sqrt(n) D = ", k);
    CHECK(k < kKsMax);
  }
  {  // mean and std: KS of (z - mean) / std, odd elements only (the sin half of each pair)
    DrawParams q;
    q.mean = 10.0;
    q.std = 3.0;
    std::vector<float> z = draw<float>(Dist::normal, DType::f32, q, 2003, n);
    std::vector<double> odd;
    odd.reserve(n / 2);
    for (size_t i = 1; i < z.size(); i += 2) odd.push_back((static_cast<double>(z[i]) - 10.0) / 3.0);
    const double k = xrng_test::ks_sqrt_n_d(odd, xrng_test::normal_cdf);
    MESSAGE("normal f32 (10, 3) sin half: sqrt(n) D = ", k);
    CHECK(k < kKsMax);
  }
}

TEST_CASE("normal f32: tail frequencies beyond 4, 5 and 6 sigma") {
  // 2^30 values in chunks. The count beyond x is Poisson (binomial with tiny
  // p) with mean lambda = n P(|Z| > x); we accept |count - lambda| <= 5
  // sqrt(lambda) + 3, a bound a Poisson variable exceeds with probability
  // below 1e-5 for the lambdas here (about 68000, 616 and 2).
  const uint64_t n = uint64_t{1} << 30, chunk = uint64_t{1} << 22;
  const xrng::Plan p = xrng::make_plan(Dist::normal, DType::f32, {});
  std::vector<float> z(chunk);
  uint64_t c4 = 0, c5 = 0, c6 = 0;
  float zmax = 0;
  for (uint64_t s = 0; s < n; s += chunk) {
    xrng::fill(p, xrng::Key(3001), 0, s, chunk, z.data(), kOpt);
    for (float v : z) {
      const float a = std::fabs(v);
      c4 += a > 4.0f;
      c5 += a > 5.0f;
      c6 += a > 6.0f;
      zmax = std::max(zmax, a);
    }
  }
  const double nd = static_cast<double>(n);
  const double l4 = nd * std::erfc(4.0 / std::sqrt(2.0)), l5 = nd * std::erfc(5.0 / std::sqrt(2.0)),
               l6 = nd * std::erfc(6.0 / std::sqrt(2.0));
  MESSAGE("n = 2^30: |z| > 4: ", c4, " (expected ", l4, "); |z| > 5: ", c5, " (expected ", l5, "); |z| > 6: ", c6,
          " (expected ", l6, "); max |z| = ", zmax);
  CHECK(std::fabs(static_cast<double>(c4) - l4) <= 5.0 * std::sqrt(l4) + 3.0);
  CHECK(std::fabs(static_cast<double>(c5) - l5) <= 5.0 * std::sqrt(l5) + 3.0);
  CHECK(std::fabs(static_cast<double>(c6) - l6) <= 5.0 * std::sqrt(l6) + 3.0);
}

TEST_CASE("normal f32 reaches |z| > 6.5: the radius of word 0") {
  // u = (0 + 1/2) 2^-32 gives the largest radius, sqrt(66 ln 2) = 6.7636...
  const double r0 = xrng::math::box_muller_radius<32, double, uint64_t>(uint64_t{0});
  MESSAGE("radius(word 0) = ", r0);
  CHECK(r0 >= 6.5);
  CHECK(r0 == doctest::Approx(std::sqrt(66.0 * std::log(2.0))).epsilon(1e-15));
  // and the element function passes it through: angle word 0 is cos = 1, sin = 0
  float out[2];
  xrng::dist::normal_f32(0u, 0u, xrng::NormalParams{}, out);
  CHECK(out[0] >= 6.5f);
  CHECK(out[1] == 0.0f);
  // angle word 2^31 (half a turn): z0 = -r
  xrng::dist::normal_f32(0u, 0x80000000u, xrng::NormalParams{}, out);
  CHECK(out[0] <= -6.5f);
}

TEST_CASE("bernoulli: chi-square for several p") {
  const uint64_t n = 10000000;
  for (double p : {0.5, 0.3, 0.1, 0.9, 0.001}) {
    DrawParams q;
    q.p = p;
    const std::vector<uint8_t> b = draw<uint8_t>(Dist::bernoulli, DType::u8, q, 4001, n);
    std::vector<uint64_t> obs(2, 0);
    uint64_t other = 0;
    for (uint8_t x : b) {
      if (x > 1) ++other;  // counted, asserted once (an assertion per element costs minutes)
      else ++obs[x];
    }
    REQUIRE(other == 0);
    const std::vector<double> exp = {n * (1 - p), n * p};
    const double c = chi2(obs, exp);
    MESSAGE("bernoulli p = ", p, ": ones ", obs[1], " (expected ", exp[1], "), chi2 = ", c, " (df 1, limit ",
            chi2_critical(1, kChi2Z), ")");
    CHECK(c < chi2_critical(1, kChi2Z));
  }
  // p = 0 and p = 1 are exact
  DrawParams z;
  z.p = 0.0;
  for (uint8_t x : draw<uint8_t>(Dist::bernoulli, DType::u8, z, 4002, 100000)) REQUIRE(x == 0);
  z.p = 1.0;
  for (uint8_t x : draw<uint8_t>(Dist::bernoulli, DType::u8, z, 4002, 100000)) REQUIRE(x == 1);
}

TEST_CASE("randint: chi-square on small ranges") {
  const uint64_t n = 10000000;
  struct R {
    int64_t lo, hi;
  };
  for (DType t : {DType::i32, DType::i64}) {
    for (const R& r : {R{0, 2}, R{0, 3}, R{0, 7}, R{0, 10}, R{-5, 5}, R{-1000, -1}, R{0, 1000}}) {
      DrawParams q;
      q.ilow = r.lo;
      q.ihigh = r.hi;
      const uint64_t range = static_cast<uint64_t>(r.hi - r.lo);
      std::vector<uint64_t> obs(range, 0);
      uint64_t outside = 0;
      if (t == DType::i32) {
        for (int32_t x : draw<int32_t>(Dist::randint, t, q, 5001 + range + 7919 * static_cast<uint64_t>(r.lo + 1000), n)) {
          if (x < r.lo || x >= r.hi) ++outside;  // counted, asserted once below (an assertion per element costs minutes)
          else ++obs[x - r.lo];
        }
      } else {
        for (int64_t x : draw<int64_t>(Dist::randint, t, q, 5002 + range + 7919 * static_cast<uint64_t>(r.lo + 1000), n)) {
          if (x < r.lo || x >= r.hi) ++outside;  // counted, asserted once below (an assertion per element costs minutes)
          else ++obs[x - r.lo];
        }
      }
      REQUIRE(outside == 0);
      const std::vector<double> exp(range, static_cast<double>(n) / range);
      const double c = chi2(obs, exp), lim = chi2_critical(range - 1.0, kChi2Z);
      MESSAGE("randint ", std::string(xrng::dtype_name(t)), " [", r.lo, ", ", r.hi, "): chi2 = ", c, " (df ", range - 1, ", limit ",
              lim, ")");
      CHECK(c < lim);
    }
  }
  // the extremes of the full i64 range are reachable in principle; here we
  // check the sign balance of the full range: P(x < 0) = 2^63 / (2^64 - 1)
  DrawParams f;
  f.ilow = INT64_MIN;
  f.ihigh = INT64_MAX;
  uint64_t neg = 0;
  for (int64_t x : draw<int64_t>(Dist::randint, DType::i64, f, 5999, n)) neg += x < 0;
  const std::vector<uint64_t> obs = {neg, n - neg};
  const std::vector<double> exp = {n / 2.0, n / 2.0};
  CHECK(chi2(obs, exp) < chi2_critical(1, kChi2Z));
}

// Permutations on consecutive seeds (the "seed + epoch" recipe: related keys
// are the hard case for a keyed bijection).
TEST_CASE("permutation: chi-square of positions (value v at position i)") {
  struct C {
    uint64_t n, keys;
  };
  for (const C& c : {C{5, 100000}, C{10, 100000}, C{100, 20000}}) {
    const xrng::Plan p = xrng::make_plan(Dist::perm, DType::i64, [&] {
      DrawParams q;
      q.n = c.n;
      return q;
    }());
    std::vector<uint64_t> cnt(c.n * c.n, 0);
    std::vector<int64_t> v(c.n);
    for (uint64_t k = 0; k < c.keys; ++k) {
      xrng::fill(p, xrng::Key(6000 + k), 0, 0, c.n, v.data());
      for (uint64_t i = 0; i < c.n; ++i) ++cnt[i * c.n + v[i]];
    }
    const std::vector<double> exp(c.n * c.n, static_cast<double>(c.keys) / c.n);
    // rows and columns of the table each sum to `keys`: (n-1)^2 degrees of freedom
    const double df = static_cast<double>((c.n - 1) * (c.n - 1));
    const double x = chi2(cnt, exp), lim = chi2_critical(df, kChi2Z);
    MESSAGE("perm positions n = ", c.n, ", ", c.keys, " keys: chi2 = ", x, " (df ", df, ", limit ", lim, ")");
    CHECK(x < lim);
  }
}

TEST_CASE("permutation: chi-square of all orderings for n = 3, 4, 5") {
  struct C {
    uint64_t n, keys;
  };
  for (const C& c : {C{3, 60000}, C{4, 72000}, C{5, 120000}}) {
    DrawParams q;
    q.n = c.n;
    const xrng::Plan p = xrng::make_plan(Dist::perm, DType::i64, q);
    uint64_t fact = 1;
    for (uint64_t i = 2; i <= c.n; ++i) fact *= i;
    std::map<std::vector<int64_t>, uint64_t> seen;
    std::vector<int64_t> v(c.n);
    for (uint64_t k = 0; k < c.keys; ++k) {
      xrng::fill(p, xrng::Key(7000 + k), 0, 0, c.n, v.data());
      ++seen[v];
    }
    std::vector<uint64_t> obs;
    for (const auto& kv : seen) obs.push_back(kv.second);
    obs.resize(fact, 0);  // orderings never seen count as 0
    const std::vector<double> exp(fact, static_cast<double>(c.keys) / fact);
    const double x = chi2(obs, exp), lim = chi2_critical(fact - 1.0, kChi2Z);
    const auto mm = std::minmax_element(obs.begin(), obs.end());
    MESSAGE("perm orderings n = ", c.n, ", ", c.keys, " keys: ", seen.size(), " of ", fact,
            " orderings seen, counts in [", *mm.first, ", ", *mm.second, "] (expected ", exp[0], "), chi2 = ", x,
            " (df ", fact - 1, ", limit ", lim, ")");
    CHECK(seen.size() == fact);
    CHECK(x < lim);
  }
}

TEST_CASE("permutation: positions of values for n = 10^6 across keys") {
  // For each of a few values v, the position of v under 100000 keys, binned
  // into 100 equal bins (expected 1000 per bin); likewise the value at a few
  // positions. Chi-square with 99 degrees of freedom.
  const uint64_t n = 1000000, keys = 100000, bins = 100;
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{500000}, n - 1}) {
    std::vector<uint64_t> pos(bins, 0), val(bins, 0);
    for (uint64_t k = 0; k < keys; ++k) {
      const xrng::Key key(8000 + k);
      ++pos[xrng::perm_position(key, 0, n, v) / (n / bins)];
      ++val[xrng::perm_element(key, 0, n, v) / (n / bins)];
    }
    const std::vector<double> exp(bins, static_cast<double>(keys) / bins);
    const double xp = chi2(pos, exp), xv = chi2(val, exp), lim = chi2_critical(bins - 1.0, kChi2Z);
    MESSAGE("perm n = 10^6, v = ", v, ": chi2(position of v) = ", xp, ", chi2(value at position v) = ", xv,
            " (df 99, limit ", lim, ")");
    CHECK(xp < lim);
    CHECK(xv < lim);
  }
}

// ---- exponential, geometric, log-normal, Cauchy ------------------------------------------------

TEST_CASE("exponential f32/f64: KS, moments, tail frequencies") {
  const uint64_t n = 10000000;
  // E[x^k] = k! / rate^k
  double m[9];
  m[0] = 1;
  for (int k = 1; k <= 8; ++k) m[k] = m[k - 1] * k;
  {
    std::vector<float> x = draw<float>(Dist::exponential, DType::f32, DrawParams::with_rate(1.0), 9001, n);
    xrng_test::Moments s;
    s.add(x);
    check_moments(s, m, "exponential f32");
    CHECK(*std::min_element(x.begin(), x.end()) > 0.0f);
    const double k = xrng_test::ks_sqrt_n_d(x, [](double v) { return xrng_test::exponential_cdf(v, 1.0); });
    MESSAGE("exponential f32: sqrt(n) D = ", k);
    CHECK(k < kKsMax);
  }
  {
    std::vector<double> x = draw<double>(Dist::exponential, DType::f64, DrawParams::with_rate(1.0), 9002, n);
    xrng_test::Moments s;
    s.add(x);
    check_moments(s, m, "exponential f64");
    const double k = xrng_test::ks_sqrt_n_d(x, [](double v) { return xrng_test::exponential_cdf(v, 1.0); });
    MESSAGE("exponential f64: sqrt(n) D = ", k);
    CHECK(k < kKsMax);
  }
  {  // the rate: mean 1 / 2.5 (5 standard errors, sd = mean) and KS against Exp(2.5)
    std::vector<float> x = draw<float>(Dist::exponential, DType::f32, DrawParams::with_rate(2.5), 9003, n);
    xrng_test::Moments s;
    s.add(x);
    const double se = 0.4 / std::sqrt(static_cast<double>(n));
    MESSAGE("exponential f32 rate 2.5: mean ", s.mean(1), " (expected 0.4, ", (s.mean(1) - 0.4) / se, " standard errors)");
    CHECK(std::fabs(s.mean(1) - 0.4) < kMomentSigmas * se);
    const double k = xrng_test::ks_sqrt_n_d(x, [](double v) { return xrng_test::exponential_cdf(v, 2.5); });
    MESSAGE("exponential f32 rate 2.5: sqrt(n) D = ", k);
    CHECK(k < kKsMax);
  }
  // Tails: P(X > t) = e^-t, counted over 2^28 values of the f32 row; the
  // largest value is -log(2^-33) = 22.87, so the counts beyond 20 (expected
  // 0.55) stay possible.
  const uint64_t big = uint64_t{1} << 28, chunk = uint64_t{1} << 22;
  const xrng::Plan p = xrng::make_plan(Dist::exponential, DType::f32, DrawParams::with_rate(1.0));
  std::vector<float> x(chunk);
  uint64_t c10 = 0, c15 = 0, c20 = 0;
  float xmax = 0;
  for (uint64_t st = 0; st < big; st += chunk) {
    xrng::fill(p, xrng::Key(9004), 0, st, chunk, x.data(), kOpt);
    for (float v : x) {
      c10 += v > 10.0f;
      c15 += v > 15.0f;
      c20 += v > 20.0f;
      xmax = std::max(xmax, v);
    }
  }
  const double nb = static_cast<double>(big);
  const double l10 = nb * std::exp(-10.0), l15 = nb * std::exp(-15.0), l20 = nb * std::exp(-20.0);
  MESSAGE("exponential f32, n = 2^28: > 10: ", c10, " (expected ", l10, "); > 15: ", c15, " (expected ", l15,
          "); > 20: ", c20, " (expected ", l20, "); max ", xmax);
  CHECK(xrng_test::poisson_count_ok(c10, l10));
  CHECK(xrng_test::poisson_count_ok(c15, l15));
  CHECK(xrng_test::poisson_count_ok(c20, l20));
  // The extremes: word 0 (u = 2^-33) gives 33 ln 2 = 22.8739, the f64 row's
  // words 0, 0 (u = 2^-53) give 53 ln 2 = 36.7368.
  const uint32_t w0[2] = {0, 0};
  float top32;
  xrng::Row<Dist::exponential, DType::f32, 1>::eval(w0, p, &top32);
  double top64;
  xrng::Row<Dist::exponential, DType::f64, 1>::eval(w0, xrng::make_plan(Dist::exponential, DType::f64, {}), &top64);
  MESSAGE("largest exponential: f32 ", top32, ", f64 ", top64);
  CHECK(top32 == static_cast<float>(33.0 * 0.69314718055994530942));
  CHECK(top64 == doctest::Approx(53.0 * 0.69314718055994530942).epsilon(1e-15));
}

namespace {
// Chi-square of geometric values against the exact law P(k) = (1 - p)^(k-1) p.
// Bins: each k on its own while it expects at least 1000 values (at most the
// first 30), then bins ending at ceil(log(1 - i/B) / log(1 - p)), i = 1 ..
// B - 1 (about B equal-probability bins; for a large p several coincide and
// merge), and a last, open bin. The smallest expected count is reported and
// checked (>= 100, so the chi-square law applies).
struct GeoChi2 {
  double chi2, limit;
  size_t bins;
  double min_expected;
  double mean;
  uint64_t bad;  // values that are not integers >= 1
};
template <class T>
GeoChi2 geometric_chi2(const std::vector<T>& x, double p, int B) {
  std::vector<double> ends;  // inclusive upper end of each bin but the last
  const double n = static_cast<double>(x.size());
  for (double k = 1; k <= 30 && n * std::pow(1.0 - p, k - 1) * p >= 1000.0; ++k) ends.push_back(k);
  for (int i = 1; i < B; ++i) {
    const double e = std::ceil(std::log1p(-static_cast<double>(i) / B) / std::log1p(-p));
    if (e >= 1 && (ends.empty() || e > ends.back())) ends.push_back(e);
  }
  std::vector<uint64_t> obs(ends.size() + 1, 0);
  long double sum = 0;
  uint64_t bad = 0;
  for (const T& v : x) {
    const double k = static_cast<double>(v);
    bad += !(k >= 1 && k == std::floor(k));
    sum += k;
    ++obs[std::lower_bound(ends.begin(), ends.end(), k) - ends.begin()];
  }
  // P(k <= e) = 1 - (1 - p)^e
  std::vector<double> exp(obs.size());
  double prev = 0;
  for (size_t i = 0; i < obs.size(); ++i) {
    const double cdf = i < ends.size() ? -std::expm1(ends[i] * std::log1p(-p)) : 1.0;
    exp[i] = static_cast<double>(x.size()) * (cdf - prev);
    prev = cdf;
  }
  return {chi2(obs, exp), chi2_critical(static_cast<double>(obs.size()) - 1.0, kChi2Z), obs.size(),
          *std::min_element(exp.begin(), exp.end()), static_cast<double>(sum / static_cast<long double>(x.size())), bad};
}
}  // namespace

TEST_CASE("geometric f32/i64: chi-square against the exact law for several p; mean") {
  const uint64_t n = 10000000;
  uint64_t seed = 10001;
  for (double p : {0.5, 0.3, 0.01, 1e-4}) {
    for (DType t : {DType::f32, DType::i64}) {
      const GeoChi2 g = t == DType::f32
                            ? geometric_chi2(draw<float>(Dist::geometric, t, DrawParams::probability(p), seed++, n), p, 50)
                            : geometric_chi2(draw<int64_t>(Dist::geometric, t, DrawParams::probability(p), seed++, n), p, 50);
      // mean 1/p, standard deviation sqrt(1 - p) / p
      const double se = std::sqrt(1.0 - p) / p / std::sqrt(static_cast<double>(n));
      MESSAGE("geometric ", std::string(xrng::dtype_name(t)), " p = ", p, ": chi2 = ", g.chi2, " (", g.bins,
              " bins, smallest expected count ", g.min_expected, ", limit ", g.limit, "); mean ", g.mean, " (expected ",
              1.0 / p, ", ", (g.mean - 1.0 / p) / se, " standard errors)");
      CHECK(g.bad == 0);
      CHECK(g.bins >= 10);
      CHECK(g.min_expected >= 100.0);
      CHECK(g.chi2 < g.limit);
      CHECK(std::fabs(g.mean - 1.0 / p) < kMomentSigmas * se);
    }
  }
  // p = 1: every trial succeeds
  for (int64_t k : draw<int64_t>(Dist::geometric, DType::i64, DrawParams::probability(1.0), 10099, 100000)) REQUIRE(k == 1);
}

TEST_CASE("log_normal f32/f64: KS and mean") {
  const uint64_t n = 10000000;
  struct C {
    DType t;
    double mean, std;
    uint64_t seed;
  };
  for (const C& c : {C{DType::f32, 0.0, 1.0, 11001}, C{DType::f64, 0.0, 1.0, 11002}, C{DType::f32, 1.0, 2.0, 11003}}) {
    std::vector<double> x;
    if (c.t == DType::f32) {
      const std::vector<float> f = draw<float>(Dist::log_normal, c.t, DrawParams::moments(c.mean, c.std), c.seed, n);
      x.assign(f.begin(), f.end());
    } else {
      x = draw<double>(Dist::log_normal, c.t, DrawParams::moments(c.mean, c.std), c.seed, n);
    }
    CHECK(*std::min_element(x.begin(), x.end()) > 0.0);
    // E[x] = exp(mean + std^2/2), Var = (exp(std^2) - 1) exp(2 mean + std^2)
    const double ex = std::exp(c.mean + c.std * c.std / 2);
    const double se = std::sqrt((std::exp(c.std * c.std) - 1.0) * std::exp(2 * c.mean + c.std * c.std) / n);
    long double sum = 0;
    for (double v : x) sum += v;
    const double got = static_cast<double>(sum / n);
    const double k = xrng_test::ks_sqrt_n_d(x, [&](double v) { return xrng_test::log_normal_cdf(v, c.mean, c.std); });
    MESSAGE("log_normal ", std::string(xrng::dtype_name(c.t)), " (", c.mean, ", ", c.std, "): sqrt(n) D = ", k, "; mean ",
            got, " (expected ", ex, ", ", (got - ex) / se, " standard errors)");
    CHECK(k < kKsMax);
    // (1, 2): the variance is finite but the law is so skewed (Var(x) / E[x]^2
    // = e^4 - 1 = 54) that the sample mean is far from normal; checked for (0, 1) only.
    if (c.std == 1.0) CHECK(std::fabs(got - ex) < kMomentSigmas * se);
  }
}

TEST_CASE("cauchy f32/f64: KS, median and quartiles, tail frequencies") {
  const uint64_t n = 10000000;
  struct C {
    DType t;
    double median, sigma;
    uint64_t seed;
  };
  for (const C& c : {C{DType::f32, 0.0, 1.0, 12001}, C{DType::f64, 0.0, 1.0, 12002}, C{DType::f32, -2.0, 0.5, 12003}}) {
    std::vector<double> x;
    if (c.t == DType::f32) {
      const std::vector<float> f = draw<float>(Dist::cauchy, c.t, DrawParams::location_scale(c.median, c.sigma), c.seed, n);
      x.assign(f.begin(), f.end());
    } else {
      x = draw<double>(Dist::cauchy, c.t, DrawParams::location_scale(c.median, c.sigma), c.seed, n);
    }
    // Tails: P(|X - median| > t sigma) = 1 - 2 atan(t) / pi.
    uint64_t tail[3] = {0, 0, 0};
    const double ts[3] = {10.0, 100.0, 10000.0};
    for (double v : x)
      for (int j = 0; j < 3; ++j) tail[j] += std::fabs(v - c.median) > ts[j] * c.sigma;
    const double k = xrng_test::ks_sqrt_n_d(x, [&](double v) { return xrng_test::cauchy_cdf(v, c.median, c.sigma); });
    // x is sorted now. The median's standard error is pi sigma / (2 sqrt(n));
    // the quartiles median -+ sigma have density 1 / (2 pi sigma) there, so
    // standard error sqrt(3/16 / n) 2 pi sigma.
    const double med = xrng_test::sample_quantile(x, 0.5), q1 = xrng_test::sample_quantile(x, 0.25),
                 q3 = xrng_test::sample_quantile(x, 0.75);
    const double se_med = 3.14159265358979323846 * c.sigma / (2 * std::sqrt(static_cast<double>(n)));
    const double se_q = std::sqrt(3.0 / 16.0 / n) * 2 * 3.14159265358979323846 * c.sigma;
    const std::string name = std::string("cauchy ") + xrng::dtype_name(c.t) + " (" + std::to_string(c.median) + ", " +
                             std::to_string(c.sigma) + ")";
    MESSAGE(name, ": sqrt(n) D = ", k, "; median ", med, " (", (med - c.median) / se_med, " standard errors); quartiles ",
            q1, ", ", q3, " (", (q1 - (c.median - c.sigma)) / se_q, ", ", (q3 - (c.median + c.sigma)) / se_q,
            " standard errors)");
    CHECK(k < kKsMax);
    CHECK(std::fabs(med - c.median) < kMomentSigmas * se_med);
    CHECK(std::fabs(q1 - (c.median - c.sigma)) < kMomentSigmas * se_q);
    CHECK(std::fabs(q3 - (c.median + c.sigma)) < kMomentSigmas * se_q);
    for (int j = 0; j < 3; ++j) {
      const double lambda = n * (1.0 - 2.0 * std::atan(ts[j]) / 3.14159265358979323846);
      MESSAGE(name, ": |x - median| > ", ts[j], " sigma: ", tail[j], " (expected ", lambda, ")");
      CHECK(xrng_test::poisson_count_ok(tail[j], lambda));
    }
  }
  // The extremes: words 0 and 2^32 - 1 give -+cot(pi 2^-33) = -+2.734e9.
  const xrng::Plan p = xrng::make_plan(Dist::cauchy, DType::f32, {});
  const uint32_t lo = 0, hi = 0xffffffffu;
  float a, b;
  xrng::Row<Dist::cauchy, DType::f32, 1>::eval(&lo, p, &a);
  xrng::Row<Dist::cauchy, DType::f32, 1>::eval(&hi, p, &b);
  MESSAGE("cauchy f32 extremes: ", a, ", ", b);
  CHECK(a == -b);
  CHECK(b == doctest::Approx(1.0 / std::tan(3.14159265358979323846 * 0x1p-33)).epsilon(1e-7));
}

}  // TEST_SUITE("stat")
