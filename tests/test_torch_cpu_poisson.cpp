// torch's CPU poisson and binomial (rng/torch_cpu_poisson.h): the two glibc
// ports they add (rng/detail/torch_cpu_lgamma.h: lgamma, log1pf) proven
// equal to this host's glibc bit for bit, and the draws' structure (which
// parameters draw nothing, the x86-64 conversion). The values themselves
// are compared with torch in tests/python/test_torch_cpu_poisson.py.
//
// The glibc comparisons run where the reference is the one ported: glibc
// 2.36 on x86-64 (lgamma calls glibc's log through its ifunc, the FMA
// variant on an AVX2+FMA CPU, which glibc_log reproduces); elsewhere they
// say they skipped.
//
// test_torch_cpu_poisson (label unit) takes every XRNG_TORCH_POISSON_STEP-th
// float for log1pf; test_torch_cpu_poisson_exhaustive (label exhaustive)
// every float, with XRNG_EXHAUSTIVE_FULL=1 in the environment (about 40 s;
// otherwise it says it skipped: the ports are frozen, and the unit test's
// strided sweep runs on every build).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "rng/detail/torch_cpu_lgamma.h"
#include "rng/torch_cpu.h"
#include "rng/torch_cpu_poisson.h"

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#ifndef XRNG_TORCH_POISSON_STEP
#define XRNG_TORCH_POISSON_STEP 61
#endif

namespace tc = xrng::torch_cpu;
namespace td = xrng::torch_cpu::detail;

namespace {

// The host's functions through volatile pointers: never folded at compile
// time (GCC folds libm calls on constants with MPFR, correctly rounded,
// which glibc's lgamma is not).
double (*volatile host_lgamma)(double) = ::lgamma;
float (*volatile host_log1pf)(float) = ::log1pf;

// Whether this host's glibc is the reference (and, for the full sweeps,
// whether they were asked for); a message when not.
bool glibc_reference_here() {
#if XRNG_TORCH_POISSON_STEP == 1
  const char* full = std::getenv("XRNG_EXHAUSTIVE_FULL");
  if (full == nullptr || std::string(full) != "1") {
    MESSAGE("SKIPPED: the full sweeps run with XRNG_EXHAUSTIVE_FULL=1 (test_torch_cpu_poisson's strided ones ran)");
    return false;
  }
#endif
#if !defined(__GLIBC__) || !defined(__x86_64__)
  MESSAGE("SKIPPED: not glibc on x86-64: no reference for glibc 2.36's lgamma / log1pf");
  return false;
#else
  __builtin_cpu_init();
  if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    MESSAGE("SKIPPED: this CPU has no AVX2+FMA: glibc's lgamma calls its non-FMA log here");
    return false;
  }
  if (!(__GLIBC__ == 2 && __GLIBC_MINOR__ == 36)) {
    MESSAGE("SKIPPED: glibc " << gnu_get_libc_version() << " is not 2.36 (the version these ports were checked against)");
    return false;
  }
  return true;
#endif
}

bool same64(double a, double b) { return td::d2u(a) == td::d2u(b) || (std::isnan(a) && std::isnan(b)); }
bool same32(float a, float b) { return td::f2u(a) == td::f2u(b) || (std::isnan(a) && std::isnan(b)); }

}  // namespace

