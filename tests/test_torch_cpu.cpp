// The torch CPU streams (rng/torch_cpu.h): their transcendental functions
// proven equal to their references over the whole input domain the stream
// gives them, and the engine against at::mt19937's known outputs.
//
// Domains: the float uniform takes the 2^24 values k 2^-24; the log gets
// u1 = 1 - k 2^-24, the angle theta = two_pi * k 2^-24 (x86) or
// float(2 pi k 2^-24) in binary64 (scalar). All 2^24 of each are compared.
//  * x86 kernel: against torch's own avx_mathfun.h (the header shipped in
//    the installed wheel, compiled as torch's AVX2 build compiles it:
//    tests/torch_ref/avx_mathfun_ref.cpp), when this build found torch and
//    runs on an AVX2+FMA x86-64 CPU; otherwise the test says it skipped.
//  * scalar kernel: against this machine's glibc logf/sinf/cosf (the
//    functions torch's default kernel calls), when the C library is glibc
//    2.28..2.40 (the versions of those algorithms).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "host/torch_cpu.h"
#include "rng/detail/math.h"
#include "rng/torch_cpu.h"
#include "tools/sha256.h"

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

namespace tc = xrng::torch_cpu;

// test_torch_cpu (label exhaustive) visits every input; test_torch_cpu_quick
// (label unit, also run under the sanitizers) every XRNG_TORCH_CPU_STEP-th.
#ifndef XRNG_TORCH_CPU_STEP
#define XRNG_TORCH_CPU_STEP 1
#endif
constexpr uint32_t kStep = XRNG_TORCH_CPU_STEP;
namespace td = xrng::torch_cpu::detail;

#if defined(XRNG_TORCH_AVX_REF)
namespace xrng_torch_ref {
void normal_fill_16(float* data, float mean, float std);
void log8(const float* x, float* y);
void sincos8(const float* x, float* s, float* c);
}  // namespace xrng_torch_ref
namespace xrng_torch_ref_msvc {  // the same header compiled without contraction (torch's Windows wheels)
void normal_fill_16(float* data, float mean, float std);
void log8(const float* x, float* y);
void sincos8(const float* x, float* s, float* c);
}  // namespace xrng_torch_ref_msvc
#endif

namespace {
bool same_bits(float a, float b) { return td::f2u(a) == td::f2u(b); }

// Whether this host's C library is a glibc whose logf/sinf/cosf algorithms
// the scalar kernel reproduces (2.28 to 2.40): the reference of the tests
// that compare with it, which report SKIPPED otherwise.
bool glibc_float_reference() {
#if !defined(__GLIBC__)
  MESSAGE("SKIPPED: the C library is not glibc: no reference for the scalar kernel");
  return false;
#else
  if (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 28 && __GLIBC_MINOR__ <= 40) return true;
  MESSAGE("SKIPPED: glibc " << gnu_get_libc_version() << " is not one of 2.28..2.40 (the algorithms reproduced)");
  return false;
#endif
}

#if defined(XRNG_TORCH_AVX_REF)
bool host_has_avx2_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif
}  // namespace

TEST_CASE("torch_cpu: mt19937 seeding and words as at::mt19937") {
  // MT19937's reference output (Matsumoto-Nishimura init_genrand(5489)):
  // the 10000th word is 4123659995 (C++ [rand.predef]).
  tc::MT19937 mt(5489);
  uint32_t w = 0;
  for (int i = 0; i < 10000; ++i) w = mt();
  CHECK(w == 4123659995u);
  // torch seeds with the low 32 bits of the 64-bit seed and keeps the seed.
  tc::MT19937 a((1ull << 32) + 7), b(7);
  CHECK(a.seed == (1ull << 32) + 7);
  for (int i = 0; i < 2000; ++i) REQUIRE(a() == b());
  // random64: the first word is the high half.
  tc::State s(3), t(3);
  const uint64_t hi = t.random(), lo = t.random();
  CHECK(s.random64() == ((hi << 32) | lo));
}

TEST_CASE("torch_cpu: an engine bound to outside words (the mode's in-place reads)") {
  // bind: the engine runs on the caller's array in place, the same words as
  // an engine holding them itself; refilled says when the array changed.
  tc::MT19937 own(99), ref(99);
  for (int i = 0; i < 300; ++i) own(), ref();
  std::array<uint32_t, tc::MT19937::N> outside = own.state;
  tc::MT19937 bound(tc::MT19937::Unseeded{});
  bound.seed = own.seed;
  bound.left = own.left;
  bound.next = own.next;
  bound.bind(outside.data());
  CHECK(bound.words == outside.data());
  for (int i = 0; i < 323; ++i) REQUIRE(bound() == ref());  // up to the word before the refill
  CHECK(!bound.refilled);
  CHECK(outside == own.state);  // nothing written yet
  for (int i = 0; i < 700; ++i) REQUIRE(bound() == ref());
  CHECK(bound.refilled);
  CHECK(outside == ref.state);  // refilled in place, as the reference's own array
  // a copy (or an assignment) copies the words, never the binding: independent
  tc::MT19937 copy = bound;
  CHECK(copy.words == copy.state.data());
  CHECK(copy.state == outside);
  tc::MT19937 assigned(5);
  assigned = bound;
  CHECK(assigned.words == assigned.state.data());
  for (int i = 0; i < 1500; ++i) {
    const uint32_t w = ref();
    REQUIRE(copy() == w);
    REQUIRE(assigned() == w);
  }
  CHECK(outside != copy.state);  // the copies' refills left the bound array alone
  bound = bound;  // self-assignment: the binding and words unchanged
  CHECK(bound.words == outside.data());
  // State copies (tests and callers take them) copy the words too
  tc::State s(4);
  tc::State t = s;
  CHECK(t.mt.words == t.mt.state.data());
  for (int i = 0; i < 1000; ++i) REQUIRE(s.random() == t.random());
}


TEST_CASE("torch_cpu: generate equals one call per word, across refills, from every phase") {
  // generate(out, n, f) draws in runs between refills; it must equal n calls
  // of operator() (values and the engine's counters after), for runs that
  // start anywhere in the 624-word cycle and cross zero, one or more refills,
  // and from a counter torch never leaves (left < 1: one call at a time).
  tc::MT19937 base(7);
  std::vector<uint32_t> got(2000), want(2000);
  for (int phase = 0; phase < 2 * tc::MT19937::N + 3; phase += 7) {
    for (int64_t n : {0, 1, 15, 16, 17, 623, 624, 625, 1300, 2000}) {
      tc::MT19937 a = base, b = base;
      a.generate(got.data(), n, [](uint32_t w) { return w; });
      for (int64_t i = 0; i < n; ++i) want[i] = b();
      REQUIRE(std::equal(got.begin(), got.begin() + n, want.begin()));
      REQUIRE(a.left == b.left);
      REQUIRE(a.next == b.next);
      REQUIRE(a.state == b.state);
      REQUIRE(a() == b());  // and the next word
    }
    base();
  }
  // generate64: random64's pairs, a pair straddling a refill included
  std::vector<uint64_t> got64(1100), want64(1100);
  for (int phase = 0; phase < 2 * tc::MT19937::N + 3; phase += 5) {
    for (int64_t n : {0, 1, 16, 311, 312, 313, 1100}) {
      tc::State a(7), b(7);
      for (int i = 0; i < phase; ++i) a.random(), b.random();
      a.mt.generate64(got64.data(), n, [](uint64_t w) { return w; });
      for (int64_t i = 0; i < n; ++i) want64[i] = b.random64();
      REQUIRE(std::equal(got64.begin(), got64.begin() + n, want64.begin()));
      REQUIRE(a.mt.left == b.mt.left);
      REQUIRE(a.mt.next == b.mt.next);
      REQUIRE(a.random() == b.random());
    }
  }
  std::vector<double> d(333);
  tc::State sd(12), rd(12);
  tc::uniforms_f64(sd, d.data(), 333);
  for (int i = 0; i < 333; ++i) REQUIRE(d[i] == tc::uniform_f64(rd.random64()));
  // the float32 uniforms of the fills: uniform_f32 of each word, in order
  tc::State s(11), r(11);
  std::vector<float> u(700);
  tc::uniforms_f32(s, u.data(), 700);
  for (int i = 0; i < 700; ++i) REQUIRE(u[i] == tc::uniform_f32(r.random()));
  // a counter outside torch's range: the same calls all the same
  tc::MT19937 odd(3), odd_ref(3);
  odd.left = odd_ref.left = 0;
  odd.generate(got.data(), 5, [](uint32_t w) { return w; });
  for (int i = 0; i < 5; ++i) REQUIRE(got[i] == odd_ref());
  CHECK(odd.left == odd_ref.left);
}
TEST_CASE("torch_cpu: state round trip through torch's byte layout") {
  tc::State s(12345);
  for (int i = 0; i < 1000; ++i) s.random();
  s.has_next_double_normal = true;
  s.next_double_normal = -0.25;
  s.has_next_float_normal = true;
  s.next_float_normal = 1.5f;
  std::vector<uint8_t> bytes(tc::kTorchStateBytes);
  tc::to_torch_state(s, bytes.data());
  tc::State r = tc::from_torch_state(bytes.data(), bytes.size());
  CHECK(r.mt.left == s.mt.left);
  CHECK(r.mt.next == s.mt.next);
  CHECK(r.mt.seed == s.mt.seed);
  CHECK(r.has_next_double_normal);
  CHECK(r.next_double_normal == -0.25);
  CHECK(r.has_next_float_normal);
  CHECK(r.next_float_normal == 1.5f);
  for (int i = 0; i < 2000; ++i) REQUIRE(r.random() == s.random());
  CHECK_THROWS_AS(tc::from_torch_state(bytes.data(), 100), std::invalid_argument);
}

#if defined(XRNG_TORCH_AVX_REF)
// The bits of kernel k's log, sincos and 16-wide transform (Fused: x86's
// contracted functions, or x86_windows' uncontracted ones) that differ from a
// compiled avx_mathfun.h reference (Ref: xrng_torch_ref or xrng_torch_ref_msvc),
// over all 2^24 uniforms (every kStep-th); fill: the whole transform on strided
// blocks covering both halves' domains. other_log: log bits that differ from
// the other variant (a check that the two references can be told apart).
struct AvxBad {
  long log = 0, sin = 0, cos = 0, fill = 0, other_log = 0;
};
template <bool Fused>
AvxBad avx_kernel_vs(void (*log8)(const float*, float*), void (*sincos8)(const float*, float*, float*),
                     void (*fill16)(float*, float, float), tc::Kernel k) {
  const float two_pi = static_cast<float>(2.0 * 3.14159265358979323846);
  AvxBad bad;
  float in[8], lg[8], sn[8], cs[8];
  for (uint32_t k0 = 0; k0 < (1u << 24); k0 += 8 * kStep) {
    for (int l = 0; l < 8; ++l) in[l] = 1.0f - static_cast<float>(k0 + l) * 0x1p-24f;
    log8(in, lg);
    for (int l = 0; l < 8; ++l) bad.log += !same_bits(td::x86_log<Fused>(in[l]), lg[l]);
    for (int l = 0; l < 8; ++l) bad.other_log += !same_bits(td::x86_log<!Fused>(in[l]), lg[l]);
    for (int l = 0; l < 8; ++l) in[l] = two_pi * (static_cast<float>(k0 + l) * 0x1p-24f);
    sincos8(in, sn, cs);
    for (int l = 0; l < 8; ++l) {
      float s, c;
      td::x86_sincos<Fused>(in[l], &s, &c);
      bad.sin += !same_bits(s, sn[l]);
      bad.cos += !same_bits(c, cs[l]);
    }
  }
  for (uint32_t k0 = 0; k0 < (1u << 24); k0 += 16 * 61 * kStep) {
    float a[16], b[16];
    for (int l = 0; l < 16; ++l) a[l] = b[l] = static_cast<float>((k0 + 997u * l) & 0xffffffu) * 0x1p-24f;
    fill16(a, 0.5f, 3.0f);
    tc::normal_fill16(b, 0.5f, 3.0f, k, false);  // (x86 kernels: the last step fused whatever `fused` says)
    for (int l = 0; l < 16; ++l) bad.fill += !same_bits(a[l], b[l]);
  }
  return bad;
}
#endif

