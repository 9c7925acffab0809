// Element functions on fixed bits, apart from the engine (STYLE.md #8): the
// words each element consumes, edge words of every transform, and the
// binary16 / bfloat16 conversions against independent references.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <limits>
#include <vector>

#include "golden/sample_params.h"
#include "host/xrng.h"

using xrng::Dist;
using xrng::DrawParams;
using xrng::DType;

namespace {

// Checks that element e of a draw at `offset` is G::eval of the words
// offset + K*floor(e/G) .. + K - 1, value G-slot e % G, for the given options
// (the scalar reference and the automatic backend: SIMD where the CPU has it).
struct LayoutCheck {
  const xrng::Plan& plan;
  uint64_t offset;
  xrng::FillOptions opt;
  template <class G>
  void operator()() const {
    if constexpr (G::kind != xrng::Kind::element) {
      FAIL("not an element row");
      return;
    } else {
    REQUIRE(G::kGroup == plan.group);
    REQUIRE(G::kWords == plan.words);
    const xrng::Key key(0xabcdef, 9);
    const uint64_t n = 37;
    std::vector<typename G::out_t> got(n);
    xrng::fill(plan, key, offset, 0, n, got.data(), opt);
    for (uint64_t e = 0; e < n; ++e) {
      uint32_t w[G::kWords];
      for (uint32_t j = 0; j < G::kWords; ++j) w[j] = xrng::stream_word(key.stream(), offset + G::kWords * (e / G::kGroup) + j);
      typename G::out_t v[G::kGroup];
      G::eval(w, plan, v);
      REQUIRE(std::memcmp(&v[e % G::kGroup], &got[e], sizeof(typename G::out_t)) == 0);
    }
    REQUIRE(xrng::plan_words(plan, n) == G::kWords * ((n + G::kGroup - 1) / G::kGroup));
    }
  }
};

std::string hex(uint64_t x) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
  return b;
}

// The compiler's IEEE binary16 type: _Float16, or on AArch64 __fp16 (ACLE's
// IEEE half: conversions are single fcvt instructions; GCC 12 has no _Float16
// in C++ there).
#if defined(__aarch64__) || defined(_M_ARM64)
using half_t = __fp16;
#else
using half_t = _Float16;
#endif

uint16_t f16_ref(float f) {  // the compiler's IEEE conversion
  const half_t h = static_cast<half_t>(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
// bfloat16 by choosing the nearer of the two neighbours in double (ties to even).
uint16_t bf16_ref(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40);
  const uint16_t lo = static_cast<uint16_t>(x >> 16);
  if ((x & 0xffffu) == 0) return lo;
  const uint16_t hi = static_cast<uint16_t>(lo + 1);  // next magnitude (may become inf: exact)
  const double dl = std::fabs(static_cast<double>(xrng::math::bf16_bits_to_f32(lo)) - f);
  // beyond the largest finite bfloat16 the next value is 2^128 for rounding purposes (IEEE overflow)
  const double vh = (hi & 0x7f80u) == 0x7f80u ? std::copysign(0x1p128, static_cast<double>(f))
                                              : static_cast<double>(xrng::math::bf16_bits_to_f32(hi));
  const double dh = std::fabs(vh - f);
  if (dl < dh) return lo;
  if (dh < dl) return hi;
  return (lo & 1) ? hi : lo;
}

}  // namespace

TEST_CASE("every element consumes its documented words") {
  // every element row of the registry, with each sample parameter set of its distribution
  int rows = 0;
  for (const xrng::RowInfo& row : xrng::kRows) {
    if (xrng::dist_kind(row.dist) != xrng::Kind::element) continue;
    ++rows;
    for (const DrawParams& q : xrng::golden::sample_params(row.dist)) {
      const xrng::Plan p = xrng::make_plan(row.dist, row.dtype, q, row.version);
      for (uint64_t offset : {uint64_t(0), uint64_t(1), uint64_t(6)})
        for (xrng::Backend b : {xrng::Backend::scalar, xrng::Backend::automatic}) {
          INFO(std::string(xrng::dist_name(row.dist)), "/", std::string(xrng::dtype_name(row.dtype)), " offset ",
               offset, " backend ", int(b));
          CHECK(xrng::visit_row(p, LayoutCheck{p, offset, xrng::FillOptions{b, 1}}));
        }
    }
  }
  CHECK(rows > 0);
  // a permutation consumes its kPermRounds (12) key words, whatever its size
  DrawParams pq;
  pq.n = 1000;
  CHECK(xrng::plan_words(xrng::make_plan(Dist::perm, DType::i64, pq), 1000) == 12);
  CHECK(xrng::plan_words(xrng::make_plan(Dist::perm, DType::i64, pq), 3) == 12);
}

