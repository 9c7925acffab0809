// xrng's Philox against Random123's own philox4x32_R on many inputs, for the
// 10-round engine and every other round count 1..16.
#include <doctest/doctest.h>

#include <Random123/philox.h>

#include "host/xrng.h"

namespace {
uint64_t g_state = 0x0ddc0ffeebadf00dull;
uint64_t next64() {
  uint64_t z = (g_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

TEST_CASE("philox4x32_10 equals Random123 Philox4x32_R<10> on random inputs") {
  for (int i = 0; i < 200000; ++i) {
    r123::Philox4x32::ctr_type c;
    r123::Philox4x32::key_type k;
    xrng::u32x4 xc;
    xrng::u32x2 xk;
    const uint64_t a = next64(), b = next64(), d = next64();
    // a few structured inputs (all zero / all ones words) among the random ones
    const uint32_t mask = i % 97 == 0 ? 0u : i % 89 == 0 ? 0xffffffffu : 0x12345678u;
    for (int j = 0; j < 4; ++j) xc.v[j] = c.v[j] = static_cast<uint32_t>((j < 2 ? a : b) >> (32 * (j & 1)));
    for (int j = 0; j < 2; ++j) xk.v[j] = k.v[j] = static_cast<uint32_t>(d >> (32 * j));
    if (mask != 0x12345678u)
      for (int j = 0; j < 4; ++j) xc.v[j] = c.v[j] = mask;
    const auto want = r123::Philox4x32_R<10>()(c, k);
    const xrng::u32x4 got = xrng::philox4x32_10(xc, xk);
    for (int j = 0; j < 4; ++j) REQUIRE(got.v[j] == want.v[j]);
    // Random123's C interface, rounds as an argument
    philox4x32_ctr_t cc = {{c.v[0], c.v[1], c.v[2], c.v[3]}};
    philox4x32_key_t ck = {{k.v[0], k.v[1]}};
    const philox4x32_ctr_t wc = philox4x32_R(10, cc, ck);
    for (int j = 0; j < 4; ++j) REQUIRE(got.v[j] == wc.v[j]);
  }
}

template <int R>
void check_rounds() {
  for (int i = 0; i < 2000; ++i) {
    r123::Philox4x32::ctr_type c;
    r123::Philox4x32::key_type k;
    xrng::u32x4 xc;
    xrng::u32x2 xk;
    const uint64_t a = next64(), b = next64(), d = next64();
    for (int j = 0; j < 4; ++j) xc.v[j] = c.v[j] = static_cast<uint32_t>((j < 2 ? a : b) >> (32 * (j & 1)));
    for (int j = 0; j < 2; ++j) xk.v[j] = k.v[j] = static_cast<uint32_t>(d >> (32 * j));
    const auto want = r123::Philox4x32_R<R>()(c, k);
    const xrng::u32x4 got = xrng::philox4x32_r(R, xc, xk);
    INFO("rounds ", R);
    for (int j = 0; j < 4; ++j) REQUIRE(got.v[j] == want.v[j]);
  }
}

TEST_CASE("philox4x32_r equals Random123 for 1..16 rounds") {
  check_rounds<1>();
  check_rounds<2>();
  check_rounds<3>();
  check_rounds<4>();
  check_rounds<5>();
  check_rounds<6>();
  check_rounds<7>();
  check_rounds<8>();
  check_rounds<9>();
  check_rounds<10>();
  check_rounds<11>();
  check_rounds<12>();
  check_rounds<13>();
  check_rounds<14>();
  check_rounds<15>();
  check_rounds<16>();
}

TEST_CASE("the stream is Random123 philox4x32-10 with cuRAND's counter layout") {
  for (int i = 0; i < 50000; ++i) {
    const xrng::Stream s{next64(), next64()};
    const uint64_t w = next64();
    r123::Philox4x32::ctr_type c = {{static_cast<uint32_t>(w >> 2), static_cast<uint32_t>(w >> 34),
                                     static_cast<uint32_t>(s.subseq), static_cast<uint32_t>(s.subseq >> 32)}};
    r123::Philox4x32::key_type k = {{static_cast<uint32_t>(s.seed), static_cast<uint32_t>(s.seed >> 32)}};
    const auto want = r123::Philox4x32_R<10>()(c, k);
    REQUIRE(xrng::stream_word(s, w) == want.v[w & 3]);
  }
}
