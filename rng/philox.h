// Philox4x32-10: the counter-based engine behind every xrng value.
//
// philox4x32_10(counter, key) is a pure function: 128-bit counter and 64-bit
// key in, 128 bits out. It matches Random123's philox4x32_R(10, ...) and the
// generator of cuRAND's curand_init/curand for Philox4_32_10.
#pragma once

#include "config.h"

namespace xrng {

struct u32x4 {
  uint32_t v[4];
};
struct u32x2 {
  uint32_t v[2];
};

namespace detail {

constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;  // sqrt(3) - 1

XRNG_HD XRNG_INLINE uint32_t mulhilo32(uint32_t a, uint32_t b, uint32_t* hi) {
#if defined(__CUDA_ARCH__)
  *hi = __umulhi(a, b);
  return a * b;
#else
  const uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  return static_cast<uint32_t>(p);
#endif
}

XRNG_HD XRNG_INLINE void philox_round(uint32_t c[4], const uint32_t k[2]) {
  uint32_t hi0, hi1;
  const uint32_t lo0 = mulhilo32(kPhiloxM0, c[0], &hi0);
  const uint32_t lo1 = mulhilo32(kPhiloxM1, c[2], &hi1);
  const uint32_t n0 = hi1 ^ c[1] ^ k[0];
  const uint32_t n2 = hi0 ^ c[3] ^ k[1];
  c[0] = n0;
  c[1] = lo1;
  c[2] = n2;
  c[3] = lo0;
}

}  // namespace detail

// Ten rounds of Philox4x32 with the Weyl key schedule. ctr.v[0] and key.v[0]
// are the least significant words.
XRNG_HD XRNG_INLINE u32x4 philox4x32_10(u32x4 ctr, u32x2 key) {
  uint32_t c[4] = {ctr.v[0], ctr.v[1], ctr.v[2], ctr.v[3]};
  uint32_t k[2] = {key.v[0], key.v[1]};
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k[0] += detail::kPhiloxW0;
      k[1] += detail::kPhiloxW1;
    }
    detail::philox_round(c, k);
  }
  return u32x4{{c[0], c[1], c[2], c[3]}};
}

// Philox4x32 with R rounds (R in 1..16); used only by the known-answer tests,
// which also carry 7-round vectors.
XRNG_HD XRNG_INLINE u32x4 philox4x32_r(int rounds, u32x4 ctr, u32x2 key) {
  uint32_t c[4] = {ctr.v[0], ctr.v[1], ctr.v[2], ctr.v[3]};
  uint32_t k[2] = {key.v[0], key.v[1]};
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {
      k[0] += detail::kPhiloxW0;
      k[1] += detail::kPhiloxW1;
    }
    detail::philox_round(c, k);
  }
  return u32x4{{c[0], c[1], c[2], c[3]}};
}

}  // namespace xrng
