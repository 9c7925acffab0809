// The per-lane work of the CUDA kernels, as __host__ __device__ templates
// over a registry row R (rng/detail/rows.h): the kernels (kernels.cuh) are
// grid-stride loops around them, and the CPU-only test
// (tests/gpu/test_cuda_host.cpp) runs the very same functions over every slot
// of a draw, warp by warp with the kernels' block exchange, to check the
// layout (unaligned offsets, starts and pointers, heads and tails, 16-byte
// vector loads and stores, the last words of the stream) without a GPU.
//
// Nothing here is a second implementation of a value: values come from the
// row's element function (R::eval, R::at, R::position, R::shard); this file
// only decides which words and which output elements a slot or chunk has
// (launch.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "launch.h"

#if defined(__CUDACC__)
#include <vector_functions.h>
#include <vector_types.h>
#endif

// Loops over constant trip counts are unrolled on the device, so that the
// slot's arrays stay in registers.
#if defined(__CUDA_ARCH__)
#define XRNG_CUDA_UNROLL _Pragma("unroll")
#else
#define XRNG_CUDA_UNROLL
#endif

namespace xrng::cuda::detail {

// 16-byte vector for loads and stores of whole slots.
#if defined(__CUDACC__)
using vec16 = uint4;
XRNG_HD XRNG_INLINE vec16 make_vec16(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return make_uint4(a, b, c, d); }
#else
struct alignas(16) vec16 {
  uint32_t x, y, z, w;
};
inline vec16 make_vec16(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return vec16{a, b, c, d}; }
#endif

// ---- bit images of element arrays, for 16-byte vector loads and stores ------------------
template <class T>
XRNG_HD XRNG_INLINE uint64_t bits_of(T x) {
  if constexpr (std::is_same_v<T, double>) {
    return math::as_u64(x);
  } else if constexpr (std::is_same_v<T, float>) {
    return math::as_u32(x);
  } else {
    return static_cast<uint64_t>(x);  // integer types: two's complement bits, cut to the element size below
  }
}
template <class T>
XRNG_HD XRNG_INLINE T from_bits(uint64_t b) {
  if constexpr (std::is_same_v<T, double>) {
    return math::as_f64(b);
  } else if constexpr (std::is_same_v<T, float>) {
    return math::as_f32(static_cast<uint32_t>(b));
  } else {
    return static_cast<T>(b);
  }
}
// 32-bit word q of the little-endian byte image of v.
template <class T, int N>
XRNG_HD XRNG_INLINE uint32_t image_word(const T (&v)[N], int q) {
  if constexpr (sizeof(T) == 8) {
    const uint64_t b = bits_of(v[q / 2]);
    return (q & 1) ? static_cast<uint32_t>(b >> 32) : static_cast<uint32_t>(b);
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<uint32_t>(bits_of(v[q]));
  } else if constexpr (sizeof(T) == 2) {
    return (static_cast<uint32_t>(bits_of(v[2 * q])) & 0xffffu) |
           ((static_cast<uint32_t>(bits_of(v[2 * q + 1])) & 0xffffu) << 16);
  } else {
    static_assert(sizeof(T) == 1, "element size");
    return (static_cast<uint32_t>(bits_of(v[4 * q])) & 0xffu) |
           ((static_cast<uint32_t>(bits_of(v[4 * q + 1])) & 0xffu) << 8) |
           ((static_cast<uint32_t>(bits_of(v[4 * q + 2])) & 0xffu) << 16) |
           ((static_cast<uint32_t>(bits_of(v[4 * q + 3])) & 0xffu) << 24);
  }
}
// Whether N elements of T are a whole number of 16-byte vectors.
template <class T, int N>
inline constexpr bool kVectorChunk = (N * sizeof(T)) % 16 == 0;

// Host builds count the 16-byte accesses made at an address that is not
// 16-byte aligned: the CPU performs them with the right values, a GPU faults,
// so the CPU test (cuda_host) checks that the count stays 0.
#if !defined(__CUDA_ARCH__)
inline std::atomic<uint64_t> misaligned_vector_accesses{0};
#endif

// Stores N elements to a 16-byte aligned address with 16-byte stores.
template <class T, int N>
XRNG_HD XRNG_INLINE void store_vec(T* dst, const T (&v)[N]) {
  static_assert(kVectorChunk<T, N>, "a slot is a whole number of 16-byte vectors");
  vec16* d = reinterpret_cast<vec16*>(dst);
  XRNG_CUDA_UNROLL
  for (int q = 0; q < static_cast<int>(N * sizeof(T) / 16); ++q) {
    const vec16 u =
        make_vec16(image_word(v, 4 * q), image_word(v, 4 * q + 1), image_word(v, 4 * q + 2), image_word(v, 4 * q + 3));
#if defined(__CUDA_ARCH__)
    // An intrinsic, so the compiler cannot merge it with the element-wise
    // stores of the same values into four 4-byte stores (it did, with a
    // plain assignment: both branches store the same words).
    __stwb(d + q, u);
#else
    if (reinterpret_cast<uintptr_t>(d + q) & 15u) misaligned_vector_accesses.fetch_add(1);
    d[q] = u;
#endif
  }
}
// Loads N elements from a 16-byte aligned address with 16-byte loads.
template <class T, int N>
XRNG_HD XRNG_INLINE void load_vec(const T* src, T (&v)[N]) {
  static_assert(kVectorChunk<T, N>, "a slot is a whole number of 16-byte vectors");
  constexpr int kWords = static_cast<int>(N * sizeof(T) / 4);
  uint32_t w[kWords];
  const vec16* s = reinterpret_cast<const vec16*>(src);
  XRNG_CUDA_UNROLL
  for (int q = 0; q < kWords / 4; ++q) {
#if defined(__CUDA_ARCH__)
    const vec16 u = __ldcg(s + q);  // coherent (in == out is allowed), one 16-byte load
#else
    if (reinterpret_cast<uintptr_t>(s + q) & 15u) misaligned_vector_accesses.fetch_add(1);
    const vec16 u = s[q];
#endif
    w[4 * q] = u.x;
    w[4 * q + 1] = u.y;
    w[4 * q + 2] = u.z;
    w[4 * q + 3] = u.w;
  }
  XRNG_CUDA_UNROLL
  for (int i = 0; i < N; ++i) {
    if constexpr (sizeof(T) == 8) {
      v[i] = from_bits<T>(static_cast<uint64_t>(w[2 * i]) | (static_cast<uint64_t>(w[2 * i + 1]) << 32));
    } else if constexpr (sizeof(T) == 4) {
      v[i] = from_bits<T>(w[i]);
    } else if constexpr (sizeof(T) == 2) {
      v[i] = from_bits<T>((w[i / 2] >> (16 * (i & 1))) & 0xffffu);
    } else {
      v[i] = from_bits<T>((w[i / 4] >> (8 * (i & 3))) & 0xffu);
    }
  }
}

// ---- the slot bodies ----------------------------------------------------------------------
// A lane's work on slot q (launch.h, Layout) in three steps, so that the
// kernel can exchange blocks between lanes in the middle:
//   1. own_blocks:   the slot's own B Philox blocks (every lane of the warp,
//                    in range or not: the previous lane may need them);
//   2. extra_blocks: the blocks past those that the slot reads (a phase or a
//                    shift inside a group's words): the first blocks of the
//                    next slot, given by the next lane (a warp shuffle on the
//                    GPU), else (the warp's last lane) computed;
//   3. fill_slot / transform_slot: the slot's words, the row's element
//                    function, and the stores of the elements in the request.
template <class R>
using SlotRaw = uint32_t[4 * TileShape<R>::kSlotBlocks];

template <class R>
XRNG_HD XRNG_INLINE uint64_t slot_block(const Layout& L, uint64_t q, uint32_t j) {
  return (L.block0 + uint64_t{TileShape<R>::kBlocks} * q + j) & kBlockMask;
}

template <class R>
XRNG_HD XRNG_INLINE void own_blocks(const Layout& L, const Stream& s, uint64_t q, SlotRaw<R>& raw) {
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < TileShape<R>::kBlocks; ++j) {
    const u32x4 b = stream_block(s, slot_block<R>(L, q, j));
    XRNG_CUDA_UNROLL
    for (int l = 0; l < 4; ++l) raw[4 * j + l] = b.v[l];
  }
}

