// The vector forms of gamma, Dirichlet, Poisson and binomial (host/simd/params.h)
// against the scalar reference (Backend::scalar: the element functions of
// rng/gamma.h, poisson.h, binomial.h), bit for bit, on the backend of the run:
// parameters spread over every range the draws accept (log-uniform, plus the
// edges where an element function switches method), word offsets in every
// position of a Philox block, counts that leave partial vector groups, every
// output dtype. Run per ISA (test_simd_params_<isa>; Skipped without it).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends.h"
#include "host/simd/params_api.h"
#include "host/xrng.h"
#include "rng/gamma.h"
#include "rng/multinomial.h"

using namespace xrng;

namespace {
FillOptions with(Backend b, int threads = 1) { return FillOptions{b, threads}; }

// Parameters drawn per range: a quarter in the sanitizer build (backends.h),
// where these sweeps were 2 minutes at -O0; the paths they reach are the
// same, and the optimised build runs the full sweeps.
size_t per_range(size_t n) { return xrng_test::kSanitized ? n / 4 : n; }

// log-uniform in [lo, hi]
std::vector<double> log_uniform(std::mt19937_64& g, size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  std::vector<double> v(n);
  for (double& x : v) x = std::exp(u(g));
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Draws `fn(opt, dtype, out)` with the scalar and the vector backend in each
// dtype, and checks the bits are the same.
template <class Fn>
void check_same(size_t n, Fn&& fn) {
  for (DType dt : {DType::f64, DType::f32, DType::f16, DType::bf16}) {
    const size_t bytes = n * static_cast<size_t>(dtype_size(dt));
    std::vector<unsigned char> ref(bytes, 0xAB), vec(bytes, 0xCD);
    fn(with(Backend::scalar), dt, ref.data());
    fn(xrng_test::options(1), dt, vec.data());
    CAPTURE(static_cast<int>(dt));
    CHECK(same_bits(ref, vec));
    if (dt == DType::f64 && !same_bits(ref, vec)) {
      const double* r = reinterpret_cast<const double*>(ref.data());
      const double* v = reinterpret_cast<const double*>(vec.data());
      for (size_t i = 0; i < n; ++i)
        if (std::memcmp(r + i, v + i, 8) != 0) {
          MESSAGE("first difference at element " << i << ": " << r[i] << " vs " << v[i]);
          break;
        }
    }
  }
}
}  // namespace

TEST_CASE("gamma and dirichlet: the vector lanes equal the scalar element function, every alpha range") {
  std::mt19937_64 g(27);
  const Key key(11, 3);
  struct Range {
    double lo, hi;
  };
  for (Range r : {Range{1e-300, 1e-3}, Range{0.01, 1.0}, Range{0.5, 2.0}, Range{1.0, 1e4}, Range{1e4, 1e300}}) {
    CAPTURE(r.lo);
    auto a = log_uniform(g, per_range(60013), r.lo, r.hi);
    a[0] = 1.0;
    a[1] = std::nextafter(1.0, 0.0);
    for (uint64_t offset : {0ull, 1ull, 2ull, 3ull, 1ull << 40}) {
      check_same(a.size(), [&](const FillOptions& o, DType dt, void* out) {
        gamma(a.data(), a.size(), key, offset, dt, out, o);
      });
    }
    for (uint64_t k : {1ull, 2ull, 3ull, 8ull, 1000ull}) {
      const uint64_t rows = a.size() / k;
      check_same(rows * k, [&](const FillOptions& o, DType dt, void* out) {
        dirichlet(a.data(), rows, k, key, 5, dt, out, o);
      });
    }
  }
}

TEST_CASE("poisson: the vector lanes equal the scalar element function, every rate range") {
  std::mt19937_64 g(28);
  const Key key(12, 0);
  struct Range {
    double lo, hi;
  };
  for (Range r : {Range{1e-300, 0.1}, Range{0.1, 10.0}, Range{5.0, 20.0}, Range{10.0, 1e3}, Range{1e3, 0x1p32}}) {
    CAPTURE(r.lo);
    auto rate = log_uniform(g, per_range(100003), r.lo, r.hi);
    rate[0] = 0.0;
    rate[1] = 10.0;
    rate[2] = std::nextafter(10.0, 0.0);
    rate[3] = 0x1p32;
    for (uint64_t offset : {0ull, 3ull, 6ull}) {
      check_same(rate.size(), [&](const FillOptions& o, DType dt, void* out) {
        poisson(rate.data(), rate.size(), key, offset, dt, out, o);
      });
    }
  }
}

TEST_CASE("binomial: the vector lanes equal the scalar element function, every count and prob") {
  std::mt19937_64 g(29);
  const Key key(13, 7);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  for (double hi : {10.0, 100.0, 1e4, 1e6, 0x1p32}) {
    CAPTURE(hi);
    auto cnt = log_uniform(g, per_range(100003), 1.0, hi);
    std::vector<double> prob(cnt.size());
    for (size_t i = 0; i < cnt.size(); ++i) {
      cnt[i] = std::floor(cnt[i]);
      prob[i] = i % 3 == 0 ? unif(g) : std::exp(std::log(1e-9) * unif(g));  // small p often
      if (i % 5 == 1) prob[i] = 1.0 - prob[i];
    }
    cnt[0] = 0.0;
    prob[1] = 0.0;
    prob[2] = 1.0;
    prob[3] = 0.5;
    cnt[4] = 0x1p32;
    for (uint64_t offset : {0ull, 1ull, 7ull}) {
      check_same(cnt.size(), [&](const FillOptions& o, DType dt, void* out) {
        binomial(cnt.data(), prob.data(), cnt.size(), key, offset, dt, out, o);
      });
    }
  }
}

TEST_CASE("gamma, poisson, binomial: the vector backend with threads equals the scalar one") {
  std::mt19937_64 g(30);
  const Key key(14, 2);
  auto a = log_uniform(g, 100001, 0.01, 1e4);
  std::vector<double> ref(a.size()), vec(a.size());
  gamma(a.data(), a.size(), key, 9, DType::f64, ref.data(), with(Backend::scalar));
  gamma(a.data(), a.size(), key, 9, DType::f64, vec.data(), xrng_test::options(3));
  CHECK(same_bits(ref, vec));
  poisson(a.data(), a.size(), key, 9, DType::f64, ref.data(), with(Backend::scalar));
  poisson(a.data(), a.size(), key, 9, DType::f64, vec.data(), xrng_test::options(3));
  CHECK(same_bits(ref, vec));
}

TEST_CASE("the ISA's vector entry runs (a draw above is not a silent scalar pass) and rarely leaves a lane undone") {
  const xrng::detail::SimdBackend* be = nullptr;
  for (const auto& b : xrng::detail::simd_backends())
    if (std::string(b.name) == xrng_test::backend().name) be = &b;
  REQUIRE(be != nullptr);
  std::mt19937_64 g(31);
  const size_t n = 4099;
  auto a = log_uniform(g, n, 0.01, 1e4);
  std::vector<double> p(n, 0.3), y(n);
  std::vector<uint8_t> done(n);
  const Stream s = Key(1, 2).stream();
  using xrng::detail::ParamDraw;
  for (ParamDraw d : {ParamDraw::gamma, ParamDraw::poisson, ParamDraw::binomial}) {
    if (d == ParamDraw::binomial)
      for (double& x : a) x = std::floor(x);
    REQUIRE(be->params(d, a.data(), p.data(), n, s, 1, y.data(), done.data()));
    size_t undone = 0;
    for (uint8_t x : done) undone += x == 0;
    CAPTURE(static_cast<int>(d));
    CHECK(undone < n / 100);
  }
}

TEST_CASE("gamma's vector entry, called directly: many chunks, retries and boosts, every block position") {
  // host/simd/params.h runs gamma in chunks (attempt 0 of all, then the log
  // tests, then the rejected elements' later attempts, packed): n crosses
  // several chunks with a partial last group; alpha near 1 has the most
  // rejected attempts (4.8 %), alpha < 1 is boosted; word offsets in every
  // position of a Philox block and up to the end of the counter space.
  const xrng::detail::SimdBackend* be = nullptr;
  for (const auto& b : xrng::detail::simd_backends())
    if (std::string(b.name) == xrng_test::backend().name) be = &b;
  REQUIRE(be != nullptr);
  std::mt19937_64 g(33);
  const uint64_t n = 5003;
  std::vector<double> a = log_uniform(g, n, 1e-4, 1e3);
  for (uint64_t i = 0; i < n; i += 3) a[i] = i % 2 ? 1.0 : std::nextafter(1.0, 0.0);
  for (uint64_t i = 1; i < n; i += 7) a[i] = 1e-300;
  const Stream s = Key(21, 4).stream();
  for (uint64_t w0 : std::initializer_list<uint64_t>{0, 1, 2, 3, (uint64_t{1} << 40) + 2, ~uint64_t{0} - 64 * n - 1}) {
    std::vector<double> y(n);
    std::vector<uint8_t> done(n, 0);
    REQUIRE(be->params(xrng::detail::ParamDraw::gamma, a.data(), nullptr, n, s, w0, y.data(), done.data()));
    size_t same = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const double r = gammad::variate_at(a[i], s, w0 + 64 * i);
      same += done[i] == 1 && std::memcmp(&r, &y[i], 8) == 0;
    }
    CAPTURE(w0);
    CHECK(same == n);
  }
}