TEST_CASE("torch_cpu_poisson: glibc_lgamma equals this host's glibc lgamma on (0, inf], the poles, (-2^-70, 0)") {
  if (!glibc_reference_here()) return;
  long n = 0, bad = 0;
  double first_bad = 0;
  auto check = [&](double x) {
    const double got = td::glibc_lgamma(x), want = host_lgamma(x);
    if (!same64(got, want)) {
      if (bad == 0) first_bad = x;
      ++bad;
    }
    ++n;
  };
  // every integer 1..2^20 (sample_poisson's k + 1; 1..2^27 in the exhaustive build)
#if XRNG_TORCH_POISSON_STEP == 1
  constexpr uint32_t kIntegers = 1u << 27;
  constexpr int kPerBinade = 1 << 20;
#else
  constexpr uint32_t kIntegers = 1u << 20;
  constexpr int kPerBinade = 1 << 16;
#endif
  for (uint32_t k = 1; k <= kIntegers; ++k) check(static_cast<double>(k));
  tc::MT19937 mt(1905);
  auto bits64 = [&] { return static_cast<uint64_t>(mt()) << 32 | mt(); };
  // random integers k + 1 up to 2^63 (k from floor(), any magnitude a rate gives)
  for (int i = 0; i < (1 << 20); ++i) {
    const int e = static_cast<int>(bits64() % 63) + 1;
    check(static_cast<double>((bits64() & ((1ull << e) - 1)) | (1ull << (e - 1))));
  }
  // random doubles log-uniform over [1, 2^53] (each binade 2^16 times; 2^20 exhaustive)
  for (int e = 0; e < 53; ++e)
    for (int i = 0; i < kPerBinade; ++i) check(td::u2d((static_cast<uint64_t>(1023 + e) << 52) | (bits64() >> 12)));
  // ... over (0, 1) and beyond 2^53 to the largest double (fewer per binade)
  for (int e = 1; e < 2047; ++e) {
    if (e >= 1023 && e < 1023 + 53) continue;
    for (int i = 0; i < 256; ++i) check(td::u2d((static_cast<uint64_t>(e) << 52) | (bits64() >> 12)));
  }
  // subnormals, the branch boundaries (high words of e_lgamma_r.c's tests,
  // each side, and the low words around them), the specials
  for (int i = 0; i < 4096; ++i) check(td::u2d(bits64() >> 12));
  const uint32_t edges[] = {0x3b900000u, 0x3fcda661u, 0x3fe76944u, 0x3feccccdu, 0x3ff00000u, 0x3ff3b4c4u,
                            0x3ffbb4c3u, 0x40000000u, 0x40080000u, 0x40100000u, 0x40140000u, 0x40180000u,
                            0x401c0000u, 0x40200000u, 0x43300000u, 0x43400000u, 0x43900000u, 0x7fe00000u};
  for (uint32_t h : edges)
    for (int64_t d = -512; d <= 512; ++d) {
      const uint64_t base = static_cast<uint64_t>(h) << 32;
      check(td::u2d(base + static_cast<uint64_t>(d)));
      check(td::u2d(base + (static_cast<uint64_t>(d) << 32)));
    }
  // the negatives reproduced: poles (negative integers, everything from -2^52 down) and |x| < 2^-70
  for (int64_t k = 1; k <= 100; ++k) check(-static_cast<double>(k));
  for (int i = 0; i < 4096; ++i) {
    check(-td::u2d(((bits64() % 0x3b9) << 52) | (bits64() >> 12)));
    check(-td::u2d((static_cast<uint64_t>(1075 + bits64() % 970) << 52) | (bits64() >> 12)));
  }
  for (double x : {-std::numeric_limits<double>::infinity(), -0x1p52, -0x1p53, -1e300,
                   0.0, -0.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(), 1.0, 2.0, 0.5, 3.0,
                   8.0, 0x1p58, 0x1p63, 0x1p64})
    check(x);
  MESSAGE("lgamma: " << n << " inputs compared, " << bad << " differ");
  CHECK_MESSAGE(bad == 0, "first differing x = " << first_bad);
  CHECK(n > 6000000);
}

