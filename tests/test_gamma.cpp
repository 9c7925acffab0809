// The gamma family (SPEC.md section 11): known answers, invariance to threads
// and to how elements are split, the word layout, the errors, and the accuracy
// of the binary64 evaluation against the exact function of the words
// (long double, 64-bit significand; its own errors are below 2^-60 relative).
// Statistical checks: tests/python/test_gamma.py (scipy's KS tests).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "golden/gamma.h"
#include "host/xrng.h"
#include "rng/gamma.h"

using namespace xrng;

namespace {
std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
std::vector<double> draw(const std::vector<double>& a, const Key& key, uint64_t offset, int threads = 1) {
  std::vector<double> out(a.size(), -1.0);
  FillOptions o;
  o.threads = threads;
  gamma(a.data(), a.size(), key, offset, DType::f64, out.data(), o);
  return out;
}
std::vector<double> some_alphas(uint64_t n) {
  std::vector<double> a(n);
  for (uint64_t i = 0; i < n; ++i) a[i] = 0.01 + static_cast<double>((i * 7919) % 1000) / 50.0;
  return a;
}

// The exact function of the words, in long double: the same decisions in
// the same order, each quantity computed with libm's long double functions.
struct Exact {
  bool decided_same = true;  // every acceptance decision equals the binary64 one
  long double y = 0;
};
Exact exact_variate(double alpha, const Stream& st, uint64_t w0) {
  auto word = [&](int i) { return stream_word(st, w0 + static_cast<uint64_t>(i)); };
  const bool boost = alpha < 1.0;
  const long double a1 = boost ? static_cast<long double>(alpha) + 1.0L : alpha;
  const long double d = a1 - 1.0L / 3.0L, c = 1.0L / std::sqrt(9.0L * d);
  const gammad::Shape s = gammad::shape(alpha);
  Exact ex;
  long double y = d;
  const long double two_pi = 6.283185307179586476925286766559L;
  for (int j = 0; j < gammad::kAttempts; ++j) {
    const uint32_t a = word(4 * j), b = word(4 * j + 1), t = word(4 * j + 2), w3 = word(4 * j + 3);
    const uint64_t m = dist::bits_u64(a, b) >> 12;
    const long double u1 = (static_cast<long double>(m) + 0.5L) / 4503599627370496.0L;
    const long double x = std::sqrt(-2.0L * std::log(u1)) * std::cos(two_pi * (static_cast<long double>(t) / 4294967296.0L));
    const long double tt = 1.0L + c * x;
    double bin;
    const bool acc64 = gammad::attempt(s, a, b, t, w3, &bin);
    bool acc = false;
    if (tt > 0) {
      const long double v = tt * tt * tt;
      const long double u = (static_cast<long double>(w3) + 0.5L) / 4294967296.0L;
      const long double xx = x * x;
      acc = u < 1.0L - 0.0331L * xx * xx || std::log(u) < 0.5L * xx + d * (1.0L - v + std::log(v));
      if (acc) y = d * v;
    }
    if (acc != acc64) ex.decided_same = false;
    if (acc) break;
  }
  if (boost) {
    const uint64_t m = dist::bits_u64(word(60), word(61)) >> 12;
    const long double u = (static_cast<long double>(m) + 0.5L) / 4503599627370496.0L;
    y = y * std::exp(std::log(u) / static_cast<long double>(alpha));
  }
  ex.y = y < 0x1p-1022L ? 0x1p-1022L : y;
  return ex;
}
}  // namespace

TEST_CASE("gamma: the committed known answers are the reference's") {
  const std::string file = read_file(std::string(XRNG_TEST_DATA_DIR) + "/golden_v2_gamma.txt");
  REQUIRE(!file.empty());
  CHECK(file == golden::gamma_golden_text());
}