TEST_CASE("uniform: edge words") {
  const xrng::UniformParams unit = xrng::make_plan(Dist::uniform, DType::f32, {}).uniform;
  CHECK(xrng::dist::uniform_f32(0u, unit) == 0.0f);
  CHECK(xrng::dist::uniform_f32(0xffffffffu, unit) == 1.0f - 0x1p-24f);
  CHECK(xrng::dist::uniform_f32(0x80000000u, unit) == 0.5f);
  CHECK(xrng::dist::uniform_f32(0x000000ffu, unit) == 0.0f);  // the low 8 bits are not used
  const xrng::UniformParams u64 = xrng::make_plan(Dist::uniform, DType::f64, {}).uniform;
  CHECK(xrng::dist::uniform_f64(0u, 0u, u64) == 0.0);
  CHECK(xrng::dist::uniform_f64(0xffffffffu, 0xffffffffu, u64) == 1.0 - 0x1p-53);
  CHECK(xrng::dist::uniform_f64(0u, 0x80000000u, u64) == 0.5);  // w1 holds the high half
  const xrng::UniformParams u16 = xrng::make_plan(Dist::uniform, DType::f16, {}).uniform;
  CHECK(xrng::math::f16_bits_to_f32(xrng::dist::uniform_f16(0xffffffffu, u16)) == 1.0f - 0x1p-11f);
  const xrng::UniformParams ub = xrng::make_plan(Dist::uniform, DType::bf16, {}).uniform;
  CHECK(xrng::math::bf16_bits_to_f32(xrng::dist::uniform_bf16(0xffffffffu, ub)) == 1.0f - 0x1p-8f);
  // results that round to `high` become the largest value below it
  DrawParams q;
  q.low = 1.0;
  q.high = 1.0 + 0x1p-20;
  const xrng::UniformParams t = xrng::make_plan(Dist::uniform, DType::f32, q).uniform;
  for (uint32_t w : {0u, 0x7fffffffu, 0xfff00000u, 0xffffffffu}) {
    const float y = xrng::dist::uniform_f32(w, t);
    CHECK(y >= 1.0f);
    CHECK(y < static_cast<float>(1.0 + 0x1p-20));
  }
  q.low = -3.0;
  q.high = 5.0;
  const xrng::UniformParams a = xrng::make_plan(Dist::uniform, DType::f32, q).uniform;
  CHECK(xrng::dist::uniform_f32(0u, a) == -3.0f);
  CHECK(xrng::dist::uniform_f32(0xffffffffu, a) < 5.0f);
}