// Blocks B .. L.blocks - 1 of slot q: from `next`, the next slot's own
// blocks (its raw[0 .. 4B), of which only the first min(L.blocks - B, B)
// blocks are read: extra_from_next) when have_next, else computed. (A flag,
// not a null pointer: an array whose address is selected at run time would
// live in local memory.)
template <class R>
XRNG_HD XRNG_INLINE uint32_t extra_from_next(const Layout& L) {
  constexpr uint32_t B = TileShape<R>::kBlocks;
  const uint32_t x = L.blocks > B ? L.blocks - B : 0;
  return x < B ? x : B;
}
template <class R, int M>
XRNG_HD XRNG_INLINE void extra_blocks(const Layout& L, const Stream& s, uint64_t q, const uint32_t (&next)[M],
                                      bool have_next, SlotRaw<R>& raw) {
  using S = TileShape<R>;
  static_assert(M >= 4 * static_cast<int>(S::kBlocks), "the next slot's own blocks");
  XRNG_CUDA_UNROLL
  for (uint32_t j = S::kBlocks; j < S::kSlotBlocks; ++j) {
    if (j < L.blocks) {
      if (have_next && j < 2 * S::kBlocks) {
        XRNG_CUDA_UNROLL
        for (int l = 0; l < 4; ++l) raw[4 * j + l] = next[4 * (j - S::kBlocks) + l];
      } else {
        const u32x4 b = stream_block(s, slot_block<R>(L, q, j));
        XRNG_CUDA_UNROLL
        for (int l = 0; l < 4; ++l) raw[4 * j + l] = b.v[l];
      }
    }
  }
}