TEST_CASE("torch_cpu: x86 kernels equal torch's avx_mathfun.h over all 2^24 uniforms") {
#if !defined(XRNG_TORCH_AVX_REF)
  MESSAGE("SKIPPED: this build found no torch headers (or is not x86-64): no avx_mathfun.h reference");
  return;
#else
  if (!host_has_avx2_fma()) {
    MESSAGE("SKIPPED: this CPU has no AVX2+FMA to run torch's reference");
    return;
  }
  SUBCASE("x86: the header as GCC compiles it for the Linux wheels (contracted)") {
    const AvxBad bad = avx_kernel_vs<true>(xrng_torch_ref::log8, xrng_torch_ref::sincos8,
                                           xrng_torch_ref::normal_fill_16, tc::Kernel::x86);
    CHECK(bad.log == 0);
    CHECK(bad.sin == 0);
    CHECK(bad.cos == 0);
    CHECK(bad.fill == 0);
    CHECK(bad.other_log > 0);
  }
  SUBCASE("x86_windows: the header as MSVC compiles it for the Windows wheels (nothing contracted)") {
    const AvxBad bad = avx_kernel_vs<false>(xrng_torch_ref_msvc::log8, xrng_torch_ref_msvc::sincos8,
                                            xrng_torch_ref_msvc::normal_fill_16, tc::Kernel::x86_windows);
    CHECK(bad.log == 0);
    CHECK(bad.sin == 0);
    CHECK(bad.cos == 0);
    CHECK(bad.fill == 0);
    CHECK(bad.other_log > 0);
  }
#endif
}

TEST_CASE("torch_cpu: scalar kernel equals glibc logf/sinf/cosf over all 2^24 uniforms") {
  if (!glibc_float_reference()) return;
  long bad_log = 0, bad_sin = 0, bad_cos = 0;
  for (uint32_t k = 0; k < (1u << 24); k += kStep) {
    const float u = static_cast<float>(k) * 0x1p-24f;
    const float u1 = 1.0f - u;
    bad_log += !same_bits(td::glibc_logf(u1), ::logf(u1));
    const float theta = static_cast<float>(2.0 * 3.14159265358979323846 * static_cast<double>(u));
    bad_sin += !same_bits(td::glibc_sinf(theta), ::sinf(theta));
    bad_cos += !same_bits(td::glibc_cosf(theta), ::cosf(theta));
  }
  CHECK(bad_log == 0);
  CHECK(bad_sin == 0);
  CHECK(bad_cos == 0);
}

TEST_CASE("torch_cpu: torch 1.13 to 2.11's 16-bit normal: glibc logf/sinf/cosf on every argument it takes") {
  // Release r2_1 / r1_13 (SPEC.md 14.7): u1 = 1 - u and theta = 2 pi u rounded
  // to the 16-bit type, u one of the 2^11 (float16) or 2^8 (bfloat16)
  // uniforms: every argument of the three functions, against the host's glibc.
  if (!glibc_float_reference()) return;
  long bad = 0, args = 0;
  for (const bool bf16 : {false, true}) {
    for (uint32_t w = 0; w < (bf16 ? 256u : 2048u); ++w) {
      const float u = tc::uniform16_legacy(w, bf16);
      const float u1 = tc::round16(1.0f - u, bf16);
      const float theta = tc::round16(static_cast<float>(2.0 * 3.14159265358979323846 * static_cast<double>(u)), bf16);
      bad += !same_bits(td::glibc_logf(u1), ::logf(u1)) + !same_bits(td::glibc_sinf(theta), ::sinf(theta)) +
             !same_bits(td::glibc_cosf(theta), ::cosf(theta));
      args += 3;
    }
  }
  CHECK(args == 3 * (2048 + 256));
  CHECK(bad == 0);
}

TEST_CASE("torch_cpu: torch 1.13 to 2.11's 16-bit normal: the table path equals normal_fill_16 as torch wrote it") {
  // normal16_legacy looks the radius, cos and sin up by the uniforms' bits;
  // here torch's normal_fill<scalar_t> spelled out: all n uniforms, then
  // normal_fill16_legacy per block, the last 16 redrawn. Every variant, both
  // kernels, a mean and std that are not 0 and 1, sizes with and without a tail.
  for (const bool bf16 : {false, true})
    for (const tc::Release r : {tc::Release::r2_1, tc::Release::r1_13})
      for (const tc::Kernel k : {tc::Kernel::x86, tc::Kernel::scalar})
        for (const int64_t n : {16, 4099, 20000}) {
          tc::State a(77), b(77);
          std::vector<uint16_t> got(static_cast<size_t>(n)), want(static_cast<size_t>(n));
          tc::normal16_legacy(a, n, 1.5f, 0.3f, bf16, r, k, [&](int64_t i, uint16_t v) { got[static_cast<size_t>(i)] = v; });
          std::vector<float> d(static_cast<size_t>(n));
          for (auto& v : d) v = tc::uniform16_legacy(b.random(), bf16);
          for (int64_t i = 0; i + 16 <= n; i += 16) tc::normal_fill16_legacy(d.data() + i, 1.5f, 0.3f, bf16, r, k);
          if (n % 16 != 0) {
            for (int64_t i = n - 16; i < n; ++i) d[static_cast<size_t>(i)] = tc::uniform16_legacy(b.random(), bf16);
            tc::normal_fill16_legacy(d.data() + n - 16, 1.5f, 0.3f, bf16, r, k);
          }
          for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(i)] = tc::bits16(d[static_cast<size_t>(i)], bf16);
          CHECK_MESSAGE(got == want, "bf16 " << bf16 << " release " << static_cast<int>(r) << " n " << n);
          CHECK(a.random() == b.random());  // the same words consumed
        }
}

TEST_CASE("torch_cpu: release_of names the draws of a torch release") {
  CHECK(tc::release_of("1.13") == tc::Release::r1_13);
  CHECK(tc::release_of("1.13.1") == tc::Release::r1_13);
  CHECK(tc::release_of("2.0.1") == tc::Release::r2_0);
  CHECK(tc::release_of("2.1") == tc::Release::r2_1);
  CHECK(tc::release_of("2.2.2") == tc::Release::r2_1);
  CHECK(tc::release_of("2.3") == tc::Release::r2_3);
  CHECK(tc::release_of("2.6.0") == tc::Release::r2_3);
  CHECK(tc::release_of("2.7") == tc::Release::r2_7);
  CHECK(tc::release_of("2.11.0+cu130") == tc::Release::r2_7);
  CHECK(tc::release_of("2.12") == tc::Release::r2_12);
  CHECK(tc::release_of("2.12.1") == tc::Release::r2_12);
  CHECK(tc::release_of("2.13") == tc::Release::r2_13);
  CHECK(tc::release_of("2.15.0") == tc::Release::r2_13);
  CHECK(tc::release_of("10.0") == tc::Release::r2_13);
  for (const char* bad : {"", "2", "2.", "2.4.", ".4", "2..4", "2.4.1.1", "a.b", "2.x", "1.12.1", "0.4", "1234567.1"})
    CHECK_THROWS_AS(tc::release_of(bad), std::invalid_argument);
  // what each release draws where releases differ (SPEC.md 14.7)
  using R = tc::Release;
  using K = tc::Kernel;
  for (const R r : {R::r2_13, R::r2_12, R::r2_7, R::r2_3, R::r2_1, R::r2_0, R::r1_13}) {
    const int v = static_cast<int>(r);
    CHECK(tc::legacy16(r) == (v >= 2));
    CHECK(tc::f16_normal_in_float(r) == (v >= 5));
    for (const K k : {K::x86, K::scalar})
      CHECK(tc::mkl_bernoulli(r, k) == (v >= 3 && v <= 5));
    CHECK_FALSE(tc::mkl_bernoulli(r, K::arm));  // (torch's AArch64 wheels have no MKL)
    CHECK(tc::randint_wide(r) == (v >= 3 ? uint64_t{1} << 32 : uint64_t{1} << 28));
    // AArch64 builds: a double to float16 in one rounding from 2.3 on; their multiply-adds always fused
    CHECK(tc::f16_direct(K::arm, r) == (v <= 3));
    CHECK_FALSE(tc::f16_direct(K::x86, r));
    CHECK_FALSE(tc::f16_direct(K::scalar, r));
    CHECK(tc::fuses_normal(K::arm, r));
    CHECK(tc::fuses_normal(K::scalar, r) == (r == R::r2_13));
  }
  CHECK(tc::fuses(K::x86));
  CHECK(tc::fuses(K::arm));
  CHECK_FALSE(tc::fuses(K::scalar));
}

// ---- torch's AArch64 wheels (Kernel::arm, SPEC.md 14.8) ----

TEST_CASE("torch_cpu: f64_to_f16_bits rounds a double to binary16 once, to nearest even") {
  namespace m = xrng::math;
  auto check = [](double d) {
#if defined(__x86_64__) && defined(__FLT16_MAX__)  // (GCC 12 has C++'s _Float16 on x86-64, not on AArch64)
    const _Float16 h = static_cast<_Float16>(d);  // (GCC's conversion: one correctly rounded step)
    uint16_t want;
    std::memcpy(&want, &h, 2);
    CHECK_MESSAGE(xrng::math::f64_to_f16_bits(d) == want, std::hexfloat << d);
#else
    (void)d;
#endif
  };
  // every binary16 value, the midpoints above it and a double either side of each (where two roundings
  // through float differ from one), both signs
  for (uint32_t h = 0; h < 0x7c00u; ++h) {
    const double lo = m::f16_bits_to_f32(static_cast<uint16_t>(h)), hi = m::f16_bits_to_f32(static_cast<uint16_t>(h + 1));
    const double mid = (lo + hi) / 2;
    for (const double d : {lo, mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e300)}) {
      check(d);
      check(-d);
    }
  }
  for (const double d : {0.0, 65504.0, 65519.99, 65520.0, 1e300, 0x1p-24, 0x1p-25, 0x1.0000000000001p-25, 1e-300,
                         std::numeric_limits<double>::infinity()})
    check(d);
  CHECK((m::f64_to_f16_bits(std::numeric_limits<double>::quiet_NaN()) & 0x7e00u) == 0x7e00u);
  // a value whose rounding through float lands on a binary16 midpoint: two roundings go up, one does not
  const double d = 1.0 + 3 * 0x1p-11 - 0x1p-40;  // just below the midpoint of 1 + 2^-10 and 1 + 2^-9
  CHECK(m::f64_to_f16_bits(d) == 0x3c01u);
  CHECK(m::f32_to_f16_bits(static_cast<float>(d)) == 0x3c02u);  // (float: the midpoint; then to even)
}

TEST_CASE("torch_cpu: kernel arm is the scalar kernel's functions with x86's fused multiply-adds, no MKL") {
  using K = tc::Kernel;
  using R = tc::Release;
  // uniform_(from, to) and cauchy_: x86's fused values
  {
    tc::State a(5), b(5), c(5);
    std::vector<float> x(1000), y(1000), z(1000);
    tc::uniform(a, 1000, -2.3, 5.1, K::arm, xrng::DType::f32, x.data());
    tc::uniform(b, 1000, -2.3, 5.1, K::x86, xrng::DType::f32, y.data());
    tc::uniform(c, 1000, -2.3, 5.1, K::scalar, xrng::DType::f32, z.data());
    CHECK(x == y);
    CHECK(x != z);  // (2.7.1's AArch64 wheel: 521 of 1000 differ from the default build's, measured)
    tc::State d(5), e(5);
    std::vector<double> p(1000), q(1000);
    tc::cauchy(d, 1000, 0.5, 2.3, K::arm, xrng::DType::f64, p.data());
    tc::cauchy(e, 1000, 0.5, 2.3, K::x86, xrng::DType::f64, q.data());
    CHECK(p == q);
  }
  // the 16-wide normal: glibc's functions (the scalar kernel's), the last step fused in every release
  for (const R r : {R::r2_13, R::r2_12, R::r2_7, R::r2_3, R::r2_1, R::r2_0, R::r1_13}) {
    tc::State a(9), b(9);
    std::vector<float> x(1000), y(1000);
    tc::randn(a, 1000, 0.7, 0.3, K::arm, xrng::DType::f32, x.data(), true, r);
    tc::randn(b, 1000, 0.7, 0.3, K::scalar, xrng::DType::f32, y.data(), true, R::r2_13);  // (2.13: fused)
    CHECK(x == y);
  }
  // the element-wise float64 values rounded to float16 once from 2.3 on (two roundings before, and on x86)
  for (const R r : {R::r2_3, R::r2_1}) {
    tc::State a(12), b(12);
    const int64_t n = 20000;
    std::vector<uint16_t> h(n);
    std::vector<double> d(n);
    tc::exponential(a, n, 1.7, xrng::DType::f16, h.data(), r, K::arm);
    tc::exponential(b, n, 1.7, xrng::DType::f64, d.data(), r, K::arm);
    int64_t direct = 0, twice = 0;
    for (int64_t i = 0; i < n; ++i) {
      direct += h[i] == xrng::math::f64_to_f16_bits(d[i]);
      twice += h[i] == xrng::math::f32_to_f16_bits(static_cast<float>(d[i]));
    }
    CHECK((r == R::r2_3 ? direct : twice) == n);
    CHECK(direct != twice);  // (some value of the 20000 rounds differently)
  }
  // bernoulli_(p) in 2.0 to 2.6: torch's per-element draw, no MKL (and no word for no elements)
  for (const R r : {R::r2_3, R::r2_1, R::r2_0}) {
    tc::State a(4), b(4);
    std::vector<float> x(500);
    tc::bernoulli(a, 500, 0.3, xrng::DType::f32, x.data(), r, K::arm);
    for (int i = 0; i < 500; ++i) CHECK(x[static_cast<size_t>(i)] == (tc::bernoulli_value(b, 0.3) ? 1.0f : 0.0f));
    CHECK(a.random() == b.random());
  }
}

