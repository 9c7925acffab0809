// Bad input never crashes and never writes: make_plan, check_counters, fill
// and friends throw xrng::Error with a message.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "host/xrng.h"

using xrng::Dist;
using xrng::DrawParams;
using xrng::DType;
using xrng::Error;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("unknown names") {
  CHECK_THROWS_AS(xrng::parse_dist("gaussian"), Error);
  CHECK_THROWS_AS(xrng::parse_dist(""), Error);
  CHECK_THROWS_AS(xrng::parse_dist("Normal"), Error);
  CHECK_THROWS_AS(xrng::parse_dtype("float32"), Error);
  CHECK_THROWS_AS(xrng::parse_dtype(""), Error);
  CHECK_THROWS_AS(xrng::parse_dtype("u16"), Error);
  for (const char* d : {"bits", "uniform", "normal", "bernoulli", "randint", "perm", "dropout"})
    CHECK(std::string(xrng::dist_name(xrng::parse_dist(d))) == d);
  for (const char* t : {"u32", "u64", "f32", "f64", "f16", "bf16", "i32", "i64", "u8"})
    CHECK(std::string(xrng::dtype_name(xrng::parse_dtype(t))) == t);
}

TEST_CASE("dtype not available for a distribution") {
  const Dist dists[] = {Dist::bits, Dist::uniform, Dist::normal, Dist::bernoulli, Dist::randint, Dist::perm,
                        Dist::dropout};
  const DType types[] = {DType::u32, DType::u64, DType::f32, DType::f64, DType::f16,
                         DType::bf16, DType::i32, DType::i64, DType::u8};
  int rejected = 0;
  for (Dist d : dists) {
    for (DType t : types) {
      DrawParams q = DrawParams::range(0, 1);
      q.ilow = 0;
      q.ihigh = 10;
      q.n = 10;
      if (xrng::dtype_supported(d, t)) {
        CHECK_NOTHROW(xrng::make_plan(d, t, q));
      } else {
        CHECK_THROWS_AS(xrng::make_plan(d, t, q), Error);
        ++rejected;
      }
    }
  }
  CHECK(rejected > 40);
  CHECK_THROWS_AS(xrng::make_plan(Dist::normal, DType::i32, DrawParams::moments(0, 1)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::bits, DType::f32, {}), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::bernoulli, DType::f32, DrawParams::probability(0.5)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::randint, DType::u64, DrawParams::int_range(0, 3)), Error);
}

TEST_CASE("uniform ranges") {
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    INFO(xrng::dtype_name(t));
    CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, t, DrawParams::range(1, 1)), Error);        // empty
    CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, t, DrawParams::range(2, 1)), Error);        // inverted
    CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, t, DrawParams::range(kNaN, 1)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, t, DrawParams::range(0, kNaN)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, t, DrawParams::range(-kInf, 0)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, t, DrawParams::range(0, kInf)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, t, DrawParams::range(-1e308, 1e308)), Error);  // width overflows double
    CHECK_NOTHROW(xrng::make_plan(Dist::uniform, t, DrawParams::range(-1, 1)));
  }
  // ranges that overflow the output type
  CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, DType::f32, DrawParams::range(0, 1e39)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, DType::f16, DrawParams::range(0, 70000)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, DType::f16, DrawParams::range(-65520, 0)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, DType::bf16, DrawParams::range(0, 1e39)), Error);
  // ranges empty only after rounding to the type
  CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, DType::f32, DrawParams::range(1.0, 1.0 + 1e-12)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, DType::f16, DrawParams::range(1.0, 1.0 + 1e-4)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::uniform, DType::bf16, DrawParams::range(1.0, 1.001)), Error);
}

TEST_CASE("normal parameters") {
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    CHECK_THROWS_AS(xrng::make_plan(Dist::normal, t, DrawParams::moments(0, -1)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::normal, t, DrawParams::moments(0, -0x1p-1074)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::normal, t, DrawParams::moments(kNaN, 1)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::normal, t, DrawParams::moments(0, kNaN)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::normal, t, DrawParams::moments(kInf, 1)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::normal, t, DrawParams::moments(0, kInf)), Error);
    CHECK_NOTHROW(xrng::make_plan(Dist::normal, t, DrawParams::moments(0, 0)));
  }
}