TEST_CASE("gamma: the same values for any thread count, and per element (64 words of its own)") {
  const std::vector<double> a = some_alphas(3000);
  const auto ref = draw(a, Key(3, 1), 17);
  for (int t : {2, 3, 8, 0}) CHECK(draw(a, Key(3, 1), 17, t) == ref);
  const std::vector<double> part(a.begin() + 101, a.begin() + 777);
  const auto sub = draw(part, Key(3, 1), 17 + 64 * 101);
  CHECK(std::vector<double>(ref.begin() + 101, ref.begin() + 777) == sub);
  for (size_t i = 0; i < a.size(); i += 97) CHECK(ref[i] == gammad::variate_at(a[i], Key(3, 1).stream(), 17 + 64 * i));
}

TEST_CASE("gamma: a generator advances by 64 words per element; a refused draw does not advance it") {
  Generator g(5, 0, 3);
  std::vector<double> a = some_alphas(10), out(10);
  g.gamma(a.data(), 10, DType::f64, out.data());
  CHECK(g.offset() == 3 + 640);
  CHECK(out == draw(a, Key(5, 0), 3));
  a[4] = -1.0;
  CHECK_THROWS_AS(g.gamma(a.data(), 10, DType::f64, out.data()), Error);
  CHECK(g.offset() == 3 + 640);
}

TEST_CASE("gamma: the error names the first bad alpha, wherever it is (the blocked check of host/gamma.cpp)") {
  std::vector<double> out(700);
  for (uint64_t n : std::initializer_list<uint64_t>{1, 2, 3, 255, 256, 257, 513, 700}) {
    for (uint64_t at : std::initializer_list<uint64_t>{0, 1 % n, n / 2, n - 1, n > 256 ? uint64_t{256} : uint64_t{0}, n > 257 ? uint64_t{257} : uint64_t{0}}) {
      for (double bad : {0.0, -0.0, -2.0, static_cast<double>(NAN), static_cast<double>(INFINITY)}) {
        std::vector<double> a(n, 0.5);
        a[at] = bad;
        if (at + 3 < n) a[at + 3] = -1.0;  // a later bad one is not the one named
        CAPTURE(n);
        CAPTURE(at);
        CHECK_THROWS_WITH_AS(gamma(a.data(), n, Key(1), 0, DType::f64, out.data()),
                             doctest::Contains(("at element " + std::to_string(at)).c_str()), Error);
      }
    }
  }
}

TEST_CASE("gamma: errors before anything is written") {
  std::vector<double> out(4, 7.0);
  for (double bad : {0.0, -1.0, static_cast<double>(NAN), static_cast<double>(INFINITY)}) {
    const std::vector<double> a = {1.0, 2.0, bad, 3.0};
    CHECK_THROWS_WITH_AS(gamma(a.data(), 4, Key(1), 0, DType::f64, out.data()),
                         doctest::Contains("alpha must be finite and > 0"), Error);
    CHECK(out == std::vector<double>(4, 7.0));
  }
  const std::vector<double> a = {1.0, 2.0};
  CHECK_THROWS_AS(gamma(a.data(), 2, Key(1), 0, DType::i64, out.data()), Error);
  CHECK_THROWS_WITH_AS(gamma(a.data(), 2, Key(1), ~uint64_t(0) - 64, DType::f64, out.data()),
                       doctest::Contains("counter overflow"), Error);
  CHECK_THROWS_AS(dirichlet(a.data(), 1, 0, Key(1), 0, DType::f64, out.data()), Error);
}

TEST_CASE("dirichlet: each row is its gamma variates over their left-to-right sum") {
  const std::vector<double> a = some_alphas(5 * 7);
  std::vector<double> d(a.size()), g = draw(a, Key(9, 2), 4);
  dirichlet(a.data(), 5, 7, Key(9, 2), 4, DType::f64, d.data());
  for (int r = 0; r < 5; ++r) {
    double s = 0.0;
    for (int i = 0; i < 7; ++i) s = s + g[r * 7 + i];
    for (int i = 0; i < 7; ++i) CHECK(d[r * 7 + i] == gammad::dirichlet_f64(g[r * 7 + i] / s));
  }
  std::vector<double> d2(a.size());
  FillOptions o;
  o.threads = 3;
  dirichlet(a.data(), 5, 7, Key(9, 2), 4, DType::f64, d2.data(), o);
  CHECK(d == d2);
}

