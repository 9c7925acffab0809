// Philox4x32-10 on vectors, and the window of stream words the kernels read.
//
// Layout. Philox runs in structure-of-arrays form: lane i of a register holds
// counter word j of block base + i (in the low half of a 64-bit lane, so one
// vpmuludq forms the full 32x32 -> 64 product), so lane i always computes
// block base + i, whatever the vector width. The blocks are transposed into
// stream order in a small L1-resident buffer (WordSource); the value kernels
// then read the words of group g at offset + K*g from that buffer, which makes
// any word offset, start element and count the same code path.
#pragma once

#include "../../rng/philox.h"
#include "../../rng/stream.h"
#include "isa.h"

namespace xrng::detail {
namespace {

// ---- Philox4x32-10, kRegs * N64 blocks at a time ------------------------------------------------------
constexpr int kRegs = 4;                   // registers per counter word (independent chains)
constexpr int kBatchBlocks = kRegs * N64;  // blocks per batch
constexpr int kBatchWords = 4 * kBatchBlocks;

// The per-round key words of a stream, broadcast once per call.
struct PhiloxKeys {
  vu64 k0[10], k1[10], ctr2, ctr3;
  explicit PhiloxKeys(const Stream& s) {
    uint32_t a = static_cast<uint32_t>(s.seed), b = static_cast<uint32_t>(s.seed >> 32);
    for (int r = 0; r < 10; ++r) {
      k0[r] = bcast<vu64>(uint64_t{a});
      k1[r] = bcast<vu64>(uint64_t{b});
      a += kPhiloxW0;
      b += kPhiloxW1;
    }
    ctr2 = bcast<vu64>(s.subseq & kLo32);
    ctr3 = bcast<vu64>(s.subseq >> 32);
    // Counter words 2 and 3 are the same in every block of a stream, so round
    // 1's product of word 2 and what it feeds are constants: the low halves of
    // r0_c0 = hi(ctr2 M1) ^ k0[0] (round 1's word 0 is hi(word 2 M1) ^ word 1
    // ^ k0[0], word 1 the block's high half), r0_c2 = ctr3 ^ k1[0], and
    // r1_c0 = lo(ctr2 M1) ^ k0[1] (round 1 leaves lo(ctr2 M1) as word 1;
    // round 2 xors it with k0[1]).
    const uint64_t p1 = (s.subseq & kLo32) * uint64_t{kPhiloxM1};
    const uint32_t k00 = static_cast<uint32_t>(s.seed), k10 = static_cast<uint32_t>(s.seed >> 32);
    r0_c0 = bcast<vu64>(uint64_t{static_cast<uint32_t>(p1 >> 32) ^ k00});
    r0_c2 = bcast<vu64>(uint64_t{static_cast<uint32_t>(s.subseq >> 32) ^ k10});
    r1_c0 = bcast<vu64>(uint64_t{static_cast<uint32_t>(p1) ^ (k00 + kPhiloxW0)});
  }
  vu64 r0_c0, r0_c2, r1_c0;
};

// Philox4x32-10 of P registers of blocks: lane i of register r computes the
// block blk[r][i] (any block numbers: the fill and the fused kernels choose
// the order of the lanes). On return c0..c3 hold the four output words of
// each block in the low 32 bits of its 64-bit lane (the high halves are
// don't-care).
// kRounds < 10 stops early (fused.h does the last round itself).
template <int P, int kRounds = 10>
XRNG_INLINE void philox_blocks(const PhiloxKeys& k, const vu64 (&blk)[P], vu64 (&c0)[P], vu64 (&c1)[P], vu64 (&c2)[P],
                               vu64 (&c3)[P]) {
  const vu64 m0 = bcast<vu64>(uint64_t{kPhiloxM0}), m1 = bcast<vu64>(uint64_t{kPhiloxM1});
  static_assert(kRounds >= 2);
  // Rounds 1 and 2 (philox_round) with the constants of PhiloxKeys: the
  // counter's words are (blk, blk >> 32, ctr2, ctr3), and only low halves of
  // the lanes are ever read (mul32, the final pack).
  for (int r = 0; r < P; ++r) {
    const vu64 p0 = mul32(blk[r], m0);
    c0[r] = (blk[r] >> 32) ^ k.r0_c0;
    c2[r] = (p0 >> 32) ^ k.r0_c2;
    c3[r] = p0;
  }
  for (int r = 0; r < P; ++r) {
    const vu64 p0 = mul32(c0[r], m0), p1 = mul32(c2[r], m1);
    c0[r] = (p1 >> 32) ^ k.r1_c0;
    c1[r] = p1;
    c2[r] = (p0 >> 32) ^ c3[r] ^ k.k1[1];
    c3[r] = p0;
  }
#pragma GCC unroll 10
  for (int round = 2; round < kRounds; ++round) {
    for (int r = 0; r < P; ++r) {
      // philox_round: products keep lo in the low half; the high half (hi)
      // there is don't-care for the next round, which reads low halves only.
      const vu64 p0 = mul32(c0[r], m0), p1 = mul32(c2[r], m1);
      c0[r] = (p1 >> 32) ^ c1[r] ^ k.k0[round];
      c1[r] = p1;
      c2[r] = (p0 >> 32) ^ c3[r] ^ k.k1[round];
      c3[r] = p0;
    }
  }
}

// Words of blocks b .. b + P N64 - 1 of the stream (P registers: a whole
// batch, kBatchBlocks, or one register's N64 blocks for a small call), in
// stream order.
template <int P = kRegs>
__attribute__((flatten)) XRNG_INLINE void philox_batch(const PhiloxKeys& k, uint64_t b, uint32_t* out) {
  vu64 blk[P], c0[P], c1[P], c2[P], c3[P];
  for (int r = 0; r < P; ++r) blk[r] = iota<vu64>() + (b + static_cast<uint64_t>(r * N64));
  philox_blocks<P>(k, blk, c0, c1, c2, c3);
  for (int r = 0; r < P; ++r) {
    const vu64 a = pack_lo32(c0[r], c1[r]), bb = pack_lo32(c2[r], c3[r]);  // words 0,1 | words 2,3
    storeu(out + r * 4 * N64, shuffle<kInterleaveLo>(a, bb));
    storeu(out + r * 4 * N64 + 2 * N64, shuffle<kInterleaveHi>(a, bb));
  }
}

// A window of stream words in an L1-resident buffer, refilled in whole
// batches of blocks; words beyond `end` (the call's last word) are generated
// only to complete a batch, and the last few words a call needs (at most one
// register's blocks, 4 N64 words) take a batch of one register (a small
// call computes N64 blocks, not kBatchBlocks).
constexpr uint64_t kFillWords = 4096;
constexpr uint64_t kTileWords = 2048;  // words a kernel asks for at once (<= kFillWords)
struct WordSource {
  PhiloxKeys keys;
  u128 end;      // one past the last word the call needs
  u128 w0 = 0;   // buf[0] is word w0 (a multiple of 4)
  u128 w1 = 0;   // buf holds words [w0, w1), whole blocks
  alignas(64) uint32_t buf[kFillWords + kBatchWords + 64];

  WordSource(const Stream& st, u128 e) : keys(st), end(e) {}

  // Words [w, w + n), n <= kTileWords.
  const uint32_t* get(uint64_t w, uint64_t n) {
    const u128 we = static_cast<u128>(w) + n;
    if (w >= w0 && we <= w1) return buf + static_cast<size_t>(w - w0);
    const u128 a = w & ~uint64_t{3};
    if (a >= w0 && a < w1) {
      std::memmove(buf, buf + static_cast<size_t>(a - w0), static_cast<size_t>(w1 - a) * 4);
    } else {
      w1 = a;
    }
    w0 = a;
    const u128 target = lmax<u128>(we, lmin<u128>(end, w0 + kFillWords));
    while (w1 < target) {
      if (target - w1 <= static_cast<u128>(4 * N64)) {
        philox_batch<1>(keys, static_cast<uint64_t>(w1 >> 2), buf + static_cast<size_t>(w1 - w0));
        w1 += 4 * N64;
      } else {
        philox_batch(keys, static_cast<uint64_t>(w1 >> 2), buf + static_cast<size_t>(w1 - w0));
        w1 += kBatchWords;
      }
    }
    return buf + static_cast<size_t>(w - w0);
  }
};

}  // namespace
}  // namespace xrng::detail
