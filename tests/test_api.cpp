// Bad input never crashes and never writes: make_plan, check_counters, fill
// and friends throw xrng::Error with a message.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "host/xrng.h"

using xrng::Dist;
using xrng::DrawParams;
using xrng::DType;
using xrng::Error;
using xrng::Plan;

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

// ---- stream versions (SPEC.md section 7) ---------------------------------------------------
TEST_CASE("stream versions: make_plan records the stream and resolves each row") {
  const Plan p2 = xrng::make_plan(Dist::normal, DType::f32, {});
  CHECK(p2.stream == xrng::kStreamVersion);
  CHECK(p2.version == 2);
  const Plan p1 = xrng::make_plan(Dist::normal, DType::f32, {}, 1);
  CHECK(p1.stream == 1);
  CHECK(p1.version == 1);
  // a row stream 2 keeps: the v1 row in both streams
  const Plan u2 = xrng::make_plan(Dist::uniform, DType::f32, {}, 2);
  CHECK(u2.stream == 2);
  CHECK(u2.version == 1);
  CHECK(xrng::make_plan(Dist::normal, DType::f64, {}, 2).version == 1);
  for (int bad : {0, 3, -1}) {
    const std::string want = "stream version " + std::to_string(bad) + " does not exist (1..2)";
    CHECK_THROWS_WITH_AS(xrng::make_plan(Dist::normal, DType::f32, {}, bad), doctest::Contains(want.c_str()),
                         xrng::Error);
  }
  // the dtypes offered are the same in both versions, each once
  for (const xrng::DistInfo& d : xrng::kDists) CHECK(xrng::dist_dtypes(d.id, 1) == xrng::dist_dtypes(d.id, 2));
}

TEST_CASE("stream versions: the typed draws take the stream, v1 is the golden v1 value") {
  float v1[2], v2[2], dflt[2];
  xrng::normal(xrng::Key(0), 0, v1, 2, 0.0, 1.0, {}, 1);
  xrng::normal(xrng::Key(0), 0, v2, 2, 0.0, 1.0, {}, 2);
  xrng::normal(xrng::Key(0), 0, dflt, 2);
  CHECK(xrng::math::as_u32(v1[0]) == 0x3f7dbb33u);  // golden_v1.txt, normal f32 seed 0
  CHECK(xrng::math::as_u32(v1[1]) == 0xbf6cb6b0u);
  CHECK(std::memcmp(v2, dflt, sizeof v2) == 0);      // the default is the newest
  CHECK(std::memcmp(v1, v2, sizeof v1) != 0);        // normal f32 is redefined in stream 2
  float u1[4], u2[4];
  xrng::uniform(xrng::Key(5), 0, u1, 4, 0.0, 1.0, {}, 1);
  xrng::uniform(xrng::Key(5), 0, u2, 4, 0.0, 1.0, {}, 2);
  CHECK(std::memcmp(u1, u2, sizeof u1) == 0);        // uniform is kept
  CHECK_THROWS_AS(xrng::uniform(xrng::Key(5), 0, u1, 4, 0.0, 1.0, {}, 3), xrng::Error);
}

TEST_CASE("stream versions: a Generator draws its own stream, split/fold_in keep it") {
  xrng::Generator g1(0, 0, 0, 1), g2(0, 0, 0, 2), gd(0);
  CHECK(g1.stream() == 1);
  CHECK(gd.stream() == xrng::kStreamVersion);
  CHECK(g1 != xrng::Generator(0, 0, 0, 2));  // equal key and offset, another stream
  CHECK(g1.split(3).stream() == 1);
  CHECK(g1.fold_in(9).stream() == 1);
  CHECK(xrng::Generator(xrng::Key(7), 4).with_stream(1) == xrng::Generator(7, 0, 4, 1));
  float a[2], b[2];
  g1.normal(a, 2);
  xrng::normal(xrng::Key(0), 0, b, 2, 0.0, 1.0, {}, 1);
  CHECK(std::memcmp(a, b, sizeof a) == 0);
  // a plan of another stream is refused, before anything moves
  const uint64_t off = g1.offset();
  float c[2];
  CHECK_THROWS_WITH_AS(g1.draw(xrng::make_plan(Dist::normal, DType::f32, {}, 2), 2, c),
                       doctest::Contains("the plan is of stream v2, the generator draws stream v1"), xrng::Error);
  CHECK_THROWS_AS(g1.skip(xrng::make_plan(Dist::uniform, DType::f32, {}, 2), 2), xrng::Error);
  CHECK(g1.offset() == off);
  g1.draw(g1.plan(Dist::normal, DType::f32), 2, c);  // gen.plan: its own stream
  CHECK_THROWS_AS(xrng::Generator(1, 0, 0, 0), xrng::Error);
  CHECK_THROWS_AS(xrng::Generator(1, 0, 0, 3), xrng::Error);
  CHECK_THROWS_AS(gd.with_stream(3), xrng::Error);
}

TEST_CASE("stream versions: the saved state's bytes, both versions pinned, v1 states keep drawing v1") {
  // "XRNG" | stream version (u32) | seed | subseq | offset (u64), little endian
  const uint8_t v1_state[32] = {'X', 'R', 'N', 'G', 1, 0, 0, 0,                          // stream 1
                                0x2a, 0, 0, 0, 0, 0, 0, 0,                                // seed 42
                                7, 0, 0, 0, 0, 0, 0, 0,                                   // subseq 7
                                0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};          // offset
  std::array<uint8_t, 32> want{};
  std::memcpy(want.data(), v1_state, 32);
  xrng::Generator g1(42, 7, 0xfedcba9876543210ull, 1);
  CHECK(g1.save_state() == want);  // a v1 generator's state: the bytes of every earlier release
  xrng::Generator g2(42, 7, 0xfedcba9876543210ull, 2);
  want[4] = 2;
  CHECK(g2.save_state() == want);  // a v2 generator's: only the version field differs
  // an old (pre-stream-2) state loads as a stream-1 generator and keeps drawing v1
  const xrng::Generator r1 = xrng::Generator::load_state(v1_state, 32);
  CHECK(r1 == g1);
  CHECK(r1.stream() == 1);
  CHECK(xrng::Generator::load_state(want.data(), 32) == g2);
  xrng::Generator a = xrng::Generator::load_state(v1_state, 32);  // no with_stream: the state says 1
  a.set_offset(0);
  float x[2], y[2];
  a.normal(x, 2);
  xrng::normal(xrng::Key(42, 7), 0, y, 2, 0.0, 1.0, {}, 1);
  CHECK(std::memcmp(x, y, sizeof x) == 0);
  // malformed states: one line each
  uint8_t bad[32];
  std::memcpy(bad, v1_state, 32);
  bad[4] = 3;
  CHECK_THROWS_WITH_AS(xrng::Generator::load_state(bad, 32), doctest::Contains("stream version 3"), xrng::Error);
  bad[4] = 0;
  CHECK_THROWS_WITH_AS(xrng::Generator::load_state(bad, 32), doctest::Contains("stream version 0"), xrng::Error);
  CHECK_THROWS_WITH_AS(xrng::Generator::load_state(v1_state, 31), doctest::Contains("not an xrng generator state"),
                       xrng::Error);
  bad[0] = 'Y';
  bad[4] = 1;
  CHECK_THROWS_AS(xrng::Generator::load_state(bad, 32), xrng::Error);
  CHECK_THROWS_AS(xrng::Generator::load_state(nullptr, 32), xrng::Error);
}