// ---- torch's AArch64 wheels on a 256-bit SVE CPU (Kernel::arm_sve256, SPEC.md 14.8) ----

namespace {
// a b + c rounded to binary16 once, exactly: binary16 values are integers times 2^-24, so the sum is an integer
// times 2^-48 below 2^81 in magnitude (__int128), rounded to nearest even at the binary16 spacing of its
// binade (2^-24 at the least), then held exactly by a double
uint16_t f16_fma_reference(uint16_t ha, uint16_t hb, uint16_t hc) {
  namespace m = xrng::math;
  auto units = [](uint16_t h) {  // the value times 2^24, an integer
    const __int128 v = static_cast<__int128>(std::ldexp(static_cast<double>(m::f16_bits_to_f32(h)), 24));
    return v;
  };
  const __int128 s = units(ha) * units(hb) + units(hc) * (static_cast<__int128>(1) << 24);  // times 2^48
  if (s == 0) return 0;  // (the sign of an exact zero: compared apart)
  const unsigned __int128 a = s < 0 ? static_cast<unsigned __int128>(-s) : static_cast<unsigned __int128>(s);
  int top = 127;
  while (!((a >> top) & 1u)) --top;  // |s| in [2^top, 2^(top + 1)) units: binade 2^(top - 48)
  const int k = std::max(top - 48, -14) - 10 + 48;  // the binary16 spacing there, in units (2^-24 at the least)
  unsigned __int128 q = a >> k;
  const unsigned __int128 one = 1, rem = a & ((one << k) - 1u), half = one << (k - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  const double v = std::ldexp(static_cast<double>(static_cast<uint64_t>(q)), k - 48);
  return m::f64_to_f16_bits(s < 0 ? -v : v);
}
}  // namespace

TEST_CASE("torch_cpu: f16_fma_bits is a binary16 fused multiply-add, rounded once") {
  namespace m = xrng::math;
  auto check = [](uint16_t a, uint16_t b, uint16_t c) {
    const uint16_t got = m::f16_fma_bits(m::f16_bits_to_f32(a), m::f16_bits_to_f32(b), m::f16_bits_to_f32(c));
    const uint16_t want = f16_fma_reference(a, b, c);
    if (want == 0) {
      CHECK((got & 0x7fffu) == 0u);
    } else {
      CHECK_MESSAGE(got == want, std::hex << a << " " << b << " " << c << ": " << got << " want " << want);
    }
    return got;
  };
  // random finite operands (every binade, subnormals, both signs), and products that are exactly a binary16
  // midpoint with the smallest subnormal added or subtracted (the binary64 sum inexact above |p| ~ 2^5: round
  // to odd decides the tie) or nothing (ties to even)
  uint64_t x = 0x9e3779b97f4a7c15ull;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  auto finite = [&next] {
    uint16_t h;
    do h = static_cast<uint16_t>(next()); while ((h & 0x7c00u) == 0x7c00u);
    return h;
  };
  int ties = 0;
  for (int i = 0; i < 2000000; ++i) {
    const uint16_t a = finite(), b = finite();
    check(a, b, finite());
    const double p = static_cast<double>(m::f16_bits_to_f32(a)) * m::f16_bits_to_f32(b);
    const uint16_t lo = m::f64_to_f16_bits(p);
    const double r = m::f16_bits_to_f32(lo);
    if (std::fabs(p) >= 65504.0 || std::fabs(p) < 0x1p-14 || r == p) continue;
    const double nb = m::f16_bits_to_f32(static_cast<uint16_t>((p > r) == (p > 0) ? lo + 1 : lo - 1));
    if (p != (r + nb) / 2) continue;  // not a midpoint
    ++ties;
    check(a, b, 0x0001u);  // +2^-24
    check(a, b, 0x8001u);  // -2^-24
    check(a, b, 0x0000u);
  }
  CHECK(ties > 100);
  // one by hand: 255 * 257.5 = 65662.5 overflows; 31 * 33 = 1023, exact; (1 + 2^-10)(1 + 2^-1) = 1.5 + 1.5 2^-10,
  // the midpoint of 1.5 + 2^-10 and 1.5 + 2^-9: ties to even (up, 0x3e02), and 2^-24 less: down (0x3e01)
  CHECK(m::f16_fma_bits(1.0f + 0x1p-10f, 1.5f, 0.0f) == 0x3e02u);
  CHECK(m::f16_fma_bits(1.0f + 0x1p-10f, 1.5f, -0x1p-24f) == 0x3e01u);
  CHECK(m::f16_fma_bits(31.0f, 33.0f, 0.0f) == m::f32_to_f16_bits(1023.0f));
  CHECK(m::f16_fma_bits(255.0f, 257.5f, 0.0f) == 0x7c00u);
}

TEST_CASE("torch_cpu: kernel arm_sve256 is arm but float16's 16-wide normal up to 2.11, one float16 fma") {
  using K = tc::Kernel;
  using R = tc::Release;
  CHECK(tc::is_arm(K::arm_sve256));
  CHECK(tc::fuses(K::arm_sve256));
  CHECK_FALSE(tc::mkl_bernoulli(R::r2_3, K::arm_sve256));
  CHECK(tc::f16_direct(K::arm_sve256, R::r2_3));
  auto f16_normal = [](K k, R r, double mean, double sd, uint64_t seed) {
    tc::State s(seed);
    std::vector<uint16_t> h(1000);
    tc::randn(s, 1000, mean, sd, k, xrng::DType::f16, h.data(), true, r);
    return h;
  };
  for (const R r : {R::r2_13, R::r2_12, R::r2_7, R::r2_3, R::r2_1, R::r2_0}) {
    const bool differs = r == R::r2_7 || r == R::r2_3 || r == R::r2_1;  // 2.1 to 2.11 (each step in float16)
    CHECK(f16_normal(K::arm_sve256, r, 0.0, 1.0, 3) == f16_normal(K::arm, r, 0.0, 1.0, 3));
    CHECK(f16_normal(K::arm_sve256, r, 1.5, 2.0, 3) == f16_normal(K::arm, r, 1.5, 2.0, 3));  // (an exact product)
    CHECK((f16_normal(K::arm_sve256, r, 0.7, 0.3, 3) != f16_normal(K::arm, r, 0.7, 0.3, 3)) == differs);
    tc::State a(3), b(3);
    std::vector<uint16_t> x(1000), y(1000);
    tc::randn(a, 1000, 0.7, 0.3, K::arm_sve256, xrng::DType::bf16, x.data(), true, r);
    tc::randn(b, 1000, 0.7, 0.3, K::arm, xrng::DType::bf16, y.data(), true, r);
    CHECK(x == y);  // (no bfloat16 arithmetic on those CPUs)
  }
  // 2.11.0's AArch64 wheel, SVE256 capability (qemu-aarch64 -cpu max,sve256=on), seed 0: elements 4, 24, 27
  // of normal_(0.7, 0.3) over 1000 float16 (DEFAULT: 15238, 14170, 15308), measured; and each element is the
  // float16 fma of randn's (mean 0, std 1) value
  const std::vector<uint16_t> v = f16_normal(K::arm_sve256, R::r2_7, 0.7, 0.3, 0);
  const std::vector<uint16_t> z = f16_normal(K::arm, R::r2_7, 0.0, 1.0, 0);
  CHECK(v[4] == 15237u);
  CHECK(v[24] == 14169u);
  CHECK(v[27] == 15309u);
  const std::vector<uint16_t> w = f16_normal(K::arm, R::r2_7, 0.7, 0.3, 0);
  CHECK(w[4] == 15238u);
  CHECK(w[24] == 14170u);
  CHECK(w[27] == 15308u);
  namespace m = xrng::math;
  const float sd = m::f16_bits_to_f32(m::f32_to_f16_bits(0.3f)), mean = m::f16_bits_to_f32(m::f32_to_f16_bits(0.7f));
  for (size_t i = 0; i < v.size(); ++i) CHECK(v[i] == m::f16_fma_bits(m::f16_bits_to_f32(z[i]), sd, mean));
}

// ---- torch 2.0 to 2.6: the scalar-p bernoulli_ of MKL's MCG31 (MklBernoulli), randint's 32-bit ranges ----

TEST_CASE("torch_cpu: MklBernoulli's limit is where float(x / (2^31 - 1)) < float(p) turns false") {
  // x / m rounded to double then to float grows with x (each rounding is
  // monotone), so the comparison holds exactly for x below one limit: check
  // it on both sides of the limit for p of every kind.
  using M = tc::MklBernoulli;
  std::vector<double> ps = {0.0, 1.0, 0.5, 0.3, 0.1, 1e-10, 1e-7, 0.9999999, 1 - 1e-12, 0x1p-31, 0x1p-30};
  tc::State s(5);
  for (int i = 0; i < 300; ++i) {
    const uint32_t x = 1 + s.random() % (M::kM - 1);
    const float u = M::uniform(x);
    ps.push_back(u);  // p exactly a uniform, its float neighbours, and the doubles between
    ps.push_back(std::nextafter(u, 2.0f));
    ps.push_back(std::nextafter(u, -1.0f));
    ps.push_back((static_cast<double>(u) + std::nextafter(u, 2.0f)) / 2);
    ps.push_back(static_cast<double>(x) / M::kM);
    ps.push_back(s.random() * 0x1p-32);
  }
  for (const double p : ps) {
    if (!(p >= 0.0 && p <= 1.0)) continue;
    const uint32_t lim = M::limit_of(p);
    const float pf = static_cast<float>(p);
    if (lim > 0) CHECK_MESSAGE(M::uniform(lim - 1) < pf, "p " << p);
    if (lim < M::kM) CHECK_MESSAGE(!(M::uniform(lim) < pf), "p " << p);
  }
  CHECK(M::limit_of(0.0) == 0);     // never 1
  CHECK(M::limit_of(1.0) < M::kM);  // u rounds to 1.0f near the top: p = 1 gives 0 there (torch 2.0 to 2.6's)
}

TEST_CASE("torch_cpu: MklBernoulli gives torch 2.0.1's values (measured), skips as it steps") {
  // torch 2.0.1 (x86-64 wheel): torch.manual_seed(0); torch.empty(20).bernoulli_(0.3)
  const int want[20] = {1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0};
  tc::State s(0);
  std::vector<float> got(20);
  tc::bernoulli(s, 20, 0.3, xrng::DType::f32, got.data(), tc::Release::r2_0);
  for (int i = 0; i < 20; ++i) CHECK(got[static_cast<size_t>(i)] == static_cast<float>(want[i]));
  tc::State ref(0);
  ref.random();
  CHECK(s.random() == ref.random());  // one word for the whole call
  // torch 2.0.1: torch.manual_seed(0); torch.empty(71627630, dtype=torch.int32).bernoulli_(1.0): all ones but
  // the last (its x rounds to 1.0f); skip() reaches it
  tc::State s0(0);
  tc::MklBernoulli g(s0, 1.0);
  tc::MklBernoulli h = g;
  g.skip(71627629);
  CHECK(!g.next());
  for (int i = 0; i < 1000; ++i) CHECK(h.next());
  tc::MklBernoulli k = g;  // skip(k) is k steps
  for (int i = 0; i < 777; ++i) g.next();
  k.skip(777);
  CHECK(g.x == k.x);
  // fill(n) (16 lanes) and the host's mkl_bernoulli_u8 (8 AVX2 lanes where the CPU has them) are next() n
  // times, and leave the stream where they do
  for (const double p : {0.3, 0.5, 1.0, 0.1})
    for (const int64_t n : {0, 1, 7, 8, 9, 63, 64, 65, 1000, 4099, 100003}) {
      tc::State s1(11), s2(11), s3(11);
      tc::MklBernoulli a(s1, p), b(s2, p), c(s3, p, tc::Kernel::x86_intel);
      std::vector<int> got(static_cast<size_t>(n)), want(static_cast<size_t>(n));
      std::vector<uint8_t> bytes(static_cast<size_t>(n) + 1, 7);
      a.fill(n, [&](int64_t i, bool v) { got[static_cast<size_t>(i)] = v; });
      tc::MklBernoulli u = b;
      for (auto& v : want) v = b.next();
      CHECK_MESSAGE(got == want, "n " << n);
      CHECK(a.x == b.x);
      tc::mkl_bernoulli_u8(u, n, bytes.data());
      CHECK(std::equal(want.begin(), want.end(), bytes.begin()));
      CHECK(bytes[static_cast<size_t>(n)] == 7);  // (nothing past n)
      CHECK(u.x == b.x);
      tc::MklBernoulli cu = c;  // Intel's threshold
      tc::mkl_bernoulli_u8(cu, n, bytes.data());
      for (int64_t i = 0; i < n; ++i) CHECK(bytes[static_cast<size_t>(i)] == c.next());
    }
  // mul is x y mod (2^31 - 1)
  tc::State r(8);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t u = 1 + r.random() % (tc::MklBernoulli::kM - 1), v = 1 + r.random() % (tc::MklBernoulli::kM - 1);
    CHECK(tc::MklBernoulli::mul(u, v) == static_cast<uint64_t>(u) * v % tc::MklBernoulli::kM);
  }
  // no elements: the word is still taken (torch 2.0.1: empty(0).bernoulli_(0.5) advances the generator)
  tc::State e(3), e2(3);
  tc::bernoulli(e, 0, 0.5, xrng::DType::f32, nullptr, tc::Release::r2_1);
  e2.random();
  CHECK(e.random() == e2.random());
  tc::State d(3), d2(3);
  tc::bernoulli(d, 0, 0.5, xrng::DType::f32, nullptr, tc::Release::r2_7);  // 2.7 on: nothing
  CHECK(d.random() == d2.random());
}

