// torch's CPU gamma (rng/torch_cpu_gamma.h): the pow port it draws through
// (rng/detail/torch_cpu_pow.h) proven equal, bit for bit, to this host's
// glibc pow (the x86-64 FMA variant of glibc 2.36: pow's ifunc on an
// AVX2+FMA CPU) over the domain torch's gamma gives it, all of pow's
// branches on random finite inputs, and every special case. Elsewhere (not
// glibc 2.36 on x86-64 with AVX2+FMA) the comparisons say SKIPPED.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "rng/detail/torch_cpu_pow.h"
#include "rng/torch_cpu.h"
#include "rng/torch_cpu_gamma.h"

#if defined(__GLIBC__) && defined(__x86_64__)
// torch's libtorch_cpu.so binds pow@GLIBC_2.2.5 (the compatibility wrapper,
// SVID error handling around the same __ieee754_pow ifunc), this binary's
// ::pow is pow@GLIBC_2.29: the gamma domain is compared with both.
extern "C" double xrng_test_pow_compat(double, double);
__asm__(".symver xrng_test_pow_compat, pow@GLIBC_2.2.5");
#define XRNG_TEST_POW_COMPAT 1
#endif

namespace {
namespace tc = xrng::torch_cpu;
namespace td = xrng::torch_cpu::detail;

// Why the host's pow is no reference here (empty: it is).
const char* host_pow_unusable() {
#if !defined(__GLIBC__) || !defined(__x86_64__)
  return "not glibc on x86-64: no reference for glibc's FMA pow";
#else
  __builtin_cpu_init();
  if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
    return "this CPU has no AVX2+FMA: glibc runs its non-FMA pow here";
  if (!(__GLIBC__ == 2 && __GLIBC_MINOR__ == 36)) return "glibc is not 2.36 (the version the port was checked against)";
  return "";
#endif
}

double host_pow(double x, double y) { return ::pow(x, y); }

struct Counter {
  double (*ref)(double, double) = host_pow;
  long n = 0, bad = 0, sub = 0, zero = 0, big = 0;
  double bx = 0, by = 0;
  void operator()(double x, double y) {
    volatile double vx = x, vy = y;  // (no constant folding of the reference)
    const double want = ref(vx, vy), got = td::glibc_pow(x, y);
    ++n;
    sub += want != 0 && std::fabs(want) < 0x1p-1022;
    zero += want == 0;
    big += std::fabs(want) > 0x1p1000;
    if (td::d2u(want) != td::d2u(got)) {  // (NaNs too: the same payload and sign)
      if (bad++ == 0) {
        bx = x;
        by = y;
      }
    }
  }
};

double u53(tc::MT19937& mt) { return static_cast<double>((static_cast<uint64_t>(mt()) << 32 | mt()) >> 11) * 0x1p-53; }
uint64_t bits64(tc::MT19937& mt) { return static_cast<uint64_t>(mt()) << 32 | mt(); }

}  // namespace

