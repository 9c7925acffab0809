// A Generator shared by threads (issue 18): every draw reserves its word range
// atomically, so concurrent draws get disjoint ranges, the final offset is the
// sum of the words drawn, and the values are the multiset of a serial run.
// Small enough to run under ASan/UBSan (scripts/sanitize.sh) and ThreadSanitizer.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "host/xrng.h"

using xrng::Dist;
using xrng::DType;

namespace {
constexpr int kThreads = 8;

template <class F>
void run_threads(F&& body) {
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) ts.emplace_back(body, t);
  for (auto& t : ts) t.join();
}
}  // namespace

TEST_CASE("threads: concurrent draws from one Generator equal a serial run (values and final offset)") {
  constexpr int kDraws = 300, kN = 64;  // normal f32: 64 words per draw
  xrng::Generator shared(2024, 3, 10);
  const xrng::Plan plan = shared.plan(Dist::normal, DType::f32);
  std::vector<std::vector<float>> got(kThreads, std::vector<float>(size_t(kDraws) * kN));
  run_threads([&](int t) {
    for (int i = 0; i < kDraws; ++i) shared.draw(plan, kN, got[t].data() + size_t(i) * kN);
  });
  CHECK(shared.offset() == 10 + uint64_t(kThreads) * kDraws * kN);

  std::vector<float> all, serial(size_t(kThreads) * kDraws * kN);
  for (const auto& v : got) all.insert(all.end(), v.begin(), v.end());
  xrng::Generator one(2024, 3, 10);
  for (int i = 0; i < kThreads * kDraws; ++i) one.draw(plan, kN, serial.data() + size_t(i) * kN);
  CHECK(one == shared);
  // each thread's draw is one whole serial draw: compare draws (64 values) as units
  auto as_draws = [](const std::vector<float>& v) {
    std::vector<std::vector<uint32_t>> d(v.size() / kN, std::vector<uint32_t>(kN));
    for (size_t i = 0; i < d.size(); ++i) std::memcpy(d[i].data(), v.data() + i * kN, kN * sizeof(float));
    std::sort(d.begin(), d.end());
    return d;
  };
  const auto a = as_draws(all), s = as_draws(serial);
  CHECK(a == s);
  CHECK(std::adjacent_find(s.begin(), s.end()) == s.end());  // no draw repeated
}

TEST_CASE("threads: draws, skips and reservations of mixed sizes get disjoint ranges summing to the offset") {
  xrng::Generator shared(7);
  const xrng::Plan bits = shared.plan(Dist::bits, DType::u32);
  const xrng::Plan pair = shared.plan(Dist::normal, DType::f64);  // 4 words per pair
  std::vector<std::vector<xrng::Generator::Range>> ranges(kThreads);
  std::vector<uint64_t> used(kThreads, 0);
  run_threads([&](int t) {
    std::vector<uint32_t> buf(64);
    std::vector<double> d(16);
    for (int i = 0; i < 400; ++i) {
      const uint64_t n = 1 + uint64_t(t * 7 + i * 13) % 37;
      switch (i % 4) {
        case 0: shared.draw(bits, n, buf.data()); used[t] += n; break;
        case 1: shared.skip(bits, n); used[t] += n; break;
        case 2: shared.draw(pair, 3, d.data()); used[t] += 8; break;  // 3 elements: 2 pairs
        default: ranges[t].push_back(shared.reserve_words(n)); used[t] += n; break;
      }
    }
  });
  uint64_t total = 0;
  for (uint64_t u : used) total += u;
  CHECK(shared.offset() == total);
  std::vector<xrng::Generator::Range> all;
  for (const auto& r : ranges) all.insert(all.end(), r.begin(), r.end());
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].offset + all[i - 1].words <= all[i].offset);
  for (const auto& r : all) CHECK(r.offset + r.words <= total);
}

TEST_CASE("threads: state, copies, split/fold_in and set_offset are consistent while others draw") {
  xrng::Generator shared(99, 1);
  const xrng::Plan plan = shared.plan(Dist::uniform, DType::f32);
  std::atomic<bool> bad{false};
  run_threads([&](int t) {
    float out[16];
    for (int i = 0; i < 300; ++i) {
      if (t % 2 == 0) {
        shared.draw(plan, 16, out);
      } else {
        const auto s = shared.save_state();
        uint64_t off = 0;
        for (int b = 0; b < 8; ++b) off |= uint64_t(s[24 + b]) << (8 * b);
        if (off % 16 != 0) bad = true;  // only whole draws of 16 words are ever seen
        const xrng::Generator c = shared;
        if (c.offset() % 16 != 0 || c.key().seed != 99) bad = true;
        if (shared.split(uint64_t(i)) != xrng::Generator(99, 1).split(uint64_t(i))) bad = true;
        if (shared.fold_in(uint64_t(i)).offset() != 0) bad = true;
      }
    }
  });
  CHECK_FALSE(bad.load());
  CHECK(shared.offset() == uint64_t(kThreads / 2) * 300 * 16);
  // assignment (load_state into a shared generator) and set_offset are atomic too
  const auto state = xrng::Generator(5, 0, 160).save_state();
  run_threads([&](int t) {
    float out[16];
    for (int i = 0; i < 100; ++i) {
      if (t == 0 && i % 10 == 0) shared = xrng::Generator::load_state(state.data(), state.size());
      else if (t == 1 && i % 10 == 0) shared.set_offset(32);
      else shared.draw(plan, 16, out);
    }
  });
  CHECK(shared.offset() % 16 == 0);
}

TEST_CASE("threads: a refused draw leaves the generator as it was, a failed one gives its range back") {
  xrng::Generator g(1, 0, ~0ull - 3);
  const xrng::Plan bits = g.plan(Dist::bits, DType::u32);
  CHECK_THROWS_AS(g.reserve(bits, 4), xrng::Error);  // would wrap: nothing reserved
  CHECK(g.offset() == ~0ull - 3);
  const auto r = g.reserve(bits, 2);
  CHECK(r.offset == ~0ull - 3);
  CHECK(r.words == 2);
  CHECK(g.release(r));
  CHECK(g.offset() == ~0ull - 3);
  const auto r1 = g.reserve(bits, 1);
  g.reserve(bits, 1);
  CHECK_FALSE(g.release(r1));  // another reservation came after it: the range stays consumed
  CHECK(g.offset() == ~0ull - 1);
  CHECK_THROWS_AS(g.reserve_words(2), xrng::Error);
  CHECK(g.reserve_words(1).offset == ~0ull - 1);
}
