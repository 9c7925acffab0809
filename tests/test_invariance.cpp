// Invariances that make the streams reproducible, for one host backend per
// run (--backend=scalar|avx2|avx512|neon, tests/simd/backends.h): random access,
// chunking, offset arithmetic of a Generator, thread count, and equality with
// the scalar reference. The draws are every row of the registry with each
// sample parameter set of its distribution (tests/simd/row_cases.h), so a new
// row is covered on every backend without editing a list.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backends.h"
#include "golden/format.h"
#include "row_cases.h"

using xrng::Backend;
using xrng::Dist;
using xrng::DrawParams;
using xrng::DType;
using xrng::FillOptions;
using xrng::Kind;
using xrng::Plan;
using xrng_test::options;
using xrng_test::RowCase;

namespace {

// The draws of fill(): element and permutation rows with each sample
// parameter set (only the first, the typical one, with first_only), and a
// permutation large enough to be split across threads.
std::vector<RowCase> plans(bool first_only = false) {
  std::vector<RowCase> v;
  const xrng::RowInfo* last = nullptr;
  for (RowCase& c : xrng_test::row_cases(false)) {
    if (c.plan.kind == Kind::transform || (first_only && c.row == last)) continue;
    last = c.row;
    v.push_back(std::move(c));
  }
  const DrawParams big = DrawParams::perm_size(100000);
  for (DType t : {DType::i64, DType::u32})
    v.push_back({std::string("perm/") + xrng::dtype_name(t) + " n=100000", xrng::find_row(Dist::perm, t), big,
                 xrng::make_plan(Dist::perm, t, big)});
  return v;
}

// At most `want` elements: a permutation has only n.
uint64_t fit(const Plan& p, uint64_t want) { return p.kind == Kind::permutation ? std::min(want, p.n) : want; }

std::vector<uint64_t> draw(const Plan& p, const xrng::Key& k, uint64_t offset, uint64_t start, uint64_t count,
                           const FillOptions& opt) {
  std::vector<unsigned char> buf(count * xrng::dtype_size(p.dtype) + 8);
  xrng::fill(p, k, offset, start, count, buf.data(), opt);
  return xrng::golden::to_bits(p.dtype, buf.data(), count);
}

const FillOptions kScalar{Backend::scalar, 1};

}  // namespace

TEST_CASE("random access: start = k equals the tail of start = 0") {
  const xrng::Key key(0x5eed, 3);
  for (const RowCase& c : plans()) {
    for (uint64_t offset : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(4), uint64_t(1000001)}) {
      const uint64_t n = fit(c.plan, 2061);
      const std::vector<uint64_t> all = draw(c.plan, key, offset, 0, n, options(1));
      REQUIRE(all == draw(c.plan, key, offset, 0, n, kScalar));
      for (uint64_t k : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 63u, 64u, 65u, 1024u, 1025u, 2060u}) {
        if (k >= n) continue;
        INFO(c.name, " offset ", offset, " start ", k);
        const std::vector<uint64_t> tail = draw(c.plan, key, offset, k, n - k, options(1));
        REQUIRE(std::vector<uint64_t>(all.begin() + k, all.end()) == tail);
      }
    }
  }
}

TEST_CASE("chunking: [0,n) == [0,k) ++ [k,n) for every k") {
  const xrng::Key key(77, 0);
  for (const RowCase& c : plans()) {
    for (uint64_t offset : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(3)}) {
      const uint64_t n = fit(c.plan, 41);  // k runs over every split: odd k splits a normal pair,
                                           // and with the offsets above every Philox-block phase occurs
      const std::vector<uint64_t> all = draw(c.plan, key, offset, 0, n, options(1));
      for (uint64_t k = 0; k <= n; ++k) {
        INFO(c.name, " offset ", offset, " k ", k);
        std::vector<uint64_t> a = draw(c.plan, key, offset, 0, k, options(1));
        const std::vector<uint64_t> b = draw(c.plan, key, offset, k, n - k, options(1));
        a.insert(a.end(), b.begin(), b.end());
        REQUIRE(a == all);
      }
      // three chunks with the middle one of a single element
      for (uint64_t k = 0; k + 1 < n; k += 5) {
        std::vector<uint64_t> a = draw(c.plan, key, offset, 0, k, options(1));
        const std::vector<uint64_t> m = draw(c.plan, key, offset, k, 1, options(1));
        const std::vector<uint64_t> d = draw(c.plan, key, offset, k + 1, n - k - 1, options(1));
        a.insert(a.end(), m.begin(), m.end());
        a.insert(a.end(), d.begin(), d.end());
        REQUIRE(a == all);
      }
    }
  }
}

TEST_CASE("thread count invariance and the scalar reference on large draws") {
  const xrng::Key key(123456789, 42);
  for (const RowCase& c : plans(true)) {
    const bool perm = c.plan.kind == Kind::permutation;
    if (perm && c.plan.n < 4) continue;
    // 2^19 + 12345 elements; the sanitizer build's 2^18 + 12345 still split
    // into 8 parts (host/parallel.h: at least 2^15 per part)
    const uint64_t n = perm ? c.plan.n - 3 : (uint64_t{1} << (xrng_test::kSanitized ? 18 : 19)) + 12345;
    const uint64_t start = perm ? 3 : 7;
    const std::vector<uint64_t> ref = draw(c.plan, key, 11, start, n, kScalar);
    for (int t : {1, 2, 3, 8}) {
      if (xrng_test::backend().backend == Backend::scalar && t == 1) continue;  // the reference itself
      INFO(c.name, " threads ", t);
      REQUIRE(draw(c.plan, key, 11, start, n, options(t)) == ref);
    }
  }
}