// The words of the slot's groups: raw from lane `phase` of its first block.
// A select with constant indices (registers, no local memory).
template <class R, int M>
XRNG_HD XRNG_INLINE void slot_words(const SlotRaw<R>& raw, uint32_t phase, uint32_t (&w)[M]) {
  static_assert(M + 3 <= 4 * static_cast<int>(TileShape<R>::kSlotBlocks), "slot words");
  XRNG_CUDA_UNROLL
  for (int j = 0; j < M; ++j)
    w[j] = phase == 0 ? raw[j] : phase == 1 ? raw[j + 1] : phase == 2 ? raw[j + 2] : raw[j + 3];
}

// v[j + skip], skip < G, with constant indices.
template <uint32_t G, class T, int M>
XRNG_HD XRNG_INLINE T skipped(const T (&v)[M], uint32_t skip, int j) {
  T x = v[j];
  XRNG_CUDA_UNROLL
  for (uint32_t k = 1; k < G; ++k)
    if (skip == k) x = v[j + k];
  return x;
}

// Element row R, slot q: evaluates the slot's groups and writes the slot's
// elements that fall in the request, out[e - start] for element e.
template <class R>
XRNG_HD XRNG_INLINE void fill_slot(const Plan& p, const Layout& L, uint64_t q, const SlotRaw<R>& raw,
                                   typename R::out_t* out) {
  static_assert(R::kind == Kind::element);
  using O = typename R::out_t;
  using S = TileShape<R>;
  constexpr uint32_t E = S::kElems;
  uint32_t w[S::K * S::kSlotGroups];
  slot_words<R>(raw, L.phase, w);
  O v[S::kSlotGroups * S::G];
  XRNG_CUDA_UNROLL
  for (uint32_t g = 0; g < S::kGroups; ++g) R::eval(w + S::K * g, p, v + S::G * g);
  if constexpr (S::kSlotGroups > S::kGroups) {
    if (L.skip != 0) R::eval(w + S::K * S::kGroups, p, v + S::G * S::kGroups);
  }
  O x[E];
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < E; ++j) x[j] = skipped<S::G>(v, L.skip, static_cast<int>(j));
  const uint64_t rel = q * E - L.shift - L.start;  // out index of the slot's first element, modulo 2^64
  if constexpr (S::kVector) {
    if (L.vec && rel < L.elems && L.elems - rel >= E) {
      store_vec(out + rel, x);
      return;
    }
  }
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < E; ++j)
    if (rel + j < L.elems) out[rel + j] = x[j];
}