TEST_CASE("torch_cpu: MKL's draws on an Intel CPU without AVX2 (scalar-intel): known answers") {
  // sLn_E9LAynn (torch 2.0.1's static MKL, run natively: tests/torch_versions/mkl/check_mkl.sh proves it and
  // H8LAynn on every positive normal float) where it is neither the generic kernel's nor l9's
  const uint32_t e9_kat[][2] = {
      {0x328b51d3u, 0xc18f7f28u}, {0x35be2f88u, 0xc15778b8u}, {0x3705bb6au, 0xc13bd5cau}, {0x38f10d3du, 0xc1112325u}};
  for (const auto& k : e9_kat) {
    const float x = tc::detail::u2f(k[0]);
    CHECK_MESSAGE(tc::detail::f2u(tc::mkl_ln_f32_e9(x)) == k[1], std::hex << k[0]);
    CHECK(tc::detail::f2u(tc::mkl_ln_f32(x)) != k[1]);
    CHECK(tc::detail::f2u(tc::mkl_ln_f32_l9(x)) != k[1]);
  }
  CHECK(tc::detail::f2u(tc::mkl_ln_f32_e9(1.0f)) == 0u);
  // vsRngExponential(MCG31 seeded 123456789, FLT_MIN, float(1 / 1.5)) there: the generic uniform, e9's logarithm,
  // a - ln beta rounded twice
  const uint32_t exp_kat[8] = {0x3ff3b9cau, 0x3f1bcc82u, 0x3f1687d8u, 0x3cf31864u,
                               0x3ebda553u, 0x3e79973bu, 0x3edc1668u, 0x3f53fc06u};
  tc::MklExponential g(123456789u, tc::Kernel::scalar_intel);
  for (const uint32_t want : exp_kat) CHECK(tc::detail::f2u(g.next_f32(static_cast<float>(1.0 / 1.5))) == want);
  // its uniform, so bernoulli_'s threshold, is the generic kernel's; float64 exponential_ refused (Intel's vdLn)
  CHECK(tc::MklBernoulli::uniform(262060616u, tc::Kernel::scalar_intel) == 0x1.f3d74ap-4f);
  CHECK(tc::MklBernoulli::limit_of(0.1, tc::Kernel::scalar_intel) == 214748360u);
  CHECK(tc::mkl_exponential_f64_refused(tc::Release::r2_3, tc::Kernel::scalar_intel));
  {
    tc::State s(4), ref(4);
    double out[3];
    CHECK_THROWS_AS(tc::exponential(s, 3, 1.5, xrng::DType::f64, out, tc::Release::r2_0, tc::Kernel::scalar_intel),
                    std::invalid_argument);
    CHECK(s.random() == ref.random());
  }
  // every other draw is the default build's: no fused multiply-add, not x86's build
  tc::Kernel named = tc::Kernel::x86;
  CHECK((tc::kernel_named("scalar-intel", named) && named == tc::Kernel::scalar_intel));
  CHECK_FALSE(tc::fuses(tc::Kernel::scalar_intel));
  CHECK_FALSE(tc::is_x86_linux(tc::Kernel::scalar_intel));
  CHECK(tc::mkl_exponential(tc::Release::r2_0, tc::Kernel::scalar_intel));
  for (const uint64_t seed : {0ull, 5ull})
    for (const auto r : {tc::Release::r2_0, tc::Release::r2_12, tc::Release::r2_13}) {
      tc::State a(seed), b(seed);
      std::vector<float> x(1000), y(1000);
      tc::randn(a, 1000, 0.5, 2.0, tc::Kernel::scalar_intel, xrng::DType::f32, x.data(), true, r);
      tc::randn(b, 1000, 0.5, 2.0, tc::Kernel::scalar, xrng::DType::f32, y.data(), true, r);
      CHECK(x == y);
    }
}

TEST_CASE("torch_cpu: MKL's draws on Intel CPUs (x86-intel, x86-intel-avx512): known answers, host loops") {
  using M = tc::MklBernoulli;
  // Known answers from MKL 2023.1 told its CPU is Intel's (tests/torch_versions/mkl/check_mkl.sh, which proves
  // mkl_ln_f32_l9 on every positive normal float, the x86-intel exponential over the whole MCG31 period and
  // bernoulli at 4000 thresholds): sLn_L9LAynn where it is not the generic kernel's
  const uint32_t l9_kat[][2] = {
      {0x34de2340u, 0xc16b2ae4u}, {0x3b5b8f50u, 0xc0b65c00u}, {0x3baea184u, 0xc0a7814cu}, {0x3f4069c0u, 0xbe92315cu}};
  for (const auto& k : l9_kat) {
    const float x = tc::detail::u2f(k[0]);
    CHECK_MESSAGE(tc::detail::f2u(tc::mkl_ln_f32_l9(x)) == k[1], std::hex << k[0]);
    CHECK(tc::detail::f2u(tc::mkl_ln_f32(x)) != k[1]);
  }
  // sLn_Z0LAynn (mkl_ln_f32_z0; proven against its machine code by emulate_ln.py, no AVX-512 CPU here), frozen
  const uint32_t z0_kat[][2] = {{0x30a6369cu, 0xc1a443f0u}, {0x324591a0u, 0xc1923f52u}, {0x333ec83cu, 0xc1876fc7u},
                                {0x35d759dcu, 0xc1557bb7u}, {0x38c2fdb0u, 0xc11487bcu}, {0x39160fe4u, 0xc10da15du}};
  for (const auto& k : z0_kat) CHECK_MESSAGE(tc::detail::f2u(tc::mkl_ln_f32_z0(tc::detail::u2f(k[0]))) == k[1],
                                             std::hex << k[0]);
  for (float x : {1.0f, 0.5f, 0.75f, 0.999f, 1e-9f})  // ln within 2 ulp of the double's
    CHECK(std::fabs(tc::mkl_ln_f32_z0(x) - std::log(static_cast<double>(x))) <=
          2 * std::fabs(std::nextafter(static_cast<float>(std::log(static_cast<double>(x))), 0.0f) -
                        static_cast<float>(std::log(static_cast<double>(x)))) + 1e-30);
  CHECK(tc::detail::f2u(tc::mkl_ln_f32_l9(1.0f)) == 0u);
  CHECK(tc::detail::f2u(tc::mkl_ln_f32_z0(1.0f)) == 0u);
  // the Intel uniform: x to float, times 2^-31 (below the generic kernel's here)
  CHECK(M::uniform_intel(262060616u) == 0x1.f3d748p-4f);
  CHECK(M::uniform(262060616u) == 0x1.f3d74ap-4f);
  CHECK(M::uniform(262060616u, tc::Kernel::x86_intel_avx512) == 0x1.f3d748p-4f);
  // vsRngExponential(MCG31 seeded 123456789, FLT_MIN, float(1 / 1.5)) on an Intel CPU: the 6th differs from x86's
  const uint32_t exp_kat[8] = {0x3ff3b9cau, 0x3f1bcc82u, 0x3f1687d8u, 0x3cf31864u,
                               0x3ebda553u, 0x3e79973bu, 0x3edc1668u, 0x3f53fc06u};
  tc::MklExponential g(123456789u, tc::Kernel::x86_intel);
  for (const uint32_t want : exp_kat) CHECK(tc::detail::f2u(g.next_f32(static_cast<float>(1.0 / 1.5))) == want);
  // one element (x_0 = the seed word): MKL's Intel value, the generic one beside it
  const uint32_t one[][3] = {{1856662125u, 0x3dc6adb0u, 0x3dc6adaeu}, {1997268203u, 0x3d4604a6u, 0x3d4604a4u}};
  for (const auto& e : one) {
    CHECK(tc::detail::f2u(tc::MklExponential(e[0], tc::Kernel::x86_intel).next_f32(static_cast<float>(1.0 / 1.5))) ==
          e[1]);
    CHECK(tc::detail::f2u(tc::MklExponential(e[0]).next_f32(static_cast<float>(1.0 / 1.5))) == e[2]);
  }
  // bernoulli's threshold on an Intel CPU (MKL's viRngBernoulli: x_0 = 214748360 gives 1 at p = 0.1 there, 0 on
  // the generic kernel)
  CHECK(M::limit_of(0.1, tc::Kernel::x86_intel) == 214748361u);
  CHECK(M::limit_of(0.1) == 214748360u);
  CHECK(M::limit_of(0.7, tc::Kernel::x86_intel_avx512) == 1503238465u);
  CHECK(M::limit_of(0.5, tc::Kernel::x86_intel) == M::limit_of(0.5));
  // float64 exponential_ of 2.0 to 2.6 on the Intel kernels: refused before its word (MKL's reduced-accuracy vdLn
  // is not modelled); an infinite lambda and 2.7 on are drawn
  for (const auto kern : {tc::Kernel::x86_intel, tc::Kernel::x86_intel_avx512}) {
    tc::State s(4), ref(4);
    double out[3];
    CHECK_THROWS_AS(tc::exponential(s, 3, 1.5, xrng::DType::f64, out, tc::Release::r2_0, kern), std::invalid_argument);
    CHECK(s.random() == ref.random());
    CHECK(tc::mkl_exponential_f64_refused(tc::Release::r2_3, kern));
    CHECK_FALSE(tc::mkl_exponential_f64_refused(tc::Release::r2_7, kern));
    tc::exponential(s, 3, std::numeric_limits<double>::infinity(), xrng::DType::f64, out, tc::Release::r2_0, kern);
    tc::exponential(s, 3, 1.5, xrng::DType::f64, out, tc::Release::r2_7, kern);
  }
  CHECK_FALSE(tc::mkl_exponential_f64_refused(tc::Release::r2_3, tc::Kernel::x86));
  // every other draw is x86's: the kernels share is_x86_linux and fuses
  CHECK(tc::is_x86_linux(tc::Kernel::x86_intel));
  CHECK(tc::is_x86_linux(tc::Kernel::x86_intel_avx512));
  CHECK_FALSE(tc::is_x86_linux(tc::Kernel::x86_windows));
  CHECK(tc::mkl_exponential(tc::Release::r2_0, tc::Kernel::x86_intel));
  CHECK(tc::mkl_bernoulli(tc::Release::r2_3, tc::Kernel::x86_intel_avx512));
  tc::Kernel named = tc::Kernel::x86;
  CHECK((tc::kernel_named("x86-intel", named) && named == tc::Kernel::x86_intel));
  CHECK((tc::kernel_named("x86-intel-avx512", named) && named == tc::Kernel::x86_intel_avx512));
  for (const uint64_t seed : {0ull, 5ull}) {
    tc::State a(seed), b(seed);
    std::vector<float> x(1000), y(1000);
    tc::randn(a, 1000, 0.5, 2.0, tc::Kernel::x86_intel, xrng::DType::f32, x.data());
    tc::randn(b, 1000, 0.5, 2.0, tc::Kernel::x86, xrng::DType::f32, y.data());
    CHECK(x == y);
  }
  // (the host's loops: the MklExponential case's runs, every kernel) bernoulli_ and dropout take the kernel's
  // threshold
  for (const auto kern : {tc::Kernel::x86_intel, tc::Kernel::x86_intel_avx512}) {
    tc::State s(9), ref(9), d(9);
    std::vector<float> got(5000), in(5000, 1.0f), out(5000);
    std::vector<uint8_t> mask(5000);
    tc::bernoulli(s, 5000, 0.1, xrng::DType::f32, got.data(), tc::Release::r2_0, kern);
    tc::dropout(d, 5000, 0.9, xrng::DType::f32, in.data(), out.data(), mask.data(), tc::Release::r2_0, kern);
    M m(ref, 0.1, kern);
    CHECK(m.limit == 214748361u);
    for (size_t i = 0; i < got.size(); ++i) {
      const bool b = m.next();
      CHECK(got[i] == (b ? 1.0f : 0.0f));
      CHECK(mask[i] == b);  // (dropout keeps with probability 1 - p: the same threshold)
    }
  }
}