TEST_CASE("torch_cpu_pow: glibc_pow equals this host's pow on torch's gamma domain") {
  if (const char* why = host_pow_unusable(); *why) {
    MESSAGE("SKIPPED: " << why);
    return;
  }
  // sample_gamma raises x = 1 - u (u = k 2^-53 a float64 uniform, so x in
  // (0, 1], down to 2^-53) to y = 1/alpha for alpha < 1: (double)(1.0f /
  // alpha) for a float alpha (any positive float below 1, subnormals
  // included: y up to +inf), 1.0 / alpha for a double alpha.
  Counter c;
#if defined(XRNG_TEST_POW_COMPAT)
  Counter cc;  // the same inputs against pow@GLIBC_2.2.5, torch's
  cc.ref = xrng_test_pow_compat;
  auto both = [&](double x, double y) {
    c(x, y);
    cc(x, y);
  };
#else
  auto& both = c;
#endif
  tc::MT19937 mt(7);
  for (int i = 0; i < (1 << 21); ++i) {
    const double x = 1.0 - u53(mt);
    // alpha log-uniform over the positive floats below 1 (exponent field 0..126, subnormals too)
    const uint32_t fb = mt() % 0x3f800000u;
    float fa;
    std::memcpy(&fa, &fb, 4);
    if (fa > 0) both(x, static_cast<double>(1.0f / fa));
    // alpha log-uniform over the positive doubles below 1
    const uint64_t db = bits64(mt) % 0x3ff0000000000000ull;
    const double da = td::u2d(db);
    if (da > 0) both(x, 1.0 / da);
  }
  // x near 0 (u near 1: k close to 2^53, x = m 2^-53), x near 1 (u small)
  for (int i = 0; i < (1 << 19); ++i) {
    const double alpha = u53(mt);
    if (alpha == 0) continue;
    const double y = 1.0 / alpha, yf = static_cast<double>(1.0f / static_cast<float>(alpha));
    const double xs = static_cast<double>(1 + (mt() & 0xffff)) * 0x1p-53;
    const double xl = 1.0 - static_cast<double>(mt() & 0xffff) * 0x1p-53;
    both(xs, y);
    both(xs, yf);
    both(xl, y);
    both(xl, yf);
  }
  // alphas of torch's tests and the edges: 1e-30, 0.01, 0.1, 0.5, 0.999, the
  // smallest float and double, just below 1.
  const double alphas[] = {1e-30, 0.01, 0.1, 0.5, 0.999, 0x1p-149, 0x1p-126, 0x1p-1074, 0x1p-1022,
                           0x1.fffffep-1, 0x1.fffffffffffffp-1, 1e-300, 1e-10};
  for (double a : alphas)
    for (int i = 0; i < (1 << 14); ++i) {
      const double x = 1.0 - u53(mt);
      both(x, 1.0 / a);
      both(x, static_cast<double>(1.0f / static_cast<float>(a)));
    }
  MESSAGE("pow on the gamma domain: " << c.n << " inputs (" << c.sub << " subnormal, " << c.zero << " zero results), " << c.bad << " differ");
  CHECK_MESSAGE(c.bad == 0, "first difference at x = " << c.bx << ", y = " << c.by);
  CHECK(c.n > 5000000);
  CHECK(c.sub > 1000);  // results in the subnormals (the underflow special case) compared too
  CHECK(c.zero > 1000);
#if defined(XRNG_TEST_POW_COMPAT)
  MESSAGE("the same against pow@GLIBC_2.2.5 (torch's): " << cc.n << " inputs, " << cc.bad << " differ");
  CHECK_MESSAGE(cc.bad == 0, "first difference at x = " << cc.bx << ", y = " << cc.by);
  CHECK(cc.n == c.n);
#endif
}

TEST_CASE("torch_cpu_pow: glibc_pow equals this host's pow on finite inputs and every special case") {
  if (const char* why = host_pow_unusable(); *why) {
    MESSAGE("SKIPPED: " << why);
    return;
  }
  Counter c;
  tc::MT19937 mt(11);
  // Random bit patterns (finite x of either sign, finite y): mostly the
  // overflow / underflow / special branches.
  for (int i = 0; i < (1 << 20); ++i) {
    double x = td::u2d(bits64(mt)), y = td::u2d(bits64(mt));
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    c(x, y);
  }
  // |x| log-uniform within 2^+-8 of 1, y with |y log2 x| around the exp
  // thresholds (results near overflow, underflow, subnormal, 1), negative x
  // with integer y (odd and even) too.
  for (int i = 0; i < (1 << 20); ++i) {
    const double x = std::ldexp(1.0 + u53(mt), static_cast<int>(mt() % 17) - 8);
    const double t = (u53(mt) * 2 - 1) * 1100.0;  // target log2 of the result
    const double lx = std::log2(x);
    const double y = lx != 0 ? t / lx : t;
    c(x, y);
    c(-x, std::nearbyint(y));
    c(-x, std::nearbyint(y) + 1);
  }
  // x subnormal, tiny y, huge y, y near +-1, x near 1
  for (int i = 0; i < (1 << 18); ++i) {
    const double xs = td::u2d(bits64(mt) & 0x000fffffffffffffull);
    c(xs, u53(mt) * 2 - 0.5);
    c(xs, -u53(mt) * 0.02);
    c(1.0 + u53(mt), td::u2d((bits64(mt) & 0x800fffffffffffffull) | (uint64_t{0x3a0 + mt() % 0x40} << 52)));
    c(u53(mt), td::u2d((bits64(mt) & 0x800fffffffffffffull) | (uint64_t{0x43d + mt() % 4} << 52)));
    c(1.0 + (u53(mt) - 0.5) * 0x1p-40, (u53(mt) - 0.5) * 1e15);
  }
  // Special values, every pair.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double sp[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, inf, -inf, nan, -nan,
                       0x1p-1074, -0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023,
                       0x1p-65, 0x1p-66, 0x1p63, -0x1p63, 0x1p53, 0x1p53 + 2, 0x1p52 + 1, -0x1p52 - 1,
                       1.0 + 0x1p-52, 1.0 - 0x1p-53, 0.1, 1e300, 1e-300, 1075.0, -1075.0, 1024.0, -1024.0};
  long nsp = 0;
  for (double x : sp)
    for (double y : sp) {
      c(x, y);
      ++nsp;
    }
  MESSAGE("pow over finite inputs and specials: " << c.n << " inputs (" << nsp << " special pairs), " << c.bad
                                                  << " differ");
  CHECK_MESSAGE(c.bad == 0, "first difference at x = " << c.bx << ", y = " << c.by);
  CHECK(c.sub > 1000);
  CHECK(c.big > 1000);  // near overflow (the k > 0 special case)
}

