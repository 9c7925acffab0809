// Random-access permutations of [0, n), 1 <= n <= 2^63.
//
// perm(i) is a keyed bijection of [0, 2^(2h)) (a balanced Feistel network
// with h-bit halves, 2h the bit length of n - 1 rounded up to an even number,
// at least 2) restricted to [0, n) by cycle-walking: apply it again while the
// result is >= n. The rounds add the round function modulo 2^h instead of
// xoring it: an xor round is an even permutation of the domain (for h >= 2),
// so an xor network reaches only half of the orderings and, after the walk,
// skews small permutations (chi-square of all 120 orderings of n = 5: 1152 at
// 119 degrees of freedom, whatever the number of rounds); adding an odd value
// is an odd permutation, and 12 add rounds pass the same test (SPEC.md 4.7). The domain is below 4n, so the expected number of walks is
// below 4. Inverse: the same walk with the inverse network. Both take O(1)
// memory and expected O(1) time, and depend on nothing but (key, n, i).
#pragma once

#include "registry.h"
#include "stream.h"

namespace xrng {

struct PermKey {
  uint64_t n = 1;
  uint32_t half_bits = 1;            // h
  uint32_t half_mask = 1;            // 2^h - 1
  uint32_t round_key[kPermRounds] = {};
};

namespace detail {

// The network is written once, over a lane type X of 32-bit words, the way
// detail/math.h is written over double lanes: the scalar instantiation
// (X = uint32_t) is the definition, used on the host and on the GPU, and
// host/simd/ instantiates the very same templates with vectors of 32-bit
// lanes, so the SIMD walk performs the scalar operation sequence lane by lane.
// A lane type must provide X ^ X, X + X, X & X, X * X (all modulo 2^32),
// X >> int (logical) and construction from a uint32_t constant (broadcast).

// Round function: murmur3's 32-bit finaliser of the half xored with the round
// key (a bijection of 32-bit words with full avalanche), cut to h bits by the caller.
template <class X>
XRNG_HD XRNG_INLINE X feistel_f(X x, X k) {
  x = x ^ k;
  x = x ^ (x >> 16);
  x = x * X(0x85ebca6bu);
  x = x ^ (x >> 13);
  x = x * X(0xc2b2ae35u);
  x = x ^ (x >> 16);
  return x;
}

// The kPermRounds rounds of the forward network on the halves (l, r) of a
// 2h-bit value, in place: round i maps (l, r) to (r, (l + f(r, key[i])) mod 2^h).
// round_key[i] is round i's key word and mask is 2^h - 1, both as lanes.
template <class X>
XRNG_HD XRNG_INLINE void feistel_rounds(X& l, X& r, const X* round_key, X mask) {
  for (int i = 0; i < kPermRounds; ++i) {
    const X nl = r;
    r = (l + feistel_f<X>(r, round_key[i])) & mask;
    l = nl;
  }
}

}  // namespace detail

// Builds the key of a permutation of [0, n) whose round keys are the words
// offset .. offset + kPermRounds - 1 of the stream. n must be in [1, 2^63].
XRNG_HD XRNG_INLINE PermKey perm_key(const Stream& s, uint64_t offset, uint64_t n) {
  PermKey k;
  k.n = n;
  uint32_t bits = 0;
  while (bits < 64 && (n - 1) >> bits) ++bits;  // bit length of n - 1
  if (bits < 2) bits = 2;
  bits += bits & 1u;
  k.half_bits = bits / 2;
  k.half_mask = k.half_bits == 32 ? 0xffffffffu : ((1u << k.half_bits) - 1u);
  for (int r = 0; r < kPermRounds; ++r) k.round_key[r] = stream_word(s, offset + static_cast<uint64_t>(r));
  return k;
}

// One pass of the Feistel network over [0, 2^(2h)).
XRNG_HD XRNG_INLINE uint64_t feistel_forward(const PermKey& k, uint64_t x) {
  uint32_t l = static_cast<uint32_t>(x >> k.half_bits);
  uint32_t r = static_cast<uint32_t>(x) & k.half_mask;
  detail::feistel_rounds<uint32_t>(l, r, k.round_key, k.half_mask);
  return (static_cast<uint64_t>(l) << k.half_bits) | r;
}
XRNG_HD XRNG_INLINE uint64_t feistel_inverse(const PermKey& k, uint64_t x) {
  uint32_t l = static_cast<uint32_t>(x >> k.half_bits);
  uint32_t r = static_cast<uint32_t>(x) & k.half_mask;
  for (int i = kPermRounds - 1; i >= 0; --i) {
    const uint32_t pr = l;
    l = (r - detail::feistel_f<uint32_t>(l, k.round_key[i])) & k.half_mask;
    r = pr;
  }
  return (static_cast<uint64_t>(l) << k.half_bits) | r;
}

// The element at position i (< n) of the permutation.
XRNG_HD XRNG_INLINE uint64_t perm_at(const PermKey& k, uint64_t i) {
  uint64_t x = i;
  do {
    x = feistel_forward(k, x);
  } while (x >= k.n);
  return x;
}
// The position of value v (< n): perm_at(k, perm_inverse(k, v)) == v.
XRNG_HD XRNG_INLINE uint64_t perm_inverse(const PermKey& k, uint64_t v) {
  uint64_t x = v;
  do {
    x = feistel_inverse(k, x);
  } while (x >= k.n);
  return x;
}

// Position of the j-th element of shard `rank` of `world` (DistributedSampler's
// layout): (rank + j * world) mod n, the wrap-around giving the padding
// DistributedSampler adds when n is not a multiple of world. Exact for any
// 64-bit j and world (a 128-bit product reduced by binary long division).
XRNG_HD XRNG_INLINE uint64_t perm_shard_position(uint64_t n, uint64_t rank, uint64_t world, uint64_t j) {
  const uint64_t lo = j * world;
#if defined(__CUDA_ARCH__)
  const uint64_t hi = __umul64hi(j, world);
#else
  const uint64_t hi = static_cast<uint64_t>((static_cast<unsigned __int128>(j) * world) >> 64);
#endif
  uint64_t rem = hi % n;  // n <= 2^63, so 2 * rem < 2^64 below
  for (int b = 63; b >= 0; --b) {
    rem = rem >= n - rem ? rem - (n - rem) : rem << 1;
    if ((lo >> b) & 1u) rem = rem + 1 == n ? 0 : rem + 1;
  }
  const uint64_t r = rank % n;
  return rem >= n - r ? rem - (n - r) : rem + r;
}

XRNG_HD XRNG_INLINE uint64_t perm_shard_at(const PermKey& k, uint64_t rank, uint64_t world, uint64_t j) {
  return perm_at(k, perm_shard_position(k.n, rank, world, j));
}

// Elements j = start .. start + count - 1 of shard `rank` of `world`, as
// perm_shard_at but with one exact reduction for the first position and then
// steps of (world mod n), the way every backend walks a range of a shard.
template <class OutT>
XRNG_HD void perm_shard_range(const PermKey& k, uint64_t rank, uint64_t world, uint64_t start, uint64_t count,
                              OutT* out) {
  if (count == 0) return;
  uint64_t pos = perm_shard_position(k.n, rank, world, start);
  const uint64_t step = world % k.n;
  for (uint64_t j = 0;; ++j) {
    out[j] = static_cast<OutT>(perm_at(k, pos));
    if (j + 1 == count) break;
    pos = pos >= k.n - step ? pos - (k.n - step) : pos + step;
  }
}

}  // namespace xrng