TEST_CASE("torch_cpu: MklExponential: MKL's logarithm and exponential (known answers), its word, no elements") {
  // Known answers from MKL 2023.1's generic kernels (tests/torch_versions/mkl/check_mkl.sh, which proves
  // mkl_ln_f32 on every positive normal float and the float exponential over the whole MCG31 period): inputs
  // where MKL's ln is not the correctly rounded one
  const uint32_t ln_kat[][2] = {
      {0x30cc1234u, 0xc1a29fb2u}, {0x31131234u, 0xc19fb2f6u}, {0x332b1234u, 0xc1884f1eu}, {0x339e1234u, 0xc183656au},
      {0x341e1234u, 0xc17bb3b2u}, {0x351e1234u, 0xc165856eu}, {0x35ce1234u, 0xc1563024u}, {0x361b1234u, 0xc14fa5a8u},
      {0x36541234u, 0xc14aa374u}, {0x37541234u, 0xc1347530u}, {0x37ce1234u, 0xc129d39eu}, {0x381b1234u, 0xc1234922u},
      {0x38981234u, 0xc1188204u}, {0x391b1234u, 0xc10d1adeu}, {0x39541234u, 0xc10818aau}, {0x39b31234u, 0xc0ff6ca8u},
      {0x3a331234u, 0xc0e93e64u}, {0x3a441234u, 0xc0e6576cu}, {0x3a611234u, 0xc0e1ed6eu}, {0x3b331234u, 0xc0bce1deu},
      {0x3b441234u, 0xc0b9fae6u}, {0x3b611234u, 0xc0b590e8u}, {0x3bc01234u, 0xc0a4757eu}, {0x3cb61234u, 0xc0739df6u}};
  for (const auto& k : ln_kat) {
    const float x = tc::detail::u2f(k[0]);
    CHECK_MESSAGE(tc::detail::f2u(tc::mkl_ln_f32(x)) == k[1], std::hex << k[0]);
    CHECK(tc::detail::f2u(static_cast<float>(std::log(static_cast<double>(x)))) != k[1]);  // (not the rounded ln)
  }
  CHECK(tc::detail::f2u(tc::mkl_ln_f32(1.0f)) == 0u);
  // mkl_ln_f64 (MKL 2023.1's dLn_EXHAynn run on an AMD EPYC of family 25; ln64_period.cpp proves it over every
  // x / (2^31 - 1)): {x, bits of ln(x / (2^31 - 1))} where it is not glibc's log, then where R taken as the
  // rounded 1 / float(ms) rather than that CPU's rcpps would give another value
  const uint64_t ln64_kat[][2] = {
      {76608407ull, 0xc00aaab0e5906f04ull},   {80417446ull, 0xc00a47502d944ae5ull},
      {105235592ull, 0xc008207635eaa2aeull},  {173837889ull, 0xc0041c86ba1e36cdull},
      {178977320ull, 0xc003e0db1fa1bd86ull},  {276476048ull, 0xc0006640923dd0a3ull},
      {287182536ull, 0xc0001870dbe57977ull},  {300755702ull, 0xbfff73ba2d8ccc8cull},
      {409356868ull, 0xbffa84f9bb5fcd2bull},  {1618318922ull, 0xbfd21b2dbab9e21dull},
      {1647413328ull, 0xbfd0f73da66ed31bull}, {1958463729ull, 0xbfb79640619813daull},
      {2004473119ull, 0xbfb1a47284d44e9dull}, {2095842541ull, 0xbf98ece0e74c0bb1ull},
      {2128690553ull, 0xbf82005a024efddaull}};
  for (int i = 0; i < 15; ++i) {
    const double u = static_cast<double>(ln64_kat[i][0]) * (1.0 / 2147483647.0);
    CHECK_MESSAGE(tc::detail::d2u(tc::mkl_ln_f64(u)) == ln64_kat[i][1], ln64_kat[i][0]);
    if (i < 8) CHECK(tc::detail::d2u(tc::detail::glibc_log(u)) != ln64_kat[i][1]);
  }
  CHECK(tc::mkl_ln_f64(1.0) == 0.0);
  CHECK(tc::kMklRcpR[0] == 1024u);
  CHECK(tc::kMklRcpR[8192] == 512u);
  // vsRngExponential(ICDF, MCG31 seeded 123456789, a = FLT_MIN, beta = float(1 / 1.5)), the first 8
  const uint32_t exp_kat[8] = {0x3ff3b9cau, 0x3f1bcc82u, 0x3f1687d8u, 0x3cf31864u,
                               0x3ebda553u, 0x3e799738u, 0x3edc1668u, 0x3f53fc06u};
  tc::MklExponential g(123456789u);
  for (const uint32_t want : exp_kat) CHECK(tc::detail::f2u(g.next_f32(static_cast<float>(1.0 / 1.5))) == want);
  // exponential_ of release 2.0 to 2.6 on the x86 kernels: one word (float: random(); float64: random64(), its
  // low half), the elements MklExponential's, float16 the float value rounded; 2.7 on and arm: per element
  for (const auto dt : {xrng::DType::f32, xrng::DType::f64, xrng::DType::f16, xrng::DType::bf16})
    for (const auto r : {tc::Release::r2_0, tc::Release::r2_1, tc::Release::r2_3})
      for (const int64_t n : {0, 1, 17, 300}) {
        tc::State s(5), ref(5);
        std::vector<uint64_t> got(static_cast<size_t>(n) + 1);
        tc::exponential(s, n, 2.5, dt, got.data(), r, tc::Kernel::scalar);
        tc::MklExponential m(ref, dt == xrng::DType::f64);
        CHECK(s.random() == ref.random());  // (the word taken for no elements too)
        for (int64_t i = 0; i < n; ++i) {
          if (dt == xrng::DType::f64) {
            const double v = m.next_f64(1.0 / 2.5);
            CHECK(std::memcmp(reinterpret_cast<const double*>(got.data()) + i, &v, 8) == 0);
          } else {
            const float v = m.next_f32(static_cast<float>(1.0 / 2.5));
            const auto* h = reinterpret_cast<const uint16_t*>(got.data());
            if (dt == xrng::DType::f32) CHECK(reinterpret_cast<const float*>(got.data())[i] == v);
            else if (dt == xrng::DType::f16) CHECK(h[i] == xrng::math::f32_to_f16_bits(v));
            else CHECK(h[i] == xrng::math::f32_to_bf16_bits(v));
          }
        }
      }
  // the host's loop (8 AVX2 lanes where the CPU has them) equals the header's next_f32, long runs, every phase,
  // with each kernel's uniform and logarithm (x86's generic ones, x86-intel's, x86-intel-avx512's, scalar-intel's)
  for (const uint64_t seed : {1ull, 77ull, 123456789ull})
    for (const double lambda : {1.0, 1.5, 1e-3, 7e5}) {
      const int64_t n = (int64_t{1} << 20) + static_cast<int64_t>(seed % 8);
      for (const auto kern :
           {tc::Kernel::x86, tc::Kernel::x86_intel, tc::Kernel::x86_intel_avx512, tc::Kernel::scalar_intel}) {
        tc::State s(seed), ref(seed);
        std::vector<float> got(static_cast<size_t>(n));
        tc::exponential(s, n, lambda, xrng::DType::f32, got.data(), tc::Release::r2_3, kern);
        tc::MklExponential m(ref, false, kern);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; ++i)
          bad += tc::detail::f2u(got[static_cast<size_t>(i)]) !=
                 tc::detail::f2u(m.next_f32(static_cast<float>(1.0 / lambda)));
        CHECK_MESSAGE(bad == 0, "seed " << seed << " lambda " << lambda << " kernel " << static_cast<int>(kern));
        CHECK(s.random() == ref.random());
      }
      // float64 (4 AVX2 lanes of mkl_ln_f64 where the CPU has AVX2)
      tc::State s64(seed), ref64(seed);
      std::vector<double> got64(static_cast<size_t>(n));
      tc::exponential(s64, n, lambda, xrng::DType::f64, got64.data(), tc::Release::r2_3, tc::Kernel::x86);
      tc::MklExponential m64(ref64, true);
      int64_t bad = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double want = m64.next_f64(1.0 / lambda);
        bad += std::memcmp(&got64[static_cast<size_t>(i)], &want, 8) != 0;
      }
      CHECK_MESSAGE(bad == 0, "float64 seed " << seed << " lambda " << lambda);
      CHECK(s64.random() == ref64.random());
    }
  CHECK(tc::mkl_exponential(tc::Release::r2_3, tc::Kernel::x86));
  CHECK_FALSE(tc::mkl_exponential(tc::Release::r2_7, tc::Kernel::x86));
  CHECK_FALSE(tc::mkl_exponential(tc::Release::r1_13, tc::Kernel::x86));
  CHECK_FALSE(tc::mkl_exponential(tc::Release::r2_3, tc::Kernel::arm));
  tc::State d(3), d2(3);
  tc::exponential(d, 0, 1.0, xrng::DType::f32, nullptr, tc::Release::r2_7);  // 2.7 on: nothing for none
  CHECK(d.random() == d2.random());
}

TEST_CASE("torch_cpu: torch 1.13's float64 element-wise normal and exponential_ take log(1 - u)") {
  // torch 1.13.1: torch.manual_seed(123456789); torch.empty(4, dtype=torch.float64).exponential_(1.5), and
  // torch.randn(4, dtype=torch.float64) (the element-wise path: fewer than 16 elements) after the same seed
  const double exp113[4] = {0.18474236200476046, 1.6185162496510523, 0.5543550128541914, 0.3177674295942535};
  const double randn113[4] = {0.11027837135924265, 2.2007697357432714, -0.8969969383847309, -0.3856148095070777};
  tc::State a(123456789), b(123456789), c(123456789);
  double e[4], e_now[4], n[4];
  tc::exponential(a, 4, 1.5, xrng::DType::f64, e, tc::Release::r1_13);
  tc::exponential(b, 4, 1.5, xrng::DType::f64, e_now);
  tc::randn(c, 4, 0.0, 1.0, tc::Kernel::x86, xrng::DType::f64, n, true, tc::Release::r1_13);
  int differ = 0;
  for (int i = 0; i < 4; ++i) {
    CHECK(e[i] == exp113[i]);
    CHECK(n[i] == randn113[i]);
    differ += e_now[i] != exp113[i];  // 2.0 on: log1p(-u), 1 ulp off on some
  }
  CHECK(differ > 0);
}

TEST_CASE("torch_cpu: randint before torch 2.7: one 32-bit word for every range below 2^32") {
  // torch 2.0.1: torch.manual_seed(0); torch.randint(-5, 2**31, (6,))
  const int64_t want[6] = {209652386, 398764581, 924231275, 1478610102, 441365305, 1537364721};
  tc::State s(0);
  int64_t got[6];
  tc::randint(s, 6, -5, int64_t{1} << 31, xrng::DType::i64, got, tc::Release::r2_1);
  for (int i = 0; i < 6; ++i) CHECK(got[i] == want[i]);
  tc::State a(0), b(0);
  int64_t x[4], y[4];
  tc::randint(a, 4, 0, int64_t{1} << 31, xrng::DType::i64, x, tc::Release::r2_7);  // 2.7 on: random64
  tc::randint(b, 4, 0, int64_t{1} << 31, xrng::DType::i64, y, tc::Release::r2_1);
  CHECK(a.random() != b.random());
}

TEST_CASE("torch_cpu: the host's 16-wide transform equals the header's over all 2^24 uniforms") {
  // fill16_blocks (AVX2 for the x86 kernels where the CPU has it) against
  // normal_fill16, every uniform k 2^-24 as both u1's and u2's source, and
  // through randn's whole draw.
  for (tc::Kernel k : {tc::Kernel::x86, tc::Kernel::x86_windows, tc::Kernel::scalar}) {
    if (!tc::fill16_is_simd(k))
      MESSAGE("kernel " << static_cast<int>(k) << ": the host runs the header's scalar code");
    const int64_t blocks = (1 << 24) / 8 / kStep;
    std::vector<float> a(static_cast<size_t>(blocks) * 16), b;
    for (int64_t bl = 0; bl < blocks; ++bl)
      for (int l = 0; l < 8; ++l) {
        const float u = static_cast<float>((bl * 8 * kStep + l) & 0xffffff) * 0x1p-24f;
        a[bl * 16 + l] = u;
        a[bl * 16 + 8 + l] = u;
      }
    b = a;
    tc::fill16_blocks(a.data(), blocks, -0.5f, 2.0f, k);
    for (int64_t bl = 0; bl < blocks; ++bl) tc::normal_fill16(b.data() + bl * 16, -0.5f, 2.0f, k);
    long bad = 0;
    for (size_t i = 0; i < a.size(); ++i) bad += !same_bits(a[i], b[i]);
    CHECK(bad == 0);
    // randn through the host loop equals the header's draw, words and values.
    for (int64_t n : {16, 17, 1000, 4099}) {
      tc::State s1(99), s2(99);
      std::vector<float> x(n), y(n);
      tc::randn(s1, n, 0.0f, 1.0f, k, xrng::DType::f32, x.data());
      tc::normal_f32(s2, n, 0.0f, 1.0f, k, y.data());
      CHECK(std::memcmp(x.data(), y.data(), 4 * n) == 0);
      CHECK(s1.random() == s2.random());
    }
  }
}

