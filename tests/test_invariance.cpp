// Invariances that make the streams reproducible: random access, chunking,
// offset arithmetic of a Generator, thread count and backend.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "golden.h"
#include "host/xrng.h"

using xrng::Backend;
using xrng::Dist;
using xrng::DrawParams;
using xrng::DType;
using xrng::FillOptions;
using xrng::Plan;

namespace {

struct NamedPlan {
  std::string name;
  Plan plan;
};

std::vector<NamedPlan> plans() {
  std::vector<NamedPlan> v;
  auto add = [&](Dist d, DType t, DrawParams q) {
    v.push_back({std::string(xrng::dist_name(d)) + "/" + xrng::dtype_name(t), xrng::make_plan(d, t, q)});
  };
  add(Dist::bits, DType::u32, {});
  add(Dist::bits, DType::u64, {});
  DrawParams u;
  u.low = -2.0;
  u.high = 3.0;
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) add(Dist::uniform, t, u);
  add(Dist::uniform, DType::f32, {});
  DrawParams n;
  n.mean = 0.5;
  n.std = 2.0;
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) add(Dist::normal, t, n);
  add(Dist::normal, DType::f32, {});
  DrawParams b;
  b.p = 0.3;
  add(Dist::bernoulli, DType::u8, b);
  DrawParams r;
  r.ilow = -7;
  r.ihigh = 1000003;
  add(Dist::randint, DType::i32, r);
  add(Dist::randint, DType::i64, r);
  DrawParams p;
  p.n = 100000;
  add(Dist::perm, DType::i64, p);
  add(Dist::perm, DType::u32, p);
  return v;
}

std::vector<uint64_t> draw(const Plan& p, const xrng::Key& k, uint64_t offset, uint64_t start, uint64_t count,
                           const FillOptions& opt) {
  std::vector<unsigned char> buf(count * xrng::dtype_size(p.dtype) + 8);
  xrng::fill(p, k, offset, start, count, buf.data(), opt);
  return xrng_test::to_bits(p.dtype, buf.data(), count);
}

const FillOptions kScalar{Backend::scalar, 1};
const FillOptions kAuto{Backend::automatic, 1};

}  // namespace

TEST_CASE("random access: start = k equals the tail of start = 0") {
  const xrng::Key key(0x5eed, 3);
  for (const NamedPlan& np : plans()) {
    for (uint64_t offset : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(4), uint64_t(1000001)}) {
      for (const FillOptions& opt : {kScalar, kAuto}) {
        const uint64_t n = 2061;
        const std::vector<uint64_t> all = draw(np.plan, key, offset, 0, n, opt);
        for (uint64_t k : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 63u, 64u, 65u, 1024u, 1025u, 2060u}) {
          INFO(np.name, " offset ", offset, " start ", k, " backend ", int(opt.backend));
          const std::vector<uint64_t> tail = draw(np.plan, key, offset, k, n - k, opt);
          REQUIRE(std::vector<uint64_t>(all.begin() + k, all.end()) == tail);
        }
      }
    }
  }
}

TEST_CASE("chunking: [0,n) == [0,k) ++ [k,n) for every k") {
  const xrng::Key key(77, 0);
  for (const NamedPlan& np : plans()) {
    for (uint64_t offset : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(3)}) {
      for (const FillOptions& opt : {kScalar, kAuto}) {
        const uint64_t n = 41;  // k runs over every split: odd k splits a normal pair,
                                // and with the offsets above every Philox-block phase occurs
        const std::vector<uint64_t> all = draw(np.plan, key, offset, 0, n, opt);
        for (uint64_t k = 0; k <= n; ++k) {
          INFO(np.name, " offset ", offset, " k ", k);
          std::vector<uint64_t> a = draw(np.plan, key, offset, 0, k, opt);
          const std::vector<uint64_t> b = draw(np.plan, key, offset, k, n - k, opt);
          a.insert(a.end(), b.begin(), b.end());
          REQUIRE(a == all);
        }
        // three chunks with the middle one of a single element
        for (uint64_t k = 0; k + 1 < n; k += 5) {
          std::vector<uint64_t> a = draw(np.plan, key, offset, 0, k, opt);
          const std::vector<uint64_t> m = draw(np.plan, key, offset, k, 1, opt);
          const std::vector<uint64_t> c = draw(np.plan, key, offset, k + 1, n - k - 1, opt);
          a.insert(a.end(), m.begin(), m.end());
          a.insert(a.end(), c.begin(), c.end());
          REQUIRE(a == all);
        }
      }
    }
  }
}

TEST_CASE("thread count and backend invariance on large draws") {
  const xrng::Key key(123456789, 42);
  for (const NamedPlan& np : plans()) {
    const uint64_t n = np.plan.dist == Dist::perm ? np.plan.n - 3 : (uint64_t{1} << 19) + 12345;
    const uint64_t start = np.plan.dist == Dist::perm ? 3 : 7;
    const std::vector<uint64_t> ref = draw(np.plan, key, 11, start, n, kScalar);
    for (Backend b : {Backend::scalar, Backend::automatic}) {
      for (int t : {1, 2, 3, 8}) {
        if (b == Backend::scalar && t == 1) continue;
        INFO(np.name, " backend ", int(b), " threads ", t);
        REQUIRE(draw(np.plan, key, 11, start, n, {b, t}) == ref);
      }
    }
  }
}