TEST_CASE("transforms (dropout): chunking, threads and the scalar reference") {
  for (const RowCase& c : xrng_test::row_cases(false, Kind::transform)) {
    const Plan& p = c.plan;
    const DType t = p.dtype;
    const int sz = xrng::dtype_size(t);
    const uint64_t n = (uint64_t{1} << 17) + 3;
    std::vector<unsigned char> in(n * sz);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>((i * 37 + 11) & 0x3f);  // finite values
    auto run = [&](uint64_t start, uint64_t count, const FillOptions& opt) {
      std::vector<unsigned char> out(count * sz + 8);
      xrng::transform(p, xrng::Key(5), 9, start, count, in.data() + start * sz, out.data(), opt);
      return xrng::golden::to_bits(t, out.data(), count);
    };
    INFO(c.name);
    const std::vector<uint64_t> ref = run(0, n, kScalar);
    for (int th : {1, 2, 3, 8}) CHECK(run(0, n, options(th)) == ref);
    for (uint64_t k : {1ull, 3ull, 4097ull, 70001ull}) {
      std::vector<uint64_t> a = run(0, k, options(1));
      const std::vector<uint64_t> b = run(k, n - k, options(2));
      a.insert(a.end(), b.begin(), b.end());
      CHECK(a == ref);
    }
    if (p.dist == Dist::dropout) {
      // the mask is the bernoulli(p) draw at the same offset: dropped elements are +0
      const Plan mask_plan = xrng::make_plan(Dist::bernoulli, DType::u8, c.params);
      const std::vector<uint64_t> mask = draw(mask_plan, xrng::Key(5), 9, 0, n, options(1));
      for (uint64_t i = 0; i < n; ++i)
        if (mask[i]) REQUIRE(ref[i] == 0);
    }
  }
}

TEST_CASE("Generator: successive draws equal draws at explicit offsets (plan_words)") {
  const std::vector<RowCase> ps = plans();
  xrng::Generator g(31337, 2, 5);
  uint64_t offset = 5;
  const xrng::Key key(31337, 2);
  uint64_t counts[] = {1, 3, 7, 2, 5, 1000, 33};
  int step = 0;
  for (int round = 0; round < 3; ++round) {
    for (const RowCase& c : ps) {
      const uint64_t count = c.plan.kind == Kind::permutation ? c.plan.n : counts[step++ % 7];
      INFO(c.name, " count ", count, " round ", round);
      std::vector<unsigned char> buf(count * xrng::dtype_size(c.plan.dtype) + 8);
      REQUIRE(g.offset() == offset);
      g = g.with_stream(c.plan.stream);  // the rows of every stream version; the offset carries on
      g.draw(c.plan, count, buf.data(), options(1));
      CHECK(xrng::golden::to_bits(c.plan.dtype, buf.data(), count) == draw(c.plan, key, offset, 0, count, kScalar));
      offset += xrng::plan_words(c.plan, count);
      CHECK(g.offset() == offset);
      // skip advances exactly as much as a draw
      g.skip(c.plan, count);
      offset += xrng::plan_words(c.plan, count);
      CHECK(g.offset() == offset);
    }
  }
  // odd counts round up to whole groups: 3 normal f32 values consume 2 pairs = 4 words
  DrawParams n;
  const Plan nf = xrng::make_plan(Dist::normal, DType::f32, n);
  CHECK(xrng::plan_words(nf, 3) == 4);
  CHECK(xrng::plan_words(xrng::make_plan(Dist::normal, DType::f64, n), 3) == 8);
  // the convenience draws use the same arithmetic, in the generator's stream
  xrng::Generator h(1, 0, 0);
  std::vector<float> a(5), b(6);
  h.normal(a.data(), a.size(), 0.0, 1.0, options(1));
  CHECK(h.offset() == 6);
  h.uniform(b.data(), b.size(), 0.0, 1.0, options(1));
  CHECK(h.offset() == 12);
  std::vector<float> ea(5), eb(6);
  xrng::normal(xrng::Key(1), 0, ea.data(), ea.size(), 0.0, 1.0, kScalar);
  xrng::uniform(xrng::Key(1), 6, eb.data(), eb.size(), 0.0, 1.0, kScalar);
  CHECK(a == ea);
  CHECK(b == eb);
}

TEST_CASE("permutation: shards and inverse agree with the permutation") {
  const xrng::Key key(2718, 1);
  for (uint64_t n : {1ull, 2ull, 3ull, 10ull, 1000ull, 4097ull}) {
    const Plan p = xrng::make_plan(Dist::perm, DType::i64, DrawParams::perm_size(n));
    std::vector<int64_t> perm(n), inv(n);
    xrng::fill(p, key, 17, 0, n, perm.data(), options(1));
    xrng::perm_inverse(p, key, 17, 0, n, inv.data(), options(2));
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
        xrng::perm_shard(p, key, 17, r, world, 0, per, sh.data(), options(3));
        for (uint64_t j = 0; j < per; ++j) REQUIRE(sh[j] == perm[(r + j * world) % n]);
        if (per > 2) {  // slices of a shard
          std::vector<int64_t> tail(per - 2);
          xrng::perm_shard(p, key, 17, r, world, 2, per - 2, tail.data(), options(1));
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