TEST_CASE("torch_cpu: draws equal torch's own fingerprints (tests/data/golden_torch_cpu.txt)") {
  // Written by tools/make_golden_torch_cpu.py from torch 2.15.0 itself
  // (ATEN_CPU_CAPABILITY=avx2 for torch-cpu-x86, =default for
  // torch-cpu-scalar): checks both streams on any host, torch or not.
  std::ifstream f(std::string(XRNG_TEST_DATA_DIR) + "/golden_torch_cpu.txt");
  REQUIRE(f.good());
  std::string line;
  int checked = 0;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string stream, dist, dtype, want;
    uint64_t seed = 0;
    int64_t count = 0;
    double mean = 0, std_ = 1;  // uniform: from, to; exponential: lambda, unused
    in >> stream >> dist >> dtype >> seed >> count >> mean >> std_ >> want;
    REQUIRE(!in.fail());
    // "torch-cpu-x86@2.11.0": drawn by that older torch (its float16/bfloat16 draws, SPEC.md 14.7)
    const size_t at = stream.find('@');
    const tc::Release r = at == std::string::npos ? tc::Release::r2_13 : tc::release_of(stream.substr(at + 1));
    const tc::Kernel k = stream.substr(0, at) == "torch-cpu-x86" ? tc::Kernel::x86 : tc::Kernel::scalar;
    const xrng::DType dt = dtype == "f64"   ? xrng::DType::f64
                           : dtype == "f16" ? xrng::DType::f16
                           : dtype == "bf16" ? xrng::DType::bf16
                                             : xrng::DType::f32;
    const bool sixteen = dt == xrng::DType::f16 || dt == xrng::DType::bf16;
    REQUIRE((!sixteen || dist == "normal" || dist == "normal_each" || dist == "uniform"));
    std::vector<unsigned char> bytes(static_cast<size_t>(count) * static_cast<size_t>(xrng::dtype_size(dt)));
    tc::State s(seed);
    if (dist == "normal" || dist == "normal_each")
      tc::randn(s, count, mean, std_, k, dt, bytes.data(), dist == "normal", r);
    else if (dist == "exponential")
      tc::exponential(s, count, mean, dt, bytes.data());
    else if (dist == "geometric" || dist == "log_normal" || dist == "cauchy")
      for (int64_t i = 0; i < count; ++i) {
        const double v = dist == "geometric"    ? tc::geometric_value(s, mean)
                         : dist == "cauchy"     ? tc::cauchy_value(s, mean, std_, k)
                                                : tc::log_normal_value(s, mean, std_, k);
        if (dt == xrng::DType::f64)
          std::memcpy(bytes.data() + 8 * i, &v, 8);
        else {
          const float f = static_cast<float>(v);
          std::memcpy(bytes.data() + 4 * i, &f, 4);
        }
      }
    else if (dist == "bernoulli")  // bernoulli_(p), p in the mean column: 1 or 0 in the dtype
      tc::bernoulli(s, count, mean, dt, bytes.data(), r);
    else if (dist == "uniform" && mean == 0.0 && std_ == 1.0)
      tc::rand(s, count, dt, bytes.data(), r);
    else if (dist == "uniform")
      tc::uniform(s, count, mean, std_, k, dt, bytes.data(), r);
    else
      FAIL("unknown dist " << dist);
    xrng::tools::Sha256 h;
    h.update(bytes.data(), bytes.size());
    CHECK_MESSAGE(h.hex() == want, line);
    ++checked;
  }
  CHECK(checked == 480);  // 92 cases per stream from torch 2.15 (the first 19 of each from before the float64
                          // normal, then 4 cauchy_, 3 bernoulli_, then the 35 whose values depend on the
                          // release), and those 35 and 2 of the bernoulli_ from torch 2.13.0, 2.12.1, 2.11.0 and
                          // 2.0.1 per stream
}

TEST_CASE("torch_cpu: binary64 log, log1p, sincos, exp equal this host's glibc on the torch domain") {
  // torch's float64 normals take log(1 - u) (NormalFill16<double>),
  // log1p(-u) (normal_distribution<double>, exponential_) and sincos(2 pi u)
  // for u = k 2^-53. Compared: 2^22 / kStep random k, every k below 2^16 and
  // above 2^53 - 2^16 (theta near 0 and 2 pi, log near 0, log1p near -1),
  // 2^12 / kStep k at each power of two (every branch of each function) and
  // the k around each branch boundary (below).
  // The reference is glibc's x86-64 FMA variant (Debian 12's 2.36, whose
  // log1p FMA variant is the 2.36 branch's backport from 2.39): the ifunc an
  // AVX2+FMA CPU gets.
#if !defined(__GLIBC__) || !defined(__x86_64__)
  MESSAGE("SKIPPED: not glibc on x86-64: no reference for glibc's FMA variants");
  return;
#else
  __builtin_cpu_init();
  if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    MESSAGE("SKIPPED: this CPU has no AVX2+FMA: glibc runs its non-FMA variants here");
    return;
  }
  if (!(__GLIBC__ == 2 && __GLIBC_MINOR__ == 36)) {
    MESSAGE("SKIPPED: glibc " << gnu_get_libc_version() << " is not 2.36 (the version these ports were checked against)");
    return;
  }
  const double two_pi = 2.0 * 3.14159265358979323846;
  long bad_log = 0, bad_log1p = 0, bad_sin = 0, bad_cos = 0, n = 0;
  auto same = [](double a, double b) { return td::d2u(a) == td::d2u(b); };
  auto check = [&](uint64_t k) {
    const double u = static_cast<double>(k & ((1ull << 53) - 1)) * 0x1p-53;
    bad_log += !same(td::glibc_log(1.0 - u), ::log(1.0 - u));
    bad_log1p += !same(td::glibc_log1p(-u), ::log1p(-u));
    double s, c, s2, c2;
    td::glibc_sincos(two_pi * u, &s, &c);
    ::sincos(two_pi * u, &s2, &c2);
    bad_sin += !same(s, s2);
    bad_cos += !same(c, c2);
    ++n;
  };
  tc::MT19937 mt(2024);
  for (uint32_t i = 0; i < (1u << 22) / kStep; ++i) check((static_cast<uint64_t>(mt()) << 32 | mt()) >> 11);
  for (uint64_t k = 0; k < (1u << 16); k += kStep) {
    check(k);
    check((1ull << 53) - 1 - k);
  }
  for (int e = 16; e < 53; ++e)
    for (uint32_t i = 0; i < (1u << 12) / kStep; ++i)
      check((1ull << e) | ((static_cast<uint64_t>(mt()) << 32 | mt()) & ((1ull << e) - 1)));
  // The branch and reduction boundaries: u where theta crosses sincos's
  // 0.855469 / 2.426265 / Taylor (0.126) thresholds and the multiples of
  // pi/4 (quadrant and reduction changes), where log leaves its near-1
  // polynomial (u = 1/16), log1p its k = 0 range (u = 0.2929) and its
  // power-of-two paths (u = 1/2, 1 - u = 2^-j): 2^13 / kStep k around each.
  const double centres[] = {0.855469 / two_pi, 2.426265 / two_pi, 0.126 / two_pi, 1.0 / 16, 0.29289321881345,
                            0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1 - 0.855469 / two_pi, 1 - 0.126 / two_pi};
  for (double c : centres) {
    const int64_t k0 = static_cast<int64_t>(c * 0x1p53);
    for (int64_t d = -(1 << 12); d < (1 << 12); d += kStep) check(static_cast<uint64_t>(k0 + d));
  }
  for (int j = 1; j < 53; ++j)
    for (int64_t d = -64; d < 64; d += 1) check(static_cast<uint64_t>((int64_t{1} << 53) - (int64_t{1} << (53 - j)) + d));
  // exp (log_normal_): on the normals torch's element-wise path gives with
  // torch's default mean 1, std 2, and on a grid over [-750, 750] (overflow,
  // the subnormal results, the |x| >= 512 rescaling).
  long bad_exp = 0, n_exp = 0;
  tc::State ns(31);
  for (uint32_t i = 0; i < (1u << 20) / kStep; ++i, ++n_exp) {
    const double x = tc::normal_f64_value(ns, 1.0, 2.0, tc::Kernel::x86);
    bad_exp += !same(td::glibc_exp(x), ::exp(x));
  }
  for (int64_t j = -(1 << 20); j <= (1 << 20); j += kStep, ++n_exp) {
    const double x = static_cast<double>(j) * (750.0 / (1 << 20)) + 0x1p-30;
    bad_exp += !same(td::glibc_exp(x), ::exp(x));
  }
  MESSAGE(n << " inputs compared (log, log1p, sincos), " << n_exp << " (exp)");
  CHECK(bad_exp == 0);
  CHECK(bad_log == 0);
  CHECK(bad_log1p == 0);
  CHECK(bad_sin == 0);
  CHECK(bad_cos == 0);
#endif
}

TEST_CASE("torch_cpu: binary64 tan equals this host's glibc on cauchy_'s domain") {
  // cauchy_ takes tan(x), x = (u - 1/2) pi for u = k 2^-53, k < 2^53 (u - 1/2
  // exact, the product rounded): |x| <= pi/2, which reaches glibc's branches
  // I (|x| <= 1.259e-8), II (<= 0.0608), III (the table, <= 0.787) and the
  // reduction by pi/2 (odd multiple: -cot, by the polynomial when
  // |pi/2 - |x|| <= 0.0608, else the table). Compared: 2^23 / kStep random
  // k; every k below 2^16 and above 2^53 - 2^16 (x near -pi/2 and pi/2: the
  // largest values, u = 0 included); every k within 2^16 of 2^52 (x near 0);
  // 2^12 / kStep k at each power of two of |k - 2^52|, both signs; 2^11 /
  // kStep k around every branch limit and every table-row boundary, in |x|
  // and in the reduced |pi/2 - |x||, both signs. Then 2^21 / kStep random x
  // over [-25, 25] (the whole ported range) and across 2^-60..2^-20.
#if !defined(__GLIBC__) || !defined(__x86_64__)
  MESSAGE("SKIPPED: not glibc on x86-64: no reference for glibc's FMA variants");
  return;
#else
  __builtin_cpu_init();
  if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    MESSAGE("SKIPPED: this CPU has no AVX2+FMA: glibc runs its non-FMA variants here");
    return;
  }
  if (!(__GLIBC__ == 2 && __GLIBC_MINOR__ == 36)) {
    MESSAGE("SKIPPED: glibc " << gnu_get_libc_version() << " is not 2.36 (the version this port was checked against)");
    return;
  }
  const double pi = 3.14159265358979323846;
  long bad = 0, n = 0;
  double first_bad = 0;
  auto check_x = [&](double x) {
    const double got = td::glibc_tan(x), want = ::tan(x);
    if (td::d2u(got) != td::d2u(want) && bad++ == 0) first_bad = x;
    ++n;
  };
  auto check = [&](int64_t k) {
    if (k < 0 || k >= (int64_t{1} << 53)) return;
    check_x((static_cast<double>(k) * 0x1p-53 - 0.5) * pi);
  };
  tc::MT19937 mt(2026);
  auto r64 = [&] { return static_cast<uint64_t>(mt()) << 32 | mt(); };
  const int64_t half = int64_t{1} << 52;
  for (uint32_t i = 0; i < (1u << 23) / kStep; ++i) check(static_cast<int64_t>(r64() >> 11));
  for (int64_t k = 0; k < (1 << 16); k += kStep) {
    check(k);
    check((int64_t{1} << 53) - 1 - k);
    check(half + k);
    check(half - k);
  }
  for (int e = 16; e < 52; ++e)
    for (uint32_t i = 0; i < (1u << 12) / kStep; ++i) {
      const int64_t j = (int64_t{1} << e) | static_cast<int64_t>(r64() & ((uint64_t{1} << e) - 1));
      check(half + j);
      check(half - j);
    }
  // |x| = w at the limits g1, g2, g3, the table rows' boundaries
  // (256 w - 15.5 an integer), and the same for the reduced pi/2 - w.
  std::vector<double> limits = {td::kTanG1, td::kTanG2, td::kTanG3, pi / 2 - td::kTanG2, pi / 2 - td::kTanG3};
  for (int m = 1; m <= 186; ++m) {
    const double w = (m + 15.5) / 256;
    limits.push_back(w);
    limits.push_back(pi / 2 - w);
  }
  for (double w : limits)
    for (int sign : {-1, 1}) {
      const int64_t k0 = static_cast<int64_t>((0.5 + sign * w / pi) * 0x1p53);
      for (int64_t d = -(1 << 10); d < (1 << 10); d += kStep) check(k0 + d);
    }
  const long n_torch = n;
  for (uint32_t i = 0; i < (1u << 20) / kStep; ++i) {
    check_x((static_cast<double>(r64() >> 11) * 0x1p-53 - 0.5) * 50.0);
    check_x(std::ldexp(static_cast<double>(r64() >> 11) * 0x1p-53, -20 - static_cast<int>(mt() % 41)) *
            ((mt() & 1) ? 1.0 : -1.0));
  }
  MESSAGE(n_torch << " inputs of cauchy_'s domain and " << n - n_torch << " others compared");
  CHECK_MESSAGE(bad == 0, "first difference at x = " << first_bad);
  CHECK(std::isnan(td::glibc_tan(25.5)));  // outside the ported range: NaN, never a wrong value
