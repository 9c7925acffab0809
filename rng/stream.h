// The raw xrng stream: a cuRAND-compatible sequence of 32-bit words.
//
// Stream (seed, subseq), word w (w < 2^64) is lane w % 4 of
//   philox4x32_10(counter = (w/4) + (subseq << 64), key = (seed lo, seed hi))
// with the counter's least significant 32-bit word first. This is exactly the
// w-th call of curand() after curand_init(seed, subseq, 0), and the first
// call after curand_init(seed, subseq, w). Offsets count 32-bit words.
#pragma once

#include "philox.h"

namespace xrng {

struct Stream {
  uint64_t seed = 0;
  uint64_t subseq = 0;
};

XRNG_HD XRNG_INLINE u32x2 stream_key(const Stream& s) {
  return u32x2{{static_cast<uint32_t>(s.seed), static_cast<uint32_t>(s.seed >> 32)}};
}

// Block b (b < 2^62) holds words 4b .. 4b+3 of the stream.
XRNG_HD XRNG_INLINE u32x4 stream_block(const Stream& s, uint64_t b) {
  const u32x4 ctr{{static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32),
                   static_cast<uint32_t>(s.subseq), static_cast<uint32_t>(s.subseq >> 32)}};
  return philox4x32_10(ctr, stream_key(s));
}

// Word w of the stream.
XRNG_HD XRNG_INLINE uint32_t stream_word(const Stream& s, uint64_t w) {
  return stream_block(s, w >> 2).v[w & 3];
}

// Reads `count` (1..4) consecutive words starting at word w: the words an
// element consumes. Works across a block boundary and never computes a block
// it does not need.
XRNG_HD XRNG_INLINE void stream_words(const Stream& s, uint64_t w, int count, uint32_t* out) {
  u32x4 blk = stream_block(s, w >> 2);
  unsigned lane = static_cast<unsigned>(w & 3);
  for (int j = 0; j < count; ++j) {
    if (lane == 4) {
      blk = stream_block(s, (w >> 2) + 1);
      lane = 0;
    }
    out[j] = blk.v[lane++];
  }
}

// Words w0 + i of a stream, read one Philox block at a time (the block of the
// previous read is kept): the word source of elements that read a fixed
// budget of words but use only some of them (rng/gamma.h, poisson.h, binomial.h).
struct ElementWords {
  Stream s;
  uint64_t w0;
  u32x4 blk{};
  uint64_t have = ~uint64_t(0);
  XRNG_HD XRNG_INLINE ElementWords(const Stream& st, uint64_t first) : s(st), w0(first) {}
  XRNG_HD XRNG_INLINE uint32_t operator()(int i) {
    const uint64_t w = w0 + static_cast<uint64_t>(i);
    if ((w >> 2) != have) {
      have = w >> 2;
      blk = stream_block(s, have);
    }
    return blk.v[w & 3];
  }
};

}  // namespace xrng