// One rule for every real location and scale parameter (SPEC.md section 4):
// it must round to a finite value of the output dtype; values beyond the
// dtype's range still round to +-inf. Limits: the largest finite value rounds
// to itself, the first value that rounds to inf (max + half an ulp) is out.
TEST_CASE("location and scale parameters are finite in the output dtype") {
  struct Limit {
    DType t;
    double max, inf;  // largest finite value; smallest binary64 value that rounds to +inf
  };
  const Limit limits[] = {{DType::f32, 0x1.fffffep127, 0x1.ffffffp127},
                          {DType::f16, 65504.0, 65520.0},
                          {DType::bf16, 0x1.fep127, 0x1.ffp127},
                          {DType::f64, std::numeric_limits<double>::max(), kInf}};
  // Each distribution with location/scale parameters, as (dist, which parameter, params with it set to x).
  struct Case {
    Dist d;
    const char* name;
    DrawParams (*make)(double x);
  };
  const Case cases[] = {
      {Dist::uniform, "high", [](double x) { return DrawParams::range(0, x); }},
      {Dist::uniform, "low", [](double x) { return DrawParams::range(-x, 0); }},
      {Dist::normal, "mean", [](double x) { return DrawParams::moments(x, 1); }},
      {Dist::normal, "std", [](double x) { return DrawParams::moments(0, x); }},
      {Dist::log_normal, "mean", [](double x) { return DrawParams::moments(-x, 1); }},
      {Dist::log_normal, "std", [](double x) { return DrawParams::moments(0, x); }},
      {Dist::cauchy, "median", [](double x) { return DrawParams::location_scale(x, 1); }},
      {Dist::cauchy, "sigma", [](double x) { return DrawParams::location_scale(0, x); }},
  };
  for (const Case& c : cases)
    for (const Limit& l : limits) {
      INFO(xrng::dist_name(c.d), " ", c.name, " ", xrng::dtype_name(l.t));
      CHECK_NOTHROW(xrng::make_plan(c.d, l.t, c.make(l.max)));
      std::string msg;
      try {
        xrng::make_plan(c.d, l.t, c.make(l.inf));
      } catch (const Error& e) {
        msg = e.what();
      }
      // the message names the distribution, the parameter, the dtype and its largest finite value
      CHECK(msg.find(std::string(xrng::dist_name(c.d)) + ": " + c.name + " = ") == 0);
      CHECK(msg.find(std::string("is not finite in ") + xrng::dtype_name(l.t)) != std::string::npos);
      CHECK(msg.find("largest finite value " + xrng::detail::num(l.max)) != std::string::npos);
      CHECK(msg.find('\n') == std::string::npos);
    }
  // the cases of the issue: the message reads as the user typed the value
  try {
    xrng::make_plan(Dist::normal, DType::f32, DrawParams::moments(1e39, 1));
    FAIL("normal f32 mean 1e39 accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "normal: mean = 1e+39 is not finite in f32 (largest finite value 3.4028234663852886e+38; parameters must be "
          "finite in the output dtype, values beyond it round to +-inf)");
  }
  CHECK_THROWS_AS(xrng::make_plan(Dist::normal, DType::f16, DrawParams::moments(70000, 1)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::normal, DType::f16, DrawParams::moments(0, 1e6)), Error);
  // values beyond the range are not parameters: they still round to inf
  // (exponential's rate is an inverse scale; rate 1e-30 in f16 is a golden case)
  CHECK_NOTHROW(xrng::make_plan(Dist::exponential, DType::f16, DrawParams::with_rate(1e-30)));
  CHECK_NOTHROW(xrng::make_plan(Dist::log_normal, DType::f16, DrawParams::moments(89, 1)));
  const xrng::Plan p = xrng::make_plan(Dist::normal, DType::f16, DrawParams::moments(65504, 1000));
  uint16_t out[64];
  xrng::fill(p, xrng::Key(1), 0, 0, 64, out);
  int inf = 0;
  for (uint16_t h : out) inf += h == 0x7c00u;
  CHECK(inf > 0);  // about half the values exceed 65504 + 16 and round to +inf
}

TEST_CASE("probabilities") {
  for (Dist d : {Dist::bernoulli, Dist::dropout}) {
    const DType t = d == Dist::bernoulli ? DType::u8 : DType::f32;
    for (double p : {-0.1, 1.0000001, kNaN, kInf, -kInf, -0x1p-1074})
      CHECK_THROWS_AS(xrng::make_plan(d, t, DrawParams::probability(p)), Error);
    for (double p : {0.0, 1.0, 0.5, 1e-300}) CHECK_NOTHROW(xrng::make_plan(d, t, DrawParams::probability(p)));
  }
}

TEST_CASE("randint ranges") {
  const int64_t mn = std::numeric_limits<int64_t>::min(), mx = std::numeric_limits<int64_t>::max();
  for (DType t : {DType::i32, DType::i64}) {
    CHECK_THROWS_AS(xrng::make_plan(Dist::randint, t, DrawParams::int_range(0, 0)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::randint, t, DrawParams::int_range(5, -5)), Error);
    CHECK_THROWS_AS(xrng::make_plan(Dist::randint, t, DrawParams::int_range(mx, mn)), Error);
    CHECK_NOTHROW(xrng::make_plan(Dist::randint, t, DrawParams::int_range(-1, 0)));
  }
  CHECK_THROWS_AS(xrng::make_plan(Dist::randint, DType::i32, DrawParams::int_range(0, (int64_t{1} << 31) + 1)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::randint, DType::i32, DrawParams::int_range(-(int64_t{1} << 31) - 1, 0)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::randint, DType::i32, DrawParams::int_range(mn, mx)), Error);
  CHECK_NOTHROW(xrng::make_plan(Dist::randint, DType::i32, DrawParams::int_range(-(int64_t{1} << 31), int64_t{1} << 31)));
  CHECK_NOTHROW(xrng::make_plan(Dist::randint, DType::i64, DrawParams::int_range(mn, mx)));
}

TEST_CASE("permutation sizes and slices") {
  CHECK_THROWS_AS(xrng::make_plan(Dist::perm, DType::i64, DrawParams::perm_size(0)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::perm, DType::i64, DrawParams::perm_size((1ull << 63) + 1)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::perm, DType::i64, DrawParams::perm_size(~0ull)), Error);
  CHECK_NOTHROW(xrng::make_plan(Dist::perm, DType::i64, DrawParams::perm_size(1ull << 63)));
  CHECK_THROWS_AS(xrng::make_plan(Dist::perm, DType::i32, DrawParams::perm_size((1ull << 31) + 1)), Error);
  CHECK_THROWS_AS(xrng::make_plan(Dist::perm, DType::u32, DrawParams::perm_size((1ull << 32) + 1)), Error);
  CHECK_NOTHROW(xrng::make_plan(Dist::perm, DType::u32, DrawParams::perm_size(1ull << 32)));

  const xrng::Plan p = xrng::make_plan(Dist::perm, DType::i64, DrawParams::perm_size(10));
  CHECK_THROWS_AS(xrng::check_counters(p, 0, 0, 11), Error);
  CHECK_THROWS_AS(xrng::check_counters(p, 0, 5, 6), Error);
  CHECK_THROWS_AS(xrng::check_counters(p, 0, 10, 1), Error);
  CHECK_THROWS_AS(xrng::check_counters(p, 0, ~0ull, 2), Error);  // start + count wraps
  CHECK_NOTHROW(xrng::check_counters(p, 0, 10, 0));
  int64_t out[16] = {};
  const xrng::Key k(1);
  CHECK_THROWS_AS(xrng::fill(p, k, 0, 5, 6, out), Error);
  CHECK_THROWS_AS(xrng::perm_inverse(p, k, 0, 9, 2, out), Error);
  CHECK_THROWS_AS(xrng::perm_element(k, 0, 10, 10), Error);
  CHECK_THROWS_AS(xrng::perm_position(k, 0, 10, 10), Error);
  CHECK_THROWS_AS(xrng::perm_element(k, 0, 0, 0), Error);
  CHECK_THROWS_AS(xrng::randperm(k, 0, 0), Error);
  CHECK_THROWS_AS(xrng::randperm(k, 0, 1ull << 62), Error);  // too large to materialise: an Error, not bad_alloc
  // a permutation key needs kPermRounds words: offsets beyond 2^64 - kPermRounds overflow
  constexpr uint64_t kw = xrng::kPermRounds;
  CHECK_NOTHROW(xrng::check_counters(p, 0ull - kw, 0, 10));
  CHECK_THROWS_AS(xrng::check_counters(p, 0ull - (kw - 1), 0, 10), Error);
  CHECK_THROWS_AS(xrng::perm_element(k, 0ull - (kw - 1), 10, 0), Error);
}

TEST_CASE("perm_shard rank and world") {
  const xrng::Plan p = xrng::make_plan(Dist::perm, DType::i64, DrawParams::perm_size(10));
  const xrng::Key k(3);
  int64_t out[8] = {};
  CHECK_THROWS_AS(xrng::perm_shard(p, k, 0, 0, 0, 0, 4, out), Error);
  CHECK_THROWS_AS(xrng::perm_shard(p, k, 0, 3, 3, 0, 4, out), Error);
  CHECK_THROWS_AS(xrng::perm_shard(p, k, 0, 7, 2, 0, 4, out), Error);
  CHECK_THROWS_AS(xrng::perm_shard(p, k, 0, 0, 3, 0, 4, nullptr), Error);
  CHECK_THROWS_AS(xrng::perm_shard(xrng::make_plan(Dist::bits, DType::u32, {}), k, 0, 0, 3, 0, 4, out), Error);
  CHECK_NOTHROW(xrng::perm_shard(p, k, 0, 2, 3, 0, 4, out));
}

TEST_CASE("counter overflow near 2^64") {
  const uint64_t top = ~0ull;  // 2^64 - 1: the last word index
  uint32_t w[8] = {};
  const xrng::Key k(9);
  const xrng::Plan b32 = xrng::make_plan(Dist::bits, DType::u32, {});
  CHECK_NOTHROW(xrng::fill(b32, k, top, 0, 1, w));   // word 2^64 - 1 is the last one
  CHECK_THROWS_AS(xrng::fill(b32, k, top, 0, 2, w), Error);
  CHECK_THROWS_AS(xrng::fill(b32, k, top - 3, 2, 3, w), Error);
  CHECK_NOTHROW(xrng::fill(b32, k, top - 3, 2, 2, w));
  const xrng::Plan nf = xrng::make_plan(Dist::normal, DType::f32, DrawParams::moments(0, 1));
  float f[4];
  // normal pairs: 3 elements need 2 pairs = 4 words
  CHECK_NOTHROW(xrng::fill(nf, k, 0ull - 4, 0, 3, f));
  CHECK_THROWS_AS(xrng::fill(nf, k, 0ull - 3, 0, 3, f), Error);
  // start near 2^64: start + count must not wrap
  CHECK_THROWS_AS(xrng::fill(b32, k, 0, ~0ull, 2, w), Error);
  CHECK_THROWS_AS(xrng::check_counters(b32, 0, ~0ull - 1, ~0ull - 1), Error);
  const xrng::Plan n64 = xrng::make_plan(Dist::normal, DType::f64, DrawParams::moments(0, 1));
  // 2^63 f64 normals are 2^62 pairs of 4 words: exactly the whole stream
  CHECK_NOTHROW(xrng::check_counters(n64, 0, 0, 1ull << 63));
  CHECK_THROWS_AS(xrng::check_counters(n64, 1, 0, 1ull << 63), Error);
  CHECK_THROWS_AS(xrng::check_counters(n64, 0, 1, 1ull << 63), Error);
  const xrng::Plan ri = xrng::make_plan(Dist::randint, DType::i64, DrawParams::int_range(0, 5));
  CHECK_THROWS_AS(xrng::check_counters(ri, 1, 0, 1ull << 62), Error);
  CHECK_NOTHROW(xrng::check_counters(ri, 0, 0, 1ull << 62));
  // dropout counts its mask words
  const xrng::Plan dp = xrng::make_plan(Dist::dropout, DType::f32, DrawParams::probability(0.5));
  float in[2] = {1, 2}, o[2];
  CHECK_THROWS_AS(xrng::dropout(dp, k, top, 0, 2, in, o), Error);
  CHECK_NOTHROW(xrng::dropout(dp, k, top, 0, 1, in, o));
}

TEST_CASE("null buffers") {
  const xrng::Key k(1);
  const xrng::Plan b32 = xrng::make_plan(Dist::bits, DType::u32, {});
  CHECK_THROWS_AS(xrng::fill(b32, k, 0, 0, 1, nullptr), Error);
  CHECK_NOTHROW(xrng::fill(b32, k, 0, 0, 0, nullptr));  // nothing to write
  CHECK_THROWS_AS(xrng::bits(k, 0, static_cast<uint32_t*>(nullptr), 3), Error);
  CHECK_THROWS_AS(xrng::normal(k, 0, static_cast<float*>(nullptr), 3), Error);
  const xrng::Plan dp = xrng::make_plan(Dist::dropout, DType::f32, DrawParams::probability(0.5));
  float buf[4] = {};
  CHECK_THROWS_AS(xrng::dropout(dp, k, 0, 0, 4, nullptr, buf), Error);
  CHECK_THROWS_AS(xrng::dropout(dp, k, 0, 0, 4, buf, nullptr), Error);
  CHECK_THROWS_AS(xrng::perm_inverse(xrng::make_plan(Dist::perm, DType::i64, DrawParams::perm_size(5)), k, 0, 0, 5, nullptr), Error);
  // dropout plans through fill, and non-dropout plans through dropout
  CHECK_THROWS_AS(xrng::fill(dp, k, 0, 0, 4, buf), Error);
  CHECK_THROWS_AS(xrng::dropout(b32, k, 0, 0, 4, buf, buf), Error);
}

TEST_CASE("errors are thrown before anything is written") {
  uint32_t w[4] = {0xaaaaaaaau, 0xaaaaaaaau, 0xaaaaaaaau, 0xaaaaaaaau};
  const xrng::Plan b32 = xrng::make_plan(Dist::bits, DType::u32, {});
  CHECK_THROWS_AS(xrng::fill(b32, xrng::Key(1), ~0ull - 1, 0, 4, w), Error);
  for (uint32_t x : w) CHECK(x == 0xaaaaaaaau);
}

TEST_CASE("generator exhaustion") {
  const xrng::Plan b32 = xrng::make_plan(Dist::bits, DType::u32, {});
  uint32_t w[8];
  xrng::Generator g(1, 0, ~0ull - 3);
  g.draw(b32, 3, w);
  CHECK(g.offset() == ~0ull);
  // one word (2^64 - 1) is left, but consuming it would wrap the offset
  CHECK_THROWS_AS(g.draw(b32, 1, w), Error);
  CHECK_THROWS_AS(g.skip(b32, 1), Error);
  CHECK(g.offset() == ~0ull);  // a failed draw does not move the generator
  xrng::Generator h(1, 0, ~0ull - 10);
  CHECK_THROWS_AS(h.skip(b32, 100), Error);
  CHECK(h.offset() == ~0ull - 10);
  const xrng::Plan pm = xrng::make_plan(Dist::perm, DType::i64, DrawParams::perm_size(4));
  xrng::Generator q(1, 0, ~0ull - 7);
  int64_t v[4];
  CHECK_THROWS_AS(q.draw(pm, 4, v), Error);  // 8 key words would end exactly at 2^64: the offset wraps
  CHECK_THROWS_AS(q.draw(pm, 5, v), Error);  // count > n
}