TEST_CASE("torch_cpu_gamma: torch's row sum order (cascade_sum with 4-double vectors)") {
  // Values whose sum depends on the order: 1s that vanish when added to
  // 2^53 one by one, but not when summed first.
  const double big = 0x1p53;
  {
    // k = 5: lanes (1, 1, 1, 1), left-over 2^53 first: 0 + 2^53, then each 1 lost.
    const double x[5] = {1, 1, 1, 1, big};
    CHECK(tc::torch_cpu_row_sum(x, 5) == big);
  }
  {
    // k = 3 (fewer than a vector): in order from 0: 2^53 + 1 + 1 + ... ties to even each time.
    const double x[3] = {big, 1, 1};
    CHECK(tc::torch_cpu_row_sum(x, 3) == big);
    const double y[3] = {1, 1, big};
    CHECK(tc::torch_cpu_row_sum(y, 3) == big + 2);
  }
  {
    // k = 8: two vectors, lane-wise sums (1 + 1 = 2 in lanes 1..3), lanes added to the
    // (empty) left-overs in order: 0 + (2^53 + 1 -> 2^53) + 2 + 2 + 2.
    const double x[8] = {big, 1, 1, 1, 1, 1, 1, 1};
    CHECK(tc::torch_cpu_row_sum(x, 8) == big + 6);
  }
  {
    // k = 64: 16 vectors as 4 columns (vector 4i + c into column c; a level step takes 16
    // rows of them, so no cascade here); lane 0 of column 0 sums 2^53 + 1 + 1 + 1 (2^53:
    // each 1 lost), then columns 1..3 add 4 each: 2^53 + 12; lanes 1..3 hold 16 each; a
    // sequential sum of 2^53 and 63 ones gives 2^53.
    std::vector<double> x(64, 1.0);
    x[0] = big;
    const double seq = [&] {
      double s = 0;
      for (double v : x) s += v;
      return s;
    }();
    CHECK(seq == big);
    CHECK(tc::torch_cpu_row_sum(x.data(), 64) == big + 60);  // 0 + (2^53 + 12) + 16 + 16 + 16
  }
}

TEST_CASE("torch_cpu_gamma: alpha 0 draws nothing; a long single dirichlet row is refused before drawing") {
  tc::State s(42), s0(42);
  CHECK(tc::standard_gamma_value<float>(s, 0.0f) == std::numeric_limits<float>::min());
  CHECK(tc::standard_gamma_value<double>(s, 0.0) == std::numeric_limits<double>::min());
  CHECK(s.mt.left == s0.mt.left);
  std::vector<float> a(40000, 1.0f), out(40000);
  std::vector<double> g(40000);
  CHECK_THROWS_AS(tc::dirichlet<float>(s, a.data(), 1, 40000, out.data(), g.data()), std::invalid_argument);
  CHECK(s.mt.left == s0.mt.left);
  CHECK(s.mt.state == s0.mt.state);
}