TEST_CASE("gamma: f32, f16 and bf16 are the f64 variate rounded, then clamped to the smallest normal") {
  const std::vector<double> a = {1e-3, 0.01, 0.5, 1.0, 7.5, 1e4, 1e-30};
  const auto g = draw(a, Key(2), 0);
  std::vector<float> f(a.size());
  std::vector<uint16_t> h(a.size()), b(a.size());
  gamma(a.data(), a.size(), Key(2), 0, DType::f32, f.data());
  gamma(a.data(), a.size(), Key(2), 0, DType::f16, h.data());
  gamma(a.data(), a.size(), Key(2), 0, DType::bf16, b.data());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(f[i] == std::max(static_cast<float>(g[i]), 0x1p-126f));
    CHECK(h[i] == std::max<uint16_t>(math::f32_to_f16_bits(static_cast<float>(g[i])), 0x0400));
    CHECK(b[i] == std::max<uint16_t>(math::f32_to_bf16_bits(static_cast<float>(g[i])), 0x0080));
  }
  CHECK(g[6] == 0x1p-1022);  // alpha 1e-30: the variate underflows, clamped like torch's
}

TEST_CASE("gamma: accuracy against the exact function of the words") {
  // For alphas across the range, the binary64 variate against the long double
  // evaluation of the same definition. Where an acceptance decision falls on
  // the other side (a rounding at the boundary) the element is counted, not
  // compared. The boost of alpha < 1, exp(ln u / alpha), is ill-conditioned:
  // a relative error e in ln u becomes |ln y| e in y. So the measure is the
  // relative error over (1 + |ln y|), asserted < 2^-48 where decisions agree
  // (the measured worst is printed), with at most 1 flipped decision per 10^5.
  const std::vector<double> alphas = {1e-4, 0.01, 0.1, 0.5, 0.9, 1.0, 1.3, 2.0, 5.0, 30.0, 1e3, 1e6};
  const Stream st = Key(77, 1).stream();
  long double worst = 0;
  uint64_t flips = 0, n = 0;
  for (double alpha : alphas) {
    for (uint64_t i = 0; i < 20000; ++i, ++n) {
      const uint64_t w0 = 64 * n;  // every element its own words
      const Exact ex = exact_variate(alpha, st, w0);
      const double y = gammad::variate_at(alpha, st, w0);
      if (!ex.decided_same) {
        ++flips;
        continue;
      }
      const long double rel =
          std::fabs((static_cast<long double>(y) - ex.y) / ex.y) / (1.0L + std::fabs(std::log(ex.y)));
      if (ex.y > 0x1p-1000L && rel > worst) worst = rel;
    }
  }
  MESSAGE("gamma accuracy: worst relative error / (1 + |ln y|) " << static_cast<double>(worst) << " (2^"
                                                  << std::log2(static_cast<double>(worst)) << "), decisions flipped: "
                                                  << flips << " of " << n);
  CHECK(worst < 0x1p-48L);
  CHECK(flips * 100000 <= n);
}

TEST_CASE("gamma: an attempt is rejected with probability below 0.0491 (the fallback's bound, SPEC 11.2)") {
  // a' = 1 is the worst case (Marsaglia and Tsang's efficiency 0.951); fixed words, so a fixed count
  const Stream st{9, 0};
  for (double alpha : {1.0, 0.5, 3.0}) {
    const gammad::Shape s = gammad::shape(alpha);
    uint64_t rej = 0;
    const uint64_t n = 400000;
    for (uint64_t i = 0; i < n; ++i) {
      const u32x4 b = stream_block(st, i);
      double y;
      if (!gammad::attempt(s, b.v[0], b.v[1], b.v[2], b.v[3], &y)) ++rej;
    }
    MESSAGE("alpha " << alpha << ": rejected " << rej << " of " << n);
    CHECK(static_cast<double>(rej) < 0.0491 * n);
    if (alpha == 1.0) CHECK(static_cast<double>(rej) > 0.045 * n);
  }
}