// Transform row R (one element per group), slot q: each element is read
// before it is written, by one lane, so in == out is allowed.
template <class R>
XRNG_HD XRNG_INLINE void transform_slot(const Plan& p, const Layout& L, uint64_t q, const SlotRaw<R>& raw,
                                        const typename R::out_t* in, typename R::out_t* out) {
  static_assert(R::kind == Kind::transform && R::kGroup == 1, "a transform maps one input to one output");
  using V = typename R::out_t;
  using S = TileShape<R>;
  constexpr uint32_t E = S::kElems;
  uint32_t w[S::K * S::kSlotGroups];
  slot_words<R>(raw, L.phase, w);
  const uint64_t rel = q * E - L.shift - L.start;
  const bool whole = rel < L.elems && L.elems - rel >= E;
  V x[E];
  bool loaded = false;
  if constexpr (S::kVector) {
    if (L.vec_in && whole) {
      load_vec(in + rel, x);
      loaded = true;
    }
  }
  if (!loaded) {
    XRNG_CUDA_UNROLL
    for (uint32_t j = 0; j < E; ++j) x[j] = rel + j < L.elems ? in[rel + j] : V{};
  }
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < E; ++j) x[j] = R::eval(w + S::K * j, x[j], p);
  if constexpr (S::kVector) {
    if (L.vec && whole) {
      store_vec(out + rel, x);
      return;
    }
  }
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < E; ++j)
    if (rel + j < L.elems) out[rel + j] = x[j];
}

// ---- permutations ---------------------------------------------------------------------------
// The arguments of a permutation request: elements [start, start + count) of
// the permutation (at), of its inverse (position) or of shard rank of world.
struct PermArgs {
  uint64_t start = 0;
  uint64_t count = 0;
  uint64_t rank = 0;
  uint64_t world = 1;
};

// Permutation row R, chunk i: request elements j = i*E .. i*E + E - 1 (below
// count), E = perm_chunk_elems(Op), written to out[j]. A shard chunk is the
// core's perm_shard_range from its first element: one exact reduction, then
// steps of world mod n, the same walk as the host's, so any split of the
// request gives perm((rank + (start + j) * world) mod n) for every j.
template <class R, PermOp Op>
XRNG_HD XRNG_INLINE void perm_chunk(const PermKey& k, const PermArgs& a, uint64_t i, typename R::out_t* out) {
  static_assert(R::kind == Kind::permutation);
  constexpr uint64_t E = perm_chunk_elems(Op);
  const uint64_t j0 = i * E;
  const uint64_t m = a.count - j0 < E ? a.count - j0 : E;
  if constexpr (Op == PermOp::shard) {
    R::shard(k, a.rank, a.world, a.start + j0, m, out + j0);
  } else {
    for (uint64_t q = 0; q < m; ++q)
      out[j0 + q] = Op == PermOp::at ? R::at(k, a.start + j0 + q) : R::position(k, a.start + j0 + q);
  }
}

}  // namespace xrng::cuda::detail