#endif
}

TEST_CASE("torch_cpu: the float64 normal's cached second value, its words and its state bytes") {
  // normal_distribution<double>: a fresh pair takes 4 words and caches r sin;
  // the next call takes no word and returns the cached value (times std,
  // plus mean); the cache travels in torch's state bytes (offset 5024/5040).
  tc::State a(77), b(77);
  const double first = tc::normal_f64_value(a, 0.0, 1.0, tc::Kernel::x86);
  for (int i = 0; i < 4; ++i) b.random();
  CHECK(a.mt.next == b.mt.next);
  CHECK(a.has_next_double_normal);
  const double cached = a.next_double_normal;
  std::vector<uint8_t> bytes(tc::kTorchStateBytes);
  tc::to_torch_state(a, bytes.data());
  int32_t flag;
  double stored;
  std::memcpy(&flag, bytes.data() + 5040, 4);
  std::memcpy(&stored, bytes.data() + 5024, 8);
  CHECK(flag == 1);
  CHECK(stored == cached);
  tc::State r = tc::from_torch_state(bytes.data(), bytes.size());
  CHECK(tc::normal_f64_value(r, 2.0, 3.0, tc::Kernel::scalar) == cached * 3.0 + 2.0);
  CHECK(tc::normal_f64_value(a, 0.0, 1.0, tc::Kernel::x86) == cached);
  CHECK(a.mt.next == b.mt.next);  // the cached value drew nothing
  CHECK(!a.has_next_double_normal);
  CHECK(std::isfinite(first));
  // randn of 3 elements element-wise: pair, cached, pair (8 words), the
  // second pair's sine left in the cache.
  tc::State c(5), d(5);
  double out[3];
  tc::randn(c, 3, 0.0, 1.0, tc::Kernel::x86, xrng::DType::f64, out, false);
  for (int i = 0; i < 8; ++i) d.random();
  CHECK(c.mt.next == d.mt.next);
  CHECK(c.has_next_double_normal);
  // x86 fuses ret * std + mean, scalar does not: equal for std 1, mean 0.
  tc::State e(5);
  double out2[3];
  tc::randn(e, 3, 0.0, 1.0, tc::Kernel::scalar, xrng::DType::f64, out2, false);
  CHECK(std::memcmp(out, out2, sizeof out) == 0);
  // refusals come before any word is drawn
  tc::State f(6);
  const uint32_t next = f.mt.next;
  CHECK_THROWS_AS(tc::exponential(f, 4, 0.0, xrng::DType::f64, out), std::invalid_argument);
  CHECK_THROWS_AS(tc::uniform(f, 4, 2.0, 1.0, tc::Kernel::x86, xrng::DType::f64, out), std::invalid_argument);
  CHECK_THROWS_AS(tc::randn(f, 4, 0.0, -1.0, tc::Kernel::x86, xrng::DType::f64, out), std::invalid_argument);
  CHECK(f.mt.next == next);
}

TEST_CASE("torch_cpu: multinomial with replacement: 2 words per sample, the first bucket not below u") {
  // A row whose weight sits on one category always gives it; the draw takes
  // exactly two words per sample whatever k; an all-equal row gives the
  // bucket floor(u k) (up to the rounding of the normalised running sums).
  float w[5] = {0.0f, 0.0f, 3.0f, 0.0f, 0.0f}, cum[5];
  int64_t out[64];
  tc::State s(4), t(4);
  tc::multinomial_row(s, w, 5, 64, cum, out);
  for (int64_t v : out) REQUIRE(v == 2);
  for (int i = 0; i < 128; ++i) t.random();
  CHECK(s.mt.next == t.mt.next);
  double eq[4] = {1.0, 1.0, 1.0, 1.0}, cumd[4];
  tc::State a(9), b(9);
  tc::multinomial_row(a, eq, 4, 64, cumd, out);
  for (int j = 0; j < 64; ++j) {
    const double u = tc::uniform_f64(b.random64());
    REQUIRE(out[j] == static_cast<int64_t>(u * 4.0) - (u * 4.0 == std::floor(u * 4.0) && u > 0 ? 1 : 0));
  }
}

namespace {
// torch's own with-replacement loop (MultinomialKernel.cpp): the running
// sums, normalised, the last set to 1, and its binary search probe by probe.
template <class Acc>
void torch_multinomial_row(tc::State& s, const Acc* w, int64_t k, int64_t n, int64_t* out) {
  std::vector<Acc> cum(static_cast<size_t>(k));
  Acc sum = 0;
  for (int64_t j = 0; j < k; ++j) cum[j] = sum += w[j];
  for (int64_t j = 0; j < k; ++j) cum[j] /= sum;
  cum[k - 1] = 1;
  for (int64_t j = 0; j < n; ++j) {
    const double u = tc::uniform_f64(s.random64());
    int64_t left = 0, right = k;
    while (right - left > 0) {
      const int64_t mid = left + (right - left) / 2;
      if (static_cast<double>(cum[mid]) < u)
        left = mid + 1;
      else
        right = mid;
    }
    out[j] = left;
  }
}
template <class Acc>
void check_multinomial_rows_against_torch_loop() {
  std::vector<Acc> w, cum;
  std::vector<int64_t> got, want;
  tc::State g(77);
  // (k 4096 and 65537: multinomial_sample divides per probe for the fewer samples, the whole row for the more)
  for (int64_t k : {1, 2, 3, 7, 8, 9, 16, 17, 100, 1000, 1025, 4096, 65537}) {
    for (int shape = 0; shape < 4; ++shape) {
      w.assign(static_cast<size_t>(k), 0);
      for (auto& v : w) {
        const double u = tc::uniform_f64(g.random64());
        v = static_cast<Acc>(shape == 1 && u < 0.5 ? 0.0 : shape == 2 && u < 0.95 ? 0.0 : u);
        if (shape == 3) v = static_cast<Acc>(u * (std::numeric_limits<Acc>::max() / 4));  // the total overflows
      }
      w[static_cast<size_t>(k - 1)] += shape == 3 ? 0 : Acc(1);  // (a positive total)
      REQUIRE(tc::multinomial_check_row(w.data(), k) == 0);
      for (int64_t n : {1, 7, 8, 9, 100}) {
        tc::State a(static_cast<uint64_t>(k * 10 + n)), b = a;
        cum.assign(static_cast<size_t>(k), 0);
        got.assign(static_cast<size_t>(n), -1);
        want.assign(static_cast<size_t>(n), -2);
        tc::State c = a;
        tc::multinomial_row(a, w.data(), k, n, cum.data(), got.data());
        torch_multinomial_row(b, w.data(), k, n, want.data());
        REQUIRE(got == want);
        REQUIRE(a.mt.next == b.mt.next);
        got.assign(static_cast<size_t>(n), -1);  // one row: the checks in the running sum's pass
        REQUIRE(tc::multinomial_rows(c, w.data(), 1, k, n, cum.data(), got.data()) == 0);
        REQUIRE(got == want);
        REQUIRE(c.mt.next == b.mt.next);
      }
    }
  }
}
}  // namespace

TEST_CASE("torch_cpu: multinomial_row's lockstep search equals torch's probe-by-probe loop; check_row's order") {
  check_multinomial_rows_against_torch_loop<float>();
  check_multinomial_rows_against_torch_loop<double>();
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float a[4] = {1, inf, -1, 2}, b[4] = {1, nan, inf, 2}, c[3] = {0, 0, 0}, d[3] = {0, -0.0f, 1e-45f};
  CHECK(tc::multinomial_check_row(a, 4) == 2);  // the first bad weight decides
  CHECK(tc::multinomial_check_row(b, 4) == 1);  // NaN fails "entry >= 0" first
  CHECK(tc::multinomial_check_row(c, 3) == 3);
  CHECK(tc::multinomial_check_row(d, 3) == 0);
  float cum[4];
  CHECK(tc::multinomial_prefix(a, 4, cum) == 2);
  CHECK(tc::multinomial_prefix(b, 4, cum) == 1);
  CHECK(tc::multinomial_prefix(c, 3, cum) == 3);
  CHECK(tc::multinomial_prefix(d, 3, cum) == 0);
  // rows: every row is checked before the first word is drawn
  const float two[8] = {1, 2, 3, 4, 0, 0, 0, 0};
  int64_t out[6] = {-1, -1, -1, -1, -1, -1};
  tc::State s(3);
  const uint32_t next = s.mt.next;
  CHECK(tc::multinomial_rows(s, two, 2, 4, 3, cum, out) == 3);
  CHECK(s.mt.next == next);
  CHECK(out[0] == -1);
  CHECK(tc::multinomial_rows(s, two, 1, 4, 3, cum, out) == 0);
  CHECK(tc::multinomial_rows(s, b, 1, 4, 3, cum, out) == 1);
}

TEST_CASE("torch_cpu: whole draws randint, randperm, geometric, bernoulli, log_normal equal torch's fingerprints") {
  // SHA-256 of the bytes torch 2.15.0 gave after torch.manual_seed(3) for each expression
  // (log_normal_: ATEN_CPU_CAPABILITY=default for Kernel::scalar, =avx2 for Kernel::x86).
  auto fp = [](const void* p, size_t n) {
    xrng::tools::Sha256 h;
    h.update(static_cast<const unsigned char*>(p), n);
    return h.hex();
  };
  {
    tc::State s(3);  // torch.randint(-5, 1000, (777,))
    std::vector<int64_t> v(777);
    tc::randint(s, 777, -5, 1000, xrng::DType::i64, v.data());
    CHECK(fp(v.data(), 8 * v.size()) == "faae6ad5357e538194317f9f8ec840838bc404a778e7db8afa85c523e171a986");
  }
  {
    tc::State s(3);  // torch.randint(0, 2**40, (77,)): 64-bit words
    std::vector<int64_t> v(77);
    tc::randint(s, 77, 0, int64_t{1} << 40, xrng::DType::i64, v.data());
    CHECK(fp(v.data(), 8 * v.size()) == "2a393648259c2362bd58d0bb4c8fcc0620a9864c9985488a5f62862146e1f4bc");
  }
  {
    tc::State s(3);  // torch.randint(-5, 9, (77,), dtype=torch.int32)
    std::vector<int32_t> v(77);
    tc::randint(s, 77, -5, 9, xrng::DType::i32, v.data());
    CHECK(fp(v.data(), 4 * v.size()) == "91cd660b1176e59135c95dd65e9509401bf013084a3edc56fe79e29b6b45e260");
  }
  {
    tc::State s(3);  // torch.randperm(1000)
    std::vector<int64_t> v(1000);
    tc::randperm(s, 1000, v.data());
    CHECK(fp(v.data(), 8 * v.size()) == "f0818b66bc03445e582de8d794b57de19b7cb3974937ffaae01a27da5b4df7fe");
  }
  {
    tc::State s(3);  // torch.empty(55, dtype=torch.int64).geometric_(0.3)
    std::vector<int64_t> v(55);
    tc::geometric(s, 55, 0.3, xrng::DType::i64, v.data());
    CHECK(fp(v.data(), 8 * v.size()) == "414008410e91ff9da060e87287a96c33b451ee14f0b74bb5ce8801c32d002fc6");
  }
  {
    tc::State s(3);  // torch.empty(55, dtype=torch.bool).bernoulli_(0.3)
    std::vector<uint8_t> v(55);
    tc::bernoulli(s, 55, 0.3, xrng::DType::u8, v.data());
    CHECK(fp(v.data(), v.size()) == "65c84c5033caa5af38ff1671402e36810c73e17c149d961df7f7dc6f4ac8fd06");
  }
  {
    tc::State s(3);  // torch.empty(555, dtype=torch.float16).log_normal_(0.1, 0.3), default capability
    std::vector<uint16_t> v(555);
    tc::log_normal(s, 555, 0.1, 0.3, tc::Kernel::scalar, xrng::DType::f16, v.data());
    CHECK(fp(v.data(), 2 * v.size()) == "a15993040140b406edafd011cba28e50fa8eb45fcaa37b2d397b4d2e459f145d");
  }
  for (const auto& [k, want] : {std::pair{tc::Kernel::scalar, "dd29e54c5caac9bc63e9b695176882af78a7d1924ac55e1bfeb04648e53dfd0f"},
                                std::pair{tc::Kernel::x86, "df56652d1004270509b6165aefd7100f33f92e20fa6d79b96c4b4d426ad8e6e2"}}) {
    tc::State s(3);  // torch.empty(555, dtype=torch.float64).log_normal_(0.1, 0.3)
    std::vector<double> v(555);
    tc::log_normal(s, 555, 0.1, 0.3, k, xrng::DType::f64, v.data());
    CHECK(fp(v.data(), 8 * v.size()) == std::string(want));
  }
  tc::State s(3);
  int64_t x = 0;
  CHECK_THROWS_AS(tc::randint(s, 1, 3, 3, xrng::DType::i64, &x), std::invalid_argument);
  CHECK_THROWS_AS(tc::randint(s, 1, 0, int64_t{1} << 40, xrng::DType::i32, &x), std::invalid_argument);
  CHECK_THROWS_AS(tc::geometric(s, 1, 1.0, xrng::DType::i64, &x), std::invalid_argument);
  CHECK_THROWS_AS(tc::bernoulli(s, 1, -0.1, xrng::DType::i64, &x), std::invalid_argument);
  CHECK_THROWS_AS(tc::log_normal(s, 1, 0.0, 0.0, tc::Kernel::scalar, xrng::DType::f64, &x), std::invalid_argument);
}