// ---- Poisson (SPEC.md section 12) -------------------------------------------------------------
namespace {
std::vector<double> pdraw(const std::vector<double>& r, const Key& key, uint64_t offset, int threads = 1) {
  std::vector<double> out(r.size(), -1.0);
  FillOptions o;
  o.threads = threads;
  poisson(r.data(), r.size(), key, offset, DType::f64, out.data(), o);
  return out;
}
}  // namespace

TEST_CASE("poisson: integer counts, the same for any thread count and per element") {
  std::vector<double> r(3000);
  for (size_t i = 0; i < r.size(); ++i) r[i] = static_cast<double>((i * 7919) % 3000) / 7.0;
  const auto ref = pdraw(r, Key(3, 1), 17);
  for (int t : {2, 3, 0}) CHECK(pdraw(r, Key(3, 1), 17, t) == ref);
  const std::vector<double> part(r.begin() + 101, r.begin() + 777);
  CHECK(std::vector<double>(ref.begin() + 101, ref.begin() + 777) == pdraw(part, Key(3, 1), 17 + 64 * 101));
  for (size_t i = 0; i < r.size(); ++i) {
    CHECK(ref[i] == std::floor(ref[i]));
    CHECK(ref[i] >= 0.0);
    if (r[i] == 0.0) CHECK(ref[i] == 0.0);
  }
}

TEST_CASE("poisson: errors before anything is written") {
  std::vector<double> out(3, 7.0);
  for (double bad : {-1.0, static_cast<double>(NAN), static_cast<double>(INFINITY), 0x1p32 * 1.5}) {
    const std::vector<double> r = {1.0, bad, 3.0};
    CHECK_THROWS_WITH_AS(poisson(r.data(), 3, Key(1), 0, DType::f64, out.data()),
                         doctest::Contains("rate must be >= 0 and <= 2^32"), Error);
    CHECK(out == std::vector<double>(3, 7.0));
  }
}

TEST_CASE("poisson: log k! against long double lgamma, and the log of 5.1 above 1") {
  double worst = 0;
  for (double k = 2; k < 1e7; k = std::floor(k * 1.37) + 1) {
    const long double e = std::lgamma(static_cast<long double>(k) + 1.0L);
    worst = std::max(worst, static_cast<double>(std::fabs((poissond::log_factorial(k) - e) / e)));
  }
  MESSAGE("log k! worst relative error " << worst);
  CHECK(worst < 4e-15);
  double wl = 0;
  for (double x = 1.0000001; x < 1e19; x *= 1.0137) {
    const long double e = std::log(static_cast<long double>(x));
    wl = std::max(wl, static_cast<double>(std::fabs((poissond::log_(x) - e) / e)));
  }
  MESSAGE("log of 5.1 on (1, 1e19): worst relative error " << wl);
  CHECK(wl < 1e-15);
}

TEST_CASE("poisson: a PTRS attempt is rejected with probability below 0.25 (the fallback's bound, SPEC 12.2)") {
  const Stream st{9, 0};
  for (double lam : {10.0, 10.3, 20.0, 1e4, 4e9}) {
    const poissond::Ptrs p = poissond::ptrs(lam);
    uint64_t rej = 0;
    const uint64_t n = 400000;
    for (uint64_t i = 0; i < n; ++i) {
      const u32x4 b = stream_block(st, i);
      double k;
      if (!poissond::ptrs_attempt(p, b.v[0], b.v[1], &k)) ++rej;
    }
    MESSAGE("rate " << lam << ": rejected " << rej << " of " << n);
    CHECK(static_cast<double>(rej) < 0.25 * n);
  }
}