TEST_CASE("torch_cpu_poisson: glibc_log1pf equals this host's glibc log1pf") {
  if (!glibc_reference_here()) return;
  long n = 0, bad = 0;
  float first_bad = 0;
  auto check = [&](float x) {
    const float got = td::glibc_log1pf(x), want = host_log1pf(x);
    if (!same32(got, want)) {
      if (bad == 0) first_bad = x;
      ++bad;
    }
    ++n;
  };
  // binomial_inversion<float> gives it -prob, prob in (0, 1/2]: every float
  // there (0x3f000000 of them); then every XRNG_TORCH_POISSON_STEP-th float
  // of all 2^32 (every one in the exhaustive build), and the boundaries.
#if XRNG_TORCH_POISSON_STEP == 1
  for (uint32_t u = 0x80000001u; u <= 0xbf000000u; ++u) check(td::u2f(u));
#else
  for (uint32_t u = 0x80000001u; u <= 0xbf000000u; u += 7) check(td::u2f(u));
#endif
  for (uint64_t u = 0; u < (1ull << 32); u += XRNG_TORCH_POISSON_STEP) check(td::u2f(static_cast<uint32_t>(u)));
  const uint32_t edges[] = {0x3ed413d7u, 0xbe95f61fu, 0x31000000u, 0xb1000000u, 0x24800000u, 0xa4800000u,
                            0x5a000000u, 0x3f800000u, 0xbf800000u, 0x7f800000u, 0x3504f7u,   0x3f3504f7u};
  for (uint32_t h : edges)
    for (int d = -4096; d <= 4096; ++d) check(td::u2f(h + static_cast<uint32_t>(d)));
  MESSAGE("log1pf: " << n << " inputs compared, " << bad << " differ");
  CHECK_MESSAGE(bad == 0, "first differing x = " << first_bad);
}

TEST_CASE("torch_cpu_poisson: draws that take no uniform, and the x86-64 conversion") {
  tc::State s(42);
  const tc::State before = s;
  auto unchanged = [&] { return s.mt.state == before.mt.state && s.mt.left == before.mt.left && s.mt.next == before.mt.next; };
  CHECK(tc::poisson_value(s, 0.0) == 0);
  CHECK(tc::binomial_value<double>(s, 0.0, 0.5) == 0.0);
  CHECK(tc::binomial_value<double>(s, -3.0, 0.5) == 0.0);
  CHECK(tc::binomial_value<float>(s, 7.0f, 0.0f) == 0.0f);
  CHECK(tc::binomial_value<float>(s, 7.0f, 1.0f) == 7.0f);
  CHECK(tc::binomial_value<double>(s, 7.5, 2.0) == 7.5);
  CHECK(std::isnan(tc::binomial_value<double>(s, 7.0, std::nan(""))));
  CHECK(unchanged());
  // one uniform (two words) for a rate below 10 whose first product falls under exp(-lambda)
  tc::State s2(42);
  const int64_t k = tc::poisson_value(s2, 1e-3);
  CHECK(k >= 0);
  CHECK(s2.mt.next == static_cast<uint32_t>(2 * (k + 1)));  // seeded: next 0, the first word refills
  CHECK(td::x86_double_to_int64(-0.0) == 0);
  CHECK(td::x86_double_to_int64(0x1p63) == std::numeric_limits<int64_t>::min());
  CHECK(td::x86_double_to_int64(-0x1p63) == std::numeric_limits<int64_t>::min());
  CHECK(td::x86_double_to_int64(std::nan("")) == std::numeric_limits<int64_t>::min());
  CHECK(td::x86_double_to_int64(0x1.fffffffffffffp62) == std::numeric_limits<int64_t>::max() - 1023);
  CHECK(tc::binomial_never_returns(std::nanf(""), 0.5f));
  CHECK(!tc::binomial_never_returns(std::nanf(""), 1.0f));
  CHECK(!tc::binomial_never_returns(5.0f, 0.5f));
  // rates far above 2^63: every draw INT64_MIN (torch's x86-64 result)
  tc::State s3(7);
  for (double r : {1e19, 1e300, std::numeric_limits<double>::infinity()})
    CHECK(tc::poisson_value(s3, r) == std::numeric_limits<int64_t>::min());
}
