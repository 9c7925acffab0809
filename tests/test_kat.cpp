// Known answers: Random123's Philox4x32 vectors (7 and 10 rounds) and the
// words of the cuRAND-compatible stream, plus the stream layout itself.
#include <doctest/doctest.h>

#include "host/xrng.h"
#include "kat_files.h"

using xrng::u32x2;
using xrng::u32x4;

TEST_CASE("philox4x32 known-answer vectors (Random123 kat_vectors)") {
  const auto lines = xrng_test::kat_lines("philox4x32.txt");
  REQUIRE(lines.size() >= 6);
  int r7 = 0, r10 = 0;
  for (const auto& t : lines) {
    REQUIRE(t.size() == 12);
    REQUIRE(t[0] == "philox4x32");
    const int rounds = static_cast<int>(xrng_test::kat_num(t[1], 10));
    u32x4 ctr;
    u32x2 key;
    u32x4 want;
    for (int i = 0; i < 4; ++i) ctr.v[i] = static_cast<uint32_t>(xrng_test::kat_num(t[2 + i], 16));
    for (int i = 0; i < 2; ++i) key.v[i] = static_cast<uint32_t>(xrng_test::kat_num(t[6 + i], 16));
    for (int i = 0; i < 4; ++i) want.v[i] = static_cast<uint32_t>(xrng_test::kat_num(t[8 + i], 16));
    const u32x4 got = xrng::philox4x32_r(rounds, ctr, key);
    INFO("rounds ", rounds, " ctr0 ", t[2]);
    for (int i = 0; i < 4; ++i) CHECK(got.v[i] == want.v[i]);
    if (rounds == 10) {
      const u32x4 got10 = xrng::philox4x32_10(ctr, key);
      for (int i = 0; i < 4; ++i) CHECK(got10.v[i] == want.v[i]);
      ++r10;
    }
    if (rounds == 7) ++r7;
  }
  CHECK(r7 >= 3);
  CHECK(r10 >= 3);
}

TEST_CASE("cuRAND stream known answers: stream_word and stream_words") {
  const auto lines = xrng_test::kat_lines("curand_stream.txt");
  REQUIRE(lines.size() >= 7);
  for (const auto& t : lines) {
    REQUIRE(t.size() >= 4);
    const xrng::Stream s{xrng_test::kat_num(t[0], 0), xrng_test::kat_num(t[1], 0)};
    const uint64_t off = xrng_test::kat_num(t[2], 0);
    std::vector<uint32_t> want;
    for (size_t i = 3; i < t.size(); ++i) want.push_back(static_cast<uint32_t>(xrng_test::kat_num(t[i], 16)));
    INFO("seed ", t[0], " subseq ", t[1], " offset ", t[2]);
    for (size_t i = 0; i < want.size(); ++i) CHECK(xrng::stream_word(s, off + i) == want[i]);
    // stream_words for every start and length inside the line (crossing block boundaries)
    for (size_t i = 0; i < want.size(); ++i) {
      for (int c = 1; c <= 4 && i + c <= want.size(); ++c) {
        uint32_t w[4];
        xrng::stream_words(s, off + i, c, w);
        for (int j = 0; j < c; ++j) CHECK(w[j] == want[i + j]);
      }
    }
    // and through the public API (bits/u32, both backends)
    std::vector<uint32_t> got(want.size());
    for (xrng::Backend b : {xrng::Backend::scalar, xrng::Backend::automatic}) {
      xrng::bits(xrng::Key(s.seed, s.subseq), off, got.data(), got.size(), {b, 1});
      CHECK(got == want);
    }
  }
}

TEST_CASE("cuRAND layout: word w is lane w%4 of block w/4, subseq in the counter's high half") {
  // splitmix64 drives the choice of (seed, subseq, w); the layout is checked
  // against philox4x32_10 called directly on the documented counter.
  uint64_t x = 0x9e3779b97f4a7c15ull;
  auto next = [&x] {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (int i = 0; i < 20000; ++i) {
    const xrng::Stream s{next(), i % 3 == 0 ? uint64_t(i) : next()};
    const uint64_t w = i % 5 == 0 ? ~uint64_t(0) - (next() & 15) : next();
    const uint64_t b = w / 4;
    const u32x4 ctr{{static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), static_cast<uint32_t>(s.subseq),
                     static_cast<uint32_t>(s.subseq >> 32)}};
    const u32x2 key{{static_cast<uint32_t>(s.seed), static_cast<uint32_t>(s.seed >> 32)}};
    const uint32_t want = xrng::philox4x32_10(ctr, key).v[w % 4];
    REQUIRE(xrng::stream_word(s, w) == want);
  }
}

TEST_CASE("Key(seed, subseq) names the cuRAND stream (seed, subseq)") {
  const xrng::Key k(0x0123456789abcdefull, 99);
  const xrng::Stream s = k.stream();
  CHECK(s.seed == k.seed);
  CHECK(s.subseq == k.subseq);
  const u32x2 key = xrng::stream_key(s);
  CHECK(key.v[0] == 0x89abcdefu);
  CHECK(key.v[1] == 0x01234567u);
}
