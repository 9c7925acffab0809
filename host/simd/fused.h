// Fused kernels: rows whose transform runs on the Philox words while they are
// still in registers, without the word window of philox.h (a store of every
// word, a transpose into stream order and a reload). Today: the binary32
// normal of stream v2 (f32, f16, bf16), the library's default normal.
//
// A fused step evaluates P registers of N64 Philox blocks (philox_blocks) and
// the row's transform on them; fill.h runs it on the whole blocks of a call
// and keeps the word window for the rest (a start or end inside a block, an
// offset that does not start a group at a block's first word), so every
// value is the one the word-window kernels (kernels.h) give: the same
// per-pair function of the same two words.
#pragma once

#include "kernels.h"
#include "philox.h"

namespace xrng::detail {
namespace {

// Lanes of a register, interleaved within each 128-bit quarter (unpcklps /
// unpckhps, zip1 / zip2 on NEON): {a0, b0, a1, b1 | a4, b4, a5, b5 | ...}.
template <bool kHi>
struct Unpack32 {
  static constexpr Lanes<N32> lanes = [] {
    Lanes<N32> l{};
    for (int c = 0; c < N32 / 4; ++c)
      for (int j = 0; j < 2; ++j) {
        l.i[4 * c + 2 * j] = 4 * c + j + (kHi ? 2 : 0);
        l.i[4 * c + 2 * j + 1] = N32 + 4 * c + j + (kHi ? 2 : 0);
      }
    return l;
  }();
};

// Dword lanes {x0, y0, x2, y2, ...} (kOdd false) or {x1, y1, x3, y3, ...}
// (true) of two registers x, y: the low (high) halves of their 64-bit lanes,
// side by side.
template <bool kOdd>
struct kOddOf {
  static constexpr Lanes<N32> lanes = [] {
    Lanes<N32> l{};
    for (int j = 0; j < N64; ++j) {
      l.i[2 * j] = 2 * j + (kOdd ? 1 : 0);
      l.i[2 * j + 1] = N32 + 2 * j + (kOdd ? 1 : 0);
    }
    return l;
  }();
};

// Fused<DI, T, V>::kFused says whether the row has a fused kernel;
// step(keys, block, plan, o) writes the kGroups groups whose words are those
// of the kBlocks blocks from `block` on, in stream order, to o.
template <Dist DI, DType T, int V>
struct Fused {
  static constexpr bool kFused = false;
};

// The normal of stream v2: two pairs per block, words (w0, w1) and (w2, w3).
// Lane i of a 64-bit Philox register computes block (i % 2) N64/2 + i/2, so
// that the 32-bit lanes 2i, 2i + 1 of a = (w0 | w2 << 32) and b = (w1 | w3 << 32)
// hold that block's two pairs, and the per-128-bit unpack of (z0, z1) puts
// every block's four values in stream order: blocks 0 .. N64/2 - 1 in the
// low output vector, the others in the high one. No lane crosses a 128-bit
// boundary on the way.
template <DType T>
struct FusedNormalV2 {
  static constexpr bool kFused = true;
  // Philox registers (and transform registers) per step: four independent
  // chains through Philox's ten rounds and the transform's long dependency
  // chains keep the vector pipes busy (one or two left them waiting on
  // latency: 2.05 / 1.66 / 1.34 ns per value on AVX2, 1.44 / 1.12 / 1.00 on
  // AVX-512, Zen 4); on AVX2 the spills this costs are cheaper than the wait.
  static constexpr int P = 4;
  static constexpr uint64_t kBlocks = P * N64;
  static constexpr uint64_t kGroups = 2 * kBlocks;  // pairs
  using out_t = out_of<Dist::normal, T>;

  static constexpr Lanes<N64> kBlockLane = [] {
    Lanes<N64> l{};
    for (int i = 0; i < N64; ++i) l.i[i] = (i % 2) * (N64 / 2) + i / 2;
    return l;
  }();

