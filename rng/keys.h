// Keys: a Key names one stream (seed, subseq); fold_in and split derive new
// keys deterministically, and the helpers below spell PyTorch's seeding
// conventions so a program can name exactly the seed it used.
#pragma once

#include "stream.h"

namespace xrng {

struct Key {
  uint64_t seed = 0;
  uint64_t subseq = 0;

  XRNG_HD constexpr Key() = default;
  XRNG_HD constexpr Key(uint64_t s, uint64_t q = 0) : seed(s), subseq(q) {}
  XRNG_HD constexpr Stream stream() const { return Stream{seed, subseq}; }

  // A key derived from this one and 64 bits of data (a step number, a layer
  // id, a rank). Different data, or a different parent, give unrelated keys.
  XRNG_HD Key fold_in(uint64_t data) const;
  // The i-th of a family of child keys; split(i) never equals fold_in(i).
  XRNG_HD Key split(uint64_t i) const;

  XRNG_HD constexpr bool operator==(const Key& o) const { return seed == o.seed && subseq == o.subseq; }
  XRNG_HD constexpr bool operator!=(const Key& o) const { return !(*this == o); }
};

namespace detail {
// derive(K, data, tag): Philox4x32-10 of counter (data lo, data hi, subseq lo,
// subseq hi) under key (seed lo ^ tag0, seed hi ^ tag1); the four output words
// are the child's (seed lo, seed hi, subseq lo, subseq hi). For a fixed parent
// this is a bijection of data, so distinct data never collide; the tags keep
// derived keys apart from the parent's own stream words and fold_in from split.
XRNG_HD XRNG_INLINE Key derive_key(const Key& k, uint64_t data, uint32_t tag0, uint32_t tag1) {
  const u32x4 ctr{{static_cast<uint32_t>(data), static_cast<uint32_t>(data >> 32), static_cast<uint32_t>(k.subseq),
                   static_cast<uint32_t>(k.subseq >> 32)}};
  const u32x2 key{{static_cast<uint32_t>(k.seed) ^ tag0, static_cast<uint32_t>(k.seed >> 32) ^ tag1}};
  const u32x4 o = philox4x32_10(ctr, key);
  return Key((static_cast<uint64_t>(o.v[1]) << 32) | o.v[0], (static_cast<uint64_t>(o.v[3]) << 32) | o.v[2]);
}
// SHA-256 initial hash words 2..5: nothing up the sleeve.
constexpr uint32_t kFoldTag0 = 0x3c6ef372u, kFoldTag1 = 0xa54ff53au;
constexpr uint32_t kSplitTag0 = 0x510e527fu, kSplitTag1 = 0x9b05688cu;
}  // namespace detail

XRNG_HD inline Key Key::fold_in(uint64_t data) const {
  return detail::derive_key(*this, data, detail::kFoldTag0, detail::kFoldTag1);
}
XRNG_HD inline Key Key::split(uint64_t i) const {
  return detail::derive_key(*this, i, detail::kSplitTag0, detail::kSplitTag1);
}

// ---- PyTorch's seeding conventions, by name ---------------------------------------
// The "set_epoch" recipe: seed 123456789 + epoch (wraps modulo 2^64).
XRNG_HD constexpr uint64_t epoch_seed(uint64_t epoch) { return 123456789ull + epoch; }
// DataLoader workers: torch seeds worker w with base_seed + w.
XRNG_HD constexpr uint64_t worker_seed(uint64_t base_seed, uint64_t worker_id) { return base_seed + worker_id; }
// The seed_worker recipe: NumPy and `random` get torch.initial_seed() % 2**32.
XRNG_HD constexpr uint32_t numpy_worker_seed(uint64_t initial_seed) { return static_cast<uint32_t>(initial_seed); }
// DistributedSampler: torch.Generator().manual_seed(seed + epoch).
XRNG_HD constexpr uint64_t distributed_sampler_seed(uint64_t seed, uint64_t epoch) { return seed + epoch; }

}  // namespace xrng