TEST_CASE("bernoulli, dropout and randint: edge words") {
  DrawParams q;
  q.p = 0.5;
  const xrng::BernoulliParams h = xrng::make_plan(Dist::bernoulli, DType::u8, q).bernoulli;
  CHECK(h.threshold == (uint64_t{1} << 31));
  CHECK(xrng::dist::bernoulli_u8(0x7fffffffu, h) == 1);
  CHECK(xrng::dist::bernoulli_u8(0x80000000u, h) == 0);
  q.p = 1.0;
  const xrng::BernoulliParams one = xrng::make_plan(Dist::bernoulli, DType::u8, q).bernoulli;
  CHECK(xrng::dist::bernoulli_u8(0xffffffffu, one) == 1);
  q.p = 0.0;
  const xrng::BernoulliParams zero = xrng::make_plan(Dist::bernoulli, DType::u8, q).bernoulli;
  CHECK(xrng::dist::bernoulli_u8(0u, zero) == 0);
  q.p = 0.25;
  const xrng::BernoulliParams d = xrng::make_plan(Dist::dropout, DType::f32, q).bernoulli;
  CHECK(xrng::dist::dropout_f32(0u, 3.0f, d) == 0.0f);
  CHECK(xrng::dist::dropout_f32(0xffffffffu, 3.0f, d) == 3.0f * static_cast<float>(1.0 / 0.75));
  CHECK(xrng::dist::dropout_f64(0xffffffffu, 3.0, d) == 3.0 * (1.0 / 0.75));

  q.ilow = -5;
  q.ihigh = 3;
  const xrng::RandintParams r = xrng::make_plan(Dist::randint, DType::i32, q).randint;
  CHECK(xrng::dist::randint_i32(0u, 0u, r) == -5);
  CHECK(xrng::dist::randint_i32(0xffffffffu, 0xffffffffu, r) == 2);
  CHECK(xrng::dist::randint_i32(0u, 0x80000000u, r) == -1);  // r = 2^63: the middle value
  const uint32_t ones[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, zeros[4] = {0, 0, 0, 0};
  q.ilow = std::numeric_limits<int64_t>::min();
  q.ihigh = std::numeric_limits<int64_t>::max();
  const xrng::RandintParams f = xrng::make_plan(Dist::randint, DType::i64, q).randint;
  CHECK(xrng::dist::randint_i64(zeros, f) == std::numeric_limits<int64_t>::min());
  CHECK(xrng::dist::randint_i64(ones, f) == std::numeric_limits<int64_t>::max() - 1);
  // v = floor(r * range / 2^128): with r = 2^127 (only the top bit) v = floor(range / 2)
  const uint32_t top[4] = {0, 0, 0, 0x80000000u};
  q.ilow = 0;
  q.ihigh = 1001;
  CHECK(xrng::dist::randint_i64(top, xrng::make_plan(Dist::randint, DType::i64, q).randint) == 500);
}

TEST_CASE("normal: edge words") {
  const xrng::NormalParams unit{};
  float z[2];
  // word a = 2^32 - 1: u = 1 - 2^-33, the smallest radius sqrt(-2 log u) ~ 2^-16
  xrng::dist::normal_f32(0xffffffffu, 0u, unit, z);
  CHECK(z[0] > 0.0f);
  CHECK(z[0] == doctest::Approx(std::sqrt(0x1p-32)).epsilon(1e-6));
  CHECK(z[1] == 0.0f);
  // a quarter turn: cos = 0 exactly (either sign), sin = 1
  xrng::dist::normal_f32(0x12345678u, 0x40000000u, unit, z);
  CHECK(z[0] == 0.0f);
  CHECK(z[1] > 0.0f);
  // mean and std are applied in double: std = 0 gives the mean exactly
  xrng::NormalParams c;
  c.mean = 1.5;
  c.std = 0.0;
  xrng::dist::normal_f32(0x1u, 0x2u, c, z);
  CHECK(z[0] == 1.5f);
  CHECK(z[1] == 1.5f);
  double zd[2];
  const uint32_t w[4] = {0, 0, 0, 0};
  xrng::dist::normal_f64(w, unit, zd);
  CHECK(zd[0] == doctest::Approx(std::sqrt(2.0 * 53.0 * std::log(2.0))).epsilon(1e-14));  // u = 2^-53
  CHECK(zd[1] == 0.0);
}

TEST_CASE("binary16 and bfloat16 conversions match independent references") {
  // every 997th binary32 pattern (all exponents, both signs, NaNs, infinities)
  // plus every pattern near the rounding boundaries of the low bits
  uint64_t checked = 0;
  auto check = [&](uint32_t x) {
    float f;
    std::memcpy(&f, &x, 4);
    const uint16_t h = xrng::math::f32_to_f16_bits(f);
    if (std::isnan(f)) {
      if (!((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0)) FAIL_CHECK("f16 of NaN ", hex(x), " is not a NaN");
    } else if (h != f16_ref(f)) {
      FAIL_CHECK("f16 of ", hex(x), ": got ", hex(h), " expected ", hex(f16_ref(f)));
    }
    const uint16_t b = xrng::math::f32_to_bf16_bits(f);
    if (b != bf16_ref(f)) FAIL_CHECK("bf16 of ", hex(x), ": got ", hex(b), " expected ", hex(bf16_ref(f)));
    ++checked;
  };
  for (uint64_t x = 0; x < (uint64_t{1} << 32); x += 997) check(static_cast<uint32_t>(x));
  for (uint32_t hi = 0; hi < 0x10000u; hi += 7)
    for (uint32_t lo : {0x0fffu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu})
      check((hi << 16) | lo);
  MESSAGE(checked, " binary32 patterns converted");
  // all 2^16 binary16 patterns round-trip through binary32
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = xrng::math::f16_bits_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    half_t r;
    std::memcpy(&r, &h, 2);
    REQUIRE(f == static_cast<float>(r));
    REQUIRE(xrng::math::f32_to_f16_bits(f) == h);
  }
}

// Stream v2 near u = 1 (issue 15, SPEC.md 9, "Revision"): -ln u and the
// radius come from the word itself, not from u rounded to binary32, so the
// largest words give distinct values down to -ln(1 - 2^-33) ~ 2^-33 (the
// first definition stopped at 2^-24 and put 2^8 words on each value there).
TEST_CASE("stream v2: exponential and radius near u = 1 are functions of the word") {
  const xrng::ExponentialParams unit{};
  // the smallest value: -ln(1 - 2^-33) = 2^-33 (1 + 2^-34 + ...), rounded: 2^-33
  CHECK(xrng::dist::v2::exponential_f32(0xffffffffu, unit) == 0x1p-33f);
  // the top 2^16 words: strictly decreasing values, each within an ulp of
  // -ln((w + 1/2) 2^-32) in binary64 (v1's transform, itself within 2^-52)
  float prev = std::numeric_limits<float>::infinity();
  int worse = 0;
  for (uint32_t w = 0xffff0000u; w != 0; ++w) {
    const float y = xrng::dist::v2::exponential_f32(w, unit);
    const double ref = xrng::math::neg_log_unit<32, double, uint64_t>(w);
    CHECK_MESSAGE(y < prev, "word ", w);
    prev = y;
    int e;
    std::frexp(ref, &e);
    worse += std::fabs(y - ref) > std::ldexp(1.0, e - 24);
  }
  CHECK(worse == 0);
  // the normal's smallest radius: sqrt(-2 ln(1 - 2^-33)) = 2^-16
  const xrng::NormalParams n{};
  float z[2];
  xrng::dist::v2::normal_f32(0xffffffffu, 0u, n, z);
  CHECK(z[0] == 0x1p-16f);
  CHECK(z[1] == 0.0f);
}