  // Round 10 (philox_blocks' round) straight into the pairs' words, the
  // transform and the stores of one step's kGroups pairs:
  // a = w0 | w2 << 32 = (hi p1 ^ c1 ^ k0) | (hi p0 ^ c3 ^ k1) << 32,
  // b = w1 | w3 << 32 = lo p1 | lo p0 << 32: the high halves of p0 are
  // already in place, and the xor of the keys is one for both words.
  template <bool kUnit>
  XRNG_INLINE static void finish(const vu64 (&c0)[P], const vu64 (&c1)[P], const vu64 (&c2)[P], const vu64 (&c3)[P],
                                 const vu32& k9, const NormalParams& p, out_t* o) {
    const vu64 m0 = bcast<vu64>(uint64_t{kPhiloxM0}), m1 = bcast<vu64>(uint64_t{kPhiloxM1});
    W32<P> a, b;
    for (int r = 0; r < P; ++r) {
      const vu32 p0 = (vu32)mul32(c0[r], m0), p1 = (vu32)mul32(c2[r], m1);
      a.v[r] = shuffle<kOddOf<true>::lanes>(p1, p0) ^ shuffle<kOddOf<false>::lanes>((vu32)c1[r], (vu32)c3[r]) ^ k9;
      b.v[r] = shuffle<kOddOf<false>::lanes>(p1, p0);
    }
    FR<P> z0, z1;
    normal_v2_pairs<kUnit, P>(a, b, p, &z0, &z1);
    for (int r = 0; r < P; ++r) {
      store_f32_as<T>(o + 2 * N32 * r, shuffle<Unpack32<false>::lanes>(z0.v[r], z1.v[r]));
      store_f32_as<T>(o + 2 * N32 * r + N32, shuffle<Unpack32<true>::lanes>(z0.v[r], z1.v[r]));
    }
  }