TEST_CASE("race_time lanes equal categorical::race_time; multinomial on the vector backend equals the scalar one") {
  const xrng::detail::SimdBackend* be = nullptr;
  for (const auto& b : xrng::detail::simd_backends())
    if (std::string(b.name) == xrng_test::backend().name) be = &b;
  REQUIRE(be != nullptr);
  const Stream s = Key(5, 6).stream();
  for (uint64_t w0 : {0ull, 1ull, 3ull, (1ull << 50) + 2}) {
    const uint64_t n = 200003;  // crosses the word window's chunks; a partial last group
    std::vector<double> y(n);
    std::vector<uint8_t> done(n, 0);
    REQUIRE(be->params(xrng::detail::ParamDraw::race_time, nullptr, nullptr, n, s, w0, y.data(), done.data()));
    std::vector<uint32_t> w(2 * n);
    for (uint64_t i = 0; i < 2 * n; ++i) w[i] = stream_word(s, w0 + i);
    bool same = true;
    for (uint64_t i = 0; i < n; ++i) {
      const double r = categorical::race_time(w[2 * i], w[2 * i + 1]);
      same = same && done[i] == 1 && std::memcmp(&r, &y[i], 8) == 0;
    }
    CAPTURE(w0);
    CHECK(same);
  }
  std::mt19937_64 g(32);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (uint64_t k : {1ull, 7ull, 1000ull, 5000ull}) {
    const uint64_t rows = 30;
    std::vector<double> wt(rows * k);
    for (double& x : wt) x = u(g) < 0.1 ? 0.0 : u(g);
    for (uint64_t r = 0; r < rows; ++r) wt[r * k] = 1.0;
    for (bool repl : {true, false}) {
      const uint64_t ns = repl ? 300 : std::min<uint64_t>(k, 50);
      std::vector<int64_t> ref(rows * ns), vec(rows * ns);
      multinomial(wt.data(), rows, k, ns, repl, Key(3, 3), 5, ref.data(), with(Backend::scalar));
      multinomial(wt.data(), rows, k, ns, repl, Key(3, 3), 5, vec.data(), xrng_test::options(2));
      CAPTURE(k);
      CAPTURE(repl);
      CHECK(ref == vec);
    }
  }
}