// ---- binomial (SPEC.md section 13) ---------------------------------------------------------------
TEST_CASE("binomial: integer counts in [0, n], the same for any thread count and per element; p and 1 - p mirror") {
  const uint64_t N = 3000;
  std::vector<double> n(N), p(N), out(N), out2(N), q(N), outq(N);
  for (uint64_t i = 0; i < N; ++i) {
    n[i] = static_cast<double>((i * 7919) % 500);
    p[i] = static_cast<double>((i * 104729) % 1001) / 1000.0;
    q[i] = 1.0 - p[i];
  }
  binomial(n.data(), p.data(), N, Key(3, 1), 17, DType::f64, out.data());
  FillOptions o;
  o.threads = 3;
  binomial(n.data(), p.data(), N, Key(3, 1), 17, DType::f64, out2.data(), o);
  CHECK(out == out2);
  std::vector<double> part(200);
  binomial(n.data() + 101, p.data() + 101, 200, Key(3, 1), 17 + 64 * 101, DType::f64, part.data());
  CHECK(std::vector<double>(out.begin() + 101, out.begin() + 301) == part);
  binomial(n.data(), q.data(), N, Key(3, 1), 17, DType::f64, outq.data());
  for (uint64_t i = 0; i < N; ++i) {
    CHECK(out[i] == std::floor(out[i]));
    CHECK((out[i] >= 0.0 && out[i] <= n[i]));
    if (p[i] != 0.5 && 1.0 - q[i] == p[i]) CHECK(outq[i] == n[i] - out[i]);  // the draw of 1 - p is n minus p's
  }
}

TEST_CASE("binomial: errors before anything is written") {
  std::vector<double> out(2, 7.0);
  const double bad[][2] = {{-1.0, 0.5}, {2.5, 0.5}, {0x1p33, 0.5}, {3.0, -0.1}, {3.0, 1.5},
                           {3.0, static_cast<double>(NAN)}, {static_cast<double>(NAN), 0.5}};
  for (const auto& b : bad) {
    const std::vector<double> n = {1.0, b[0]}, p = {0.5, b[1]};
    CHECK_THROWS_WITH_AS(binomial(n.data(), p.data(), 2, Key(1), 0, DType::f64, out.data()),
                         doctest::Contains("count must be an integer in [0, 2^32] and prob in [0, 1]"), Error);
    CHECK(out == std::vector<double>(2, 7.0));
  }
}

TEST_CASE("binomial: a BTRS attempt is rejected with probability below 0.3 (the fallback's bound, SPEC 13.2)") {
  const Stream st{9, 0};
  const double cases[][2] = {{20, 0.5}, {21, 0.49}, {100, 0.1}, {1000, 0.01}, {4e9, 0.5}};
  for (const auto& c : cases) {
    const binomiald::Btrs s = binomiald::btrs(c[0], c[1]);
    uint64_t rej = 0;
    const uint64_t N = 400000;
    for (uint64_t i = 0; i < N; ++i) {
      const u32x4 b = stream_block(st, i);
      double k;
      if (!binomiald::btrs_attempt(s, b.v[0], b.v[1], &k)) ++rej;
    }
    MESSAGE("n " << c[0] << " p " << c[1] << ": rejected " << rej << " of " << N);
    CHECK(static_cast<double>(rej) < 0.3 * N);
  }
}

TEST_CASE("binomial: log1p and the Stirling tail against long double") {
  double w1 = 0, w2 = 0;
  for (double x = -0.5; x < -1e-300; x *= 0.731) {
    const long double e = std::log1p(static_cast<long double>(x));
    w1 = std::max(w1, static_cast<double>(std::fabs((binomiald::log1p_(x) - e) / e)));
  }
  for (double k = 0; k < 1e9; k = k < 20 ? k + 1 : std::floor(k * 1.7)) {
    const long double kl = k;
    const long double e = std::lgamma(kl + 1) - ((kl + 0.5L) * std::log(kl + 1) - (kl + 1) +
                                                0.91893853320467274178032973640562L);
    if (k > 1e3) break;  // beyond, long double's own cancellation exceeds the tail
    w2 = std::max(w2, static_cast<double>(std::fabs((binomiald::stirling_tail(k) - e) / e)));
  }
  MESSAGE("log1p worst relative error " << w1 << "; Stirling tail " << w2);
  CHECK(w1 < 4e-16);
  CHECK(w2 < 1e-8);  // the series truncated after 1/1260: 4e-9 relative at k = 10
}