  // Not inlined into fill_kernel: alone, the loop gets the registers to itself
  // (inlined there it spilled more: AVX2 1.57 against 1.33 ns per value).
  // XRNG_FUSED_NORMAL_OPT (isa.h): GCC's -fno-tree-ter here.
  //
  // AVX-512: the steps run in segments whose blocks all have the same high
  // half h = block >> 32 (all steps but one in 2^27: a step that straddles a
  // multiple of 2^32 blocks takes philox_blocks itself). In a segment
  // Philox's first rounds have constants: round 1's word 0 is h ^ k0 in
  // every lane, so round 2's product of it, p2, is one constant, and so is
  // round 3's word 3 (p2); round 1's product of the block's low half and M0
  // is lane M0 + (block mod 2^32 + 8 r) M0, exact 64-bit integers (the low
  // halves do not wrap inside a segment). The same integer words as
  // philox_blocks, by fewer operations: per register no broadcast of the
  // block, no shift of the block, no product of round 1 (an addition
  // instead) nor of round 2's word 0 and no shift of it.
  template <bool kUnit>
  __attribute__((noinline, flatten)) XRNG_FUSED_NORMAL_OPT static void run(const PhiloxKeys& k, uint64_t block,
                                                                           uint64_t steps, const NormalParams& p,
                                                                           out_t* o) {
    vu64 lane;
    for (int i = 0; i < N64; ++i) lane[i] = static_cast<uint64_t>(kBlockLane.i[i]);
    const vu32 k9 = (vu32)(k.k0[9] | (k.k1[9] << 32));  // round 10's keys: k0 in the low, k1 in the high half
    const vu64 m0 = bcast<vu64>(uint64_t{kPhiloxM0}), m1 = bcast<vu64>(uint64_t{kPhiloxM1});
    if constexpr (kBytes != 64) {
      for (uint64_t s = 0; s < steps; ++s, block += kBlocks, o += 2 * kGroups) {
        vu64 blk[P], c0[P], c1[P], c2[P], c3[P];
        for (int r = 0; r < P; ++r) blk[r] = lane + (block + static_cast<uint64_t>(r * N64));
        philox_blocks<P, 9>(k, blk, c0, c1, c2, c3);
        finish<kUnit>(c0, c1, c2, c3, k9, p, o);
      }
    } else {
      while (steps != 0) {
        const uint64_t h = block >> 32;  // block < 2^62: no overflow below
        const uint64_t n = lmin<uint64_t>(steps, (((h + 1) << 32) - block) / kBlocks);
        if (n == 0) {  // this step's blocks cross a multiple of 2^32
          vu64 blk[P], c0[P], c1[P], c2[P], c3[P];
          for (int r = 0; r < P; ++r) blk[r] = lane + (block + static_cast<uint64_t>(r * N64));
          philox_blocks<P, 9>(k, blk, c0, c1, c2, c3);
          finish<kUnit>(c0, c1, c2, c3, k9, p, o);
          --steps, block += kBlocks, o += 2 * kGroups;
          continue;
        }
        // The segment's constants (philox_blocks' rounds 1-3 with word 0 = h ^ k0[0]).
        const vu64 p2 = mul32(bcast<vu64>(h) ^ k.r0_c0, m0);  // round 2's product of word 0
        const vu64 x2 = (p2 >> 32) ^ k.k1[1];                 // round 2: c2 = c3 ^ x2
        const vu64 x3 = p2 ^ k.k1[2];                         // round 3: c2 = hi p0 ^ x3
        const vu64 lm0 = mul32(lane, m0), dm = bcast<vu64>(uint64_t{N64} * kPhiloxM0);
        for (uint64_t s = 0; s < n; ++s, block += kBlocks, o += 2 * kGroups) {
          vu64 c0[P], c1[P], c2[P], c3[P], p1r[P];
          // round 1's products: (lane + block mod 2^32 + r N64) M0
          p1r[0] = lm0 + (block & kLo32) * uint64_t{kPhiloxM0};
          for (int r = 1; r < P; ++r) p1r[r] = p1r[r - 1] + dm;
          for (int r = 0; r < P; ++r) {  // rounds 1 and 2
            const vu64 q1 = mul32((p1r[r] >> 32) ^ k.r0_c2, m1);
            c0[r] = (q1 >> 32) ^ k.r1_c0;
            c1[r] = q1;
            c2[r] = p1r[r] ^ x2;
          }
          for (int r = 0; r < P; ++r) {  // round 3 (its word 3 is p2)
            const vu64 q0 = mul32(c0[r], m0), q1 = mul32(c2[r], m1);
            c0[r] = (q1 >> 32) ^ c1[r] ^ k.k0[2];
            c1[r] = q1;
            c2[r] = (q0 >> 32) ^ x3;
            c3[r] = q0;
          }
#pragma GCC unroll 10
          for (int round = 3; round < 9; ++round) {  // rounds 4-9 (philox_blocks')
            for (int r = 0; r < P; ++r) {
              const vu64 q0 = mul32(c0[r], m0), q1 = mul32(c2[r], m1);
              c0[r] = (q1 >> 32) ^ c1[r] ^ k.k0[round];
              c1[r] = q1;
              c2[r] = (q0 >> 32) ^ c3[r] ^ k.k1[round];
              c3[r] = q0;
            }
          }
          finish<kUnit>(c0, c1, c2, c3, k9, p, o);
        }
        steps -= n;
      }
    }
  }
  static void steps(const PhiloxKeys& k, uint64_t block, uint64_t n, const Plan& pl, out_t* o) {
    if (normal_is_unit(pl.normal))
      run<true>(k, block, n, pl.normal, o);
    else
      run<false>(k, block, n, pl.normal, o);
  }
};
template <>
struct Fused<Dist::normal, DType::f32, 2> : FusedNormalV2<DType::f32> {};
template <>
struct Fused<Dist::normal, DType::f16, 2> : FusedNormalV2<DType::f16> {};
template <>
struct Fused<Dist::normal, DType::bf16, 2> : FusedNormalV2<DType::bf16> {};

}  // namespace
}  // namespace xrng::detail