TEST_CASE("dropout: chunking, threads and backend") {
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    DrawParams q;
    q.p = 0.25;
    const Plan p = xrng::make_plan(Dist::dropout, t, q);
    const int sz = xrng::dtype_size(t);
    const uint64_t n = (uint64_t{1} << 17) + 3;
    std::vector<unsigned char> in(n * sz);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>((i * 37 + 11) & 0x3f);  // finite values
    auto run = [&](uint64_t start, uint64_t count, const FillOptions& opt) {
      std::vector<unsigned char> out(count * sz + 8);
      xrng::dropout(p, xrng::Key(5), 9, start, count, in.data() + start * sz, out.data(), opt);
      return xrng_test::to_bits(t, out.data(), count);
    };
    const std::vector<uint64_t> ref = run(0, n, kScalar);
    for (int th : {1, 3, 8}) {
      CHECK(run(0, n, {Backend::automatic, th}) == ref);
      CHECK(run(0, n, {Backend::scalar, th}) == ref);
    }
    for (uint64_t k : {1ull, 3ull, 4097ull, 70001ull}) {
      std::vector<uint64_t> a = run(0, k, kAuto);
      const std::vector<uint64_t> b = run(k, n - k, kAuto);
      a.insert(a.end(), b.begin(), b.end());
      CHECK(a == ref);
    }
    // the mask is the bernoulli(p) draw at the same offset
    DrawParams bq;
    bq.p = 0.25;
    const std::vector<uint64_t> mask = draw(xrng::make_plan(Dist::bernoulli, DType::u8, bq), xrng::Key(5), 9, 0, n,
                                            kScalar);
    for (uint64_t i = 0; i < n; ++i)
      if (mask[i]) REQUIRE(ref[i] == 0);
  }
}

TEST_CASE("Generator: successive draws equal draws at explicit offsets (plan_words)") {
  const std::vector<NamedPlan> ps = plans();
  xrng::Generator g(31337, 2, 5);
  uint64_t offset = 5;
  const xrng::Key key(31337, 2);
  uint64_t counts[] = {1, 3, 7, 2, 5, 1000, 33};
  int step = 0;
  for (int round = 0; round < 3; ++round) {
    for (const NamedPlan& np : ps) {
      const uint64_t count = np.plan.dist == Dist::perm ? np.plan.n : counts[step++ % 7];
      INFO(np.name, " count ", count, " round ", round);
      std::vector<unsigned char> buf(count * xrng::dtype_size(np.plan.dtype) + 8);
      REQUIRE(g.offset() == offset);
      g.draw(np.plan, count, buf.data());
      CHECK(xrng_test::to_bits(np.plan.dtype, buf.data(), count) == draw(np.plan, key, offset, 0, count, kScalar));
      offset += xrng::plan_words(np.plan, count);
      CHECK(g.offset() == offset);
      // skip advances exactly as much as a draw
      g.skip(np.plan, count);
      offset += xrng::plan_words(np.plan, count);
      CHECK(g.offset() == offset);
    }
  }
  // odd counts round up to whole groups: 3 normal f32 values consume 2 pairs = 4 words
  DrawParams n;
  const Plan nf = xrng::make_plan(Dist::normal, DType::f32, n);
  CHECK(xrng::plan_words(nf, 3) == 4);
  CHECK(xrng::plan_words(xrng::make_plan(Dist::normal, DType::f64, n), 3) == 8);
  // the convenience draws use the same arithmetic
  xrng::Generator h(1, 0, 0);
  std::vector<float> a(5), b(6);
  h.normal(a.data(), a.size());
  CHECK(h.offset() == 6);
  h.uniform(b.data(), b.size());
  CHECK(h.offset() == 12);
  std::vector<float> ea(5), eb(6);
  xrng::normal(xrng::Key(1), 0, ea.data(), ea.size());
  xrng::uniform(xrng::Key(1), 6, eb.data(), eb.size());
  CHECK(a == ea);
  CHECK(b == eb);
}

TEST_CASE("permutation: shards and inverse agree with the permutation") {
  const xrng::Key key(2718, 1);
  for (uint64_t n : {1ull, 2ull, 3ull, 10ull, 1000ull, 4097ull}) {
    DrawParams q;
    q.n = n;
    const Plan p = xrng::make_plan(Dist::perm, DType::i64, q);
    std::vector<int64_t> perm(n), inv(n);
    xrng::fill(p, key, 17, 0, n, perm.data());
    xrng::perm_inverse(p, key, 17, 0, n, inv.data());
    std::vector<int> seen(n, 0);
    for (uint64_t i = 0; i < n; ++i) {
      REQUIRE(perm[i] >= 0);
      REQUIRE(static_cast<uint64_t>(perm[i]) < n);
      ++seen[perm[i]];
      REQUIRE(inv[perm[i]] == static_cast<int64_t>(i));
    }
    for (int s : seen) REQUIRE(s == 1);
    for (uint64_t world : {1ull, 3ull, 8ull}) {
      const uint64_t per = (n + world - 1) / world;
      for (uint64_t r = 0; r < world; ++r) {
        std::vector<int64_t> sh(per);
        xrng::perm_shard(p, key, 17, r, world, 0, per, sh.data(), {Backend::automatic, 3});
        for (uint64_t j = 0; j < per; ++j) REQUIRE(sh[j] == perm[(r + j * world) % n]);
        if (per > 2) {  // slices of a shard
          std::vector<int64_t> tail(per - 2);
          xrng::perm_shard(p, key, 17, r, world, 2, per - 2, tail.data());
          REQUIRE(std::vector<int64_t>(sh.begin() + 2, sh.end()) == tail);
        }
      }
    }
  }
  // element / position accessors on a huge permutation
  const uint64_t big = 1ull << 63;
  for (uint64_t i : {uint64_t{0}, uint64_t{1}, big - 1, uint64_t{123456789012345}}) {
    const uint64_t v = xrng::perm_element(key, 0, big, i);
    CHECK(v < big);
    CHECK(xrng::perm_position(key, 0, big, v) == i);
  }
}