TEST_CASE("torch_cpu: whole draws random_, random_(from, None), randint in every integer type, dropout") {
  // SHA-256 of the bytes torch 2.15.0 gave after torch.manual_seed(3) for each expression (bool as
  // 0/1 bytes); identical under ATEN_CPU_CAPABILITY=default, avx2 and avx512.
  auto fp = [](const void* p, size_t n) {
    xrng::tools::Sha256 h;
    h.update(static_cast<const unsigned char*>(p), n);
    return h.hex();
  };
  auto check = [&](auto draw, auto zero, const char* want, const char* expr) {
    using T = decltype(zero);
    tc::State s(3);
    T v[77];  // (not std::vector: std::vector<bool> has no data())
    draw(s, v);
    std::vector<uint8_t> bytes(77 * sizeof(T));
    std::memcpy(bytes.data(), v, bytes.size());
    CHECK_MESSAGE(fp(bytes.data(), bytes.size()) == std::string(want), expr);
  };
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // torch.empty(77, dtype=...).random_(from, None)
  check([](tc::State& s, int64_t* o) { tc::random_from(s, 77, kMin, o); }, int64_t{},
        "6aea0796c4155205ad4da14b3f800ea207d12c7bea964a6be2575dae8036254d", "int64 random_(-2**63, None)");
  check([](tc::State& s, int64_t* o) { tc::random_from(s, 77, -5, o); }, int64_t{},
        "61c1d87dfe96c968e972f759c04b3633688bca1a4d7c7d0cf5e6ccc55c11b5ea", "int64 random_(-5, None)");
  check([](tc::State& s, int32_t* o) { tc::random_from(s, 77, -5, o); }, int32_t{},
        "ffdf676706320916babd747961d0099c38f3a63ad7547e8b745adcf5fa8f8bd8", "int32 random_(-5, None)");
  check([](tc::State& s, int16_t* o) { tc::random_from(s, 77, -5, o); }, int16_t{},
        "17a94a6d77b041ae84114f04f7b6a80da319b4fc03222167e00278590f57b973", "int16 random_(-5, None)");
  check([](tc::State& s, int8_t* o) { tc::random_from(s, 77, -5, o); }, int8_t{},
        "54003915c377e66f063a3d221de06a22a314c7db8fe669ea6f25525a67e8131a", "int8 random_(-5, None)");
  check([](tc::State& s, uint8_t* o) { tc::random_from(s, 77, 3, o); }, uint8_t{},
        "70e73b0976d675866e9ee74c936fb4137d78b405e90aa291457de22d27ef9168", "uint8 random_(3, None)");
  check([](tc::State& s, bool* o) { tc::random_from(s, 77, 0, o); }, bool{},
        "93dcf0c74161243dabb21354f617fc8c2af08ecdcfc6f9cc5f077a90d8a6dc08", "bool random_(0, None)");
  check([](tc::State& s, uint16_t* o) { tc::random_from(s, 77, 3, o); }, uint16_t{},
        "3ca66d52bb0705bebd62f0137513523c2fce0a6fdfd0b7001a536334b5587cbe", "uint16 random_(3, None)");
  check([](tc::State& s, uint32_t* o) { tc::random_from(s, 77, 3, o); }, uint32_t{},
        "cec04d39e344106e769333c15566d89cdf0d104c98e80a7ac015a1dbe766382c", "uint32 random_(3, None)");
  // torch.empty(77, dtype=...).random_()
  check([](tc::State& s, int64_t* o) { tc::random(s, 77, o); }, int64_t{},
        "c7dcb8d59588a3b92b75e3998df43bcf2124044476b4b5fe0bc631ad6ecd5133", "int64 random_()");
  check([](tc::State& s, int32_t* o) { tc::random(s, 77, o); }, int32_t{},
        "27514edbf9d02657f82a855eeb820cf819f00f2b547c1b1c5b4a8e33e9860218", "int32 random_()");
  check([](tc::State& s, int16_t* o) { tc::random(s, 77, o); }, int16_t{},
        "7fccccc44c6c55e8bc2f62c694f1056e0109cf7c54b20cd85876d6854eb9f8fc", "int16 random_()");
  check([](tc::State& s, int8_t* o) { tc::random(s, 77, o); }, int8_t{},
        "64ae79d4efc962775f14df1375c6a164e8cd974a8b00050f31ed6e9c88297753", "int8 random_()");
  check([](tc::State& s, uint8_t* o) { tc::random(s, 77, o); }, uint8_t{},
        "ca1bfc88e7b356797aff8fa4aa69c0db21a94979c01ae2e91b2a04108c3a9e5b", "uint8 random_()");
  check([](tc::State& s, bool* o) { tc::random(s, 77, o); }, bool{},
        "93dcf0c74161243dabb21354f617fc8c2af08ecdcfc6f9cc5f077a90d8a6dc08", "bool random_()");
  // torch.randint(low, high, (77,), dtype=...)
  check([](tc::State& s, int16_t* o) { tc::randint(s, 77, -300, 300, o); }, int16_t{},
        "47a21c0d9df7f362579f9d361d899f8a05a97dff54ce4c6f55b615c77e264fcb", "int16 randint(-300, 300)");
  check([](tc::State& s, int8_t* o) { tc::randint(s, 77, -5, 9, o); }, int8_t{},
        "40230c97c9f4638f31809e23a7cebed3a18fcde9d4ef29830e6baf23a2d785af", "int8 randint(-5, 9)");
  check([](tc::State& s, bool* o) { tc::randint(s, 77, 0, 2, o); }, bool{},
        "93dcf0c74161243dabb21354f617fc8c2af08ecdcfc6f9cc5f077a90d8a6dc08", "bool randint(0, 2)");
  check([](tc::State& s, uint16_t* o) { tc::randint(s, 77, 3, 60000, o); }, uint16_t{},
        "528fa7752e4d49c0614910f32dfd678361a3f09a0c658852ece4b886be82c61e", "uint16 randint(3, 60000)");
  check([](tc::State& s, uint32_t* o) { tc::randint(s, 77, 0, 4294967295, o); }, uint32_t{},
        "01f4bacc38c217cf2de7918f5dc2c7797ca36e8714f7984dc851cc762e511716", "uint32 randint(0, 2**32 - 1)");
  check([](tc::State& s, uint64_t* o) { tc::randint(s, 77, 5, std::numeric_limits<int64_t>::max(), o); }, uint64_t{},
        "01e16b478239579780d3964b3a64865e73c116883d50e702356ca6c1b1165896", "uint64 randint(5, 2**63 - 1)");
  // F.dropout(x, p) on CPU, x = ((torch.arange(1000) % 200) - 100).to(dtype)
  const struct {
    xrng::DType dt;
    double p;
    const char* want;
  } drops[] = {
      {xrng::DType::f32, 0.3, "1dc18fde7b38bff9c9f6bfbbe5253e04df5222adaf67fe678e2ca5d03987470d"},
      {xrng::DType::f32, 0.1, "4b9936b233b51f78f945776bafd17eae503cc783da8870cd481758d147801982"},
      {xrng::DType::f64, 0.3, "ae1dbde102fc574855682ed98070de5e1da7808f4c28e9c8845874f038d4072a"},
      {xrng::DType::f64, 0.1, "5a4ab82ecbf95773ad32819416f59d01b9a1a719dde4437665ed9f43d00a21c5"},
      {xrng::DType::f16, 0.3, "4c62ab2cfbd3a05b09ccae170b1a2972a414493a610bcf215105b15bdfc84692"},
      {xrng::DType::f16, 0.1, "fbe5fb85e2ed453b2012ac94d44815980f2784d81129317925350c0b79478a89"},
      {xrng::DType::bf16, 0.3, "b9a7c9c69ee4627c16cf983a5a57562f22874eb40c5200ba2e01e33ac3fe0832"},
      {xrng::DType::bf16, 0.1, "476011418365b5d2bcfd3543937c1f68297a80c2c794ae3f7cf8b4d0a33f352b"},
  };
  for (const auto& c : drops) {
    const size_t es = static_cast<size_t>(xrng::dtype_size(c.dt));
    std::vector<uint8_t> x(1000 * es), y(1000 * es), y2(1000 * es), mask(1000);
    for (int i = 0; i < 1000; ++i) {
      const float v = static_cast<float>(i % 200 - 100);  // exact in every dtype
      if (c.dt == xrng::DType::f64) {
        const double d = v;
        std::memcpy(x.data() + 8 * i, &d, 8);
      } else if (c.dt == xrng::DType::f32) {
        std::memcpy(x.data() + 4 * i, &v, 4);
      } else {
        const uint16_t h = c.dt == xrng::DType::f16 ? xrng::math::f32_to_f16_bits(v) : xrng::math::f32_to_bf16_bits(v);
        std::memcpy(x.data() + 2 * i, &h, 2);
      }
    }
    tc::State s(3), t(3), b(3);
    tc::dropout(s, 1000, c.p, c.dt, x.data(), y.data(), mask.data());
    CHECK_MESSAGE(fp(y.data(), y.size()) == std::string(c.want), "dropout p=" << c.p << " dtype " << int(c.dt));
    y2 = x;  // in place (inplace=True): the same values
    tc::dropout(t, 1000, c.p, c.dt, y2.data(), y2.data());
    CHECK(y2 == y);
    for (int i = 0; i < 1000; ++i) CHECK(mask[i] == (tc::bernoulli_value(b, 1.0 - c.p) ? 1 : 0));
    CHECK(s.random() == b.random());  // 2 words per element
  }
  {  // p = 0 and p = 1 draw nothing
    tc::State s(3), ref(3);
    float x[3] = {1.5f, -2.0f, 3.0f}, y[3];
    uint8_t m[3];
    tc::dropout(s, 3, 0.0, xrng::DType::f32, x, y, m);
    CHECK((y[0] == 1.5f && y[2] == 3.0f && m[0] == 1));
    tc::dropout(s, 3, 1.0, xrng::DType::f32, x, y, m);
    CHECK((y[0] == 0.0f && std::signbit(y[1]) && m[2] == 0));
    CHECK(s.random() == ref.random());
  }
  // torch's refusals, before anything is drawn
  tc::State s(3), ref(3);
  int32_t i32 = 0;
  uint64_t u64 = 0;
  bool b8 = false;
  uint16_t u16 = 0;
  float f = 0;
  CHECK_THROWS_AS(tc::random_from(s, 1, kMin, &i32), std::invalid_argument);  // the full range: int64 only
  CHECK_THROWS_AS(tc::random_from(s, 1, 0, &u64), std::invalid_argument);     // no random_(from, None) for uint64
  CHECK_THROWS_AS(tc::random_from(s, 1, -1, &b8), std::invalid_argument);     // from outside the dtype
  CHECK_THROWS_AS(tc::random_from(s, 1, int64_t{1} << 40, &i32), std::invalid_argument);
  CHECK_THROWS_AS(tc::random(s, 1, &u16), std::invalid_argument);  // no random_() for uint16/32/64
  CHECK_THROWS_AS(tc::randint(s, 1, 0, 3, &b8), std::invalid_argument);
  CHECK_THROWS_AS(tc::randint(s, 1, 0, 70000, &u16), std::invalid_argument);
  CHECK_THROWS_AS(tc::dropout(s, 1, 1.5, xrng::DType::f32, &f, &f), std::invalid_argument);
  CHECK_THROWS_AS(tc::dropout(s, 1, 0.5, xrng::DType::i32, &i32, &i32), std::invalid_argument);
  CHECK(s.random() == ref.random());
}
