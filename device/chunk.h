// The per-thread work of every CUDA kernel, as __host__ __device__ functions:
// the kernels in fill.cu / extra.cu are grid-stride loops around them, and the
// CPU-only test (tests/gpu/test_cuda_host.cpp) runs the very same functions
// over every chunk of a draw to check the chunk arithmetic (unaligned
// offsets, heads and tails, vector stores) on machines without a GPU.
//
// Nothing here is a second implementation of a value transform: values come
// from the core's Group<Dist, DType>::eval, dist::dropout_*, perm_at and
// perm_shard_position; this file only decides which words and which output
// slots a chunk has.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../rng/plan.h"
#include "launch.h"

#if defined(__CUDACC__)
#include <vector_functions.h>
#include <vector_types.h>
#endif

// Loops over constant trip counts are unrolled on the device, so that the
// chunk's arrays stay in registers.
#if defined(__CUDA_ARCH__)
#define XRNG_CUDA_UNROLL _Pragma("unroll")
#else
#define XRNG_CUDA_UNROLL
#endif

namespace xrng::cuda::detail {

// 16-byte vector for loads and stores of whole chunks.
#if defined(__CUDACC__)
using vec16 = uint4;
XRNG_HD XRNG_INLINE vec16 make_vec16(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return make_uint4(a, b, c, d); }
#else
struct alignas(16) vec16 {
  uint32_t x, y, z, w;
};
inline vec16 make_vec16(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return vec16{a, b, c, d}; }
#endif

// The kChunkWords stream words starting at word offset + kChunkWords * c.
// kChunkWords is a multiple of 4, so every chunk starts at the same lane
// (offset & 3) of a Philox block: that phase is uniform across the grid, and
// the shift below is a select with constant indices (registers, no local memory).
XRNG_HD XRNG_INLINE void chunk_words(const Stream& s, uint64_t offset, uint64_t c, uint32_t (&w)[kChunkWords]) {
  constexpr uint32_t kBlocks = kChunkWords / 4;
  const unsigned phase = static_cast<unsigned>(offset & 3u);
  const uint64_t b0 = (offset >> 2) + kBlocks * c;
  uint32_t raw[kChunkWords + 4];
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < kBlocks; ++j) {
    const u32x4 r = stream_block(s, b0 + j);
    XRNG_CUDA_UNROLL
    for (int l = 0; l < 4; ++l) raw[4 * j + l] = r.v[l];
  }
  u32x4 t{{0u, 0u, 0u, 0u}};
  if (phase != 0) t = stream_block(s, b0 + kBlocks);  // only an unaligned offset needs a fifth block
  XRNG_CUDA_UNROLL
  for (int l = 0; l < 4; ++l) raw[kChunkWords + l] = t.v[l];
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < kChunkWords; ++j)
    w[j] = phase == 0 ? raw[j] : phase == 1 ? raw[j + 1] : phase == 2 ? raw[j + 2] : raw[j + 3];
}

// ---- bit images of element arrays, for 16-byte vector loads and stores ------------------
template <class T>
XRNG_HD XRNG_INLINE uint64_t bits_of(T x) {
  if constexpr (std::is_same_v<T, double>) {
    return math::as_u64(x);
  } else if constexpr (std::is_same_v<T, float>) {
    return math::as_u32(x);
  } else {
    return static_cast<uint64_t>(x);  // integer types: two's complement bits, zero-extended below
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
// Stores N elements to a 16-byte aligned address with 16-byte stores.
template <class T, int N>
XRNG_HD XRNG_INLINE void store_vec(T* dst, const T (&v)[N]) {
  static_assert((N * sizeof(T)) % 16 == 0, "a chunk is a whole number of 16-byte vectors");
  vec16* d = reinterpret_cast<vec16*>(dst);
  XRNG_CUDA_UNROLL
  for (int q = 0; q < static_cast<int>(N * sizeof(T) / 16); ++q)
    d[q] =
        make_vec16(image_word(v, 4 * q), image_word(v, 4 * q + 1), image_word(v, 4 * q + 2), image_word(v, 4 * q + 3));
}
// Loads N elements from a 16-byte aligned address with 16-byte loads.
template <class T, int N>
XRNG_HD XRNG_INLINE void load_vec(const T* src, T (&v)[N]) {
  static_assert((N * sizeof(T)) % 16 == 0, "a chunk is a whole number of 16-byte vectors");
  constexpr int kWords = static_cast<int>(N * sizeof(T) / 4);
  uint32_t w[kWords];
  const vec16* s = reinterpret_cast<const vec16*>(src);
  XRNG_CUDA_UNROLL
  for (int q = 0; q < kWords / 4; ++q) {
    const vec16 u = s[q];  // a plain load: dropout allows in == out
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

// Whether element 0 of a buffer whose element `start` is at `p` sits on a
// 16-byte boundary: then every chunk (a multiple of 16 bytes) does too.
template <class T>
inline bool chunks_aligned(const void* p, uint64_t start) {
  return ((reinterpret_cast<uintptr_t>(p) - static_cast<uintptr_t>(start * sizeof(T))) & 15u) == 0;
}

// ---- the chunk bodies ---------------------------------------------------------------------
// Fill chunk c: groups c*C .. c*C + C - 1 (C = kChunkWords / K), elements
// c*N .. c*N + N - 1 (N = C * G); writes those in [start, start + count) to
// out[e - start]. vec: every chunk is 16-byte aligned in out (chunks_aligned).
template <Dist D, DType T>
XRNG_HD XRNG_INLINE void fill_chunk(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
                                    uint64_t c, typename Group<D, T>::out_t* out, bool vec) {
  using G = Group<D, T>;
  using O = typename G::out_t;
  constexpr uint32_t K = G::kWords;
  constexpr uint32_t C = kChunkWords / K;
  constexpr uint32_t N = C * G::kGroup;
  static_assert(kChunkWords % K == 0, "a chunk holds whole groups");
  uint32_t w[kChunkWords];
  chunk_words(s, offset, c, w);
  O v[N];
  XRNG_CUDA_UNROLL
  for (uint32_t q = 0; q < C; ++q) G::eval(w + K * q, p, v + G::kGroup * q);
  const uint64_t e0 = c * N;  // first element of the chunk
  if (vec && e0 >= start && count - (e0 - start) >= N) {
    store_vec(out + (e0 - start), v);
  } else {
    XRNG_CUDA_UNROLL
    for (uint32_t j = 0; j < N; ++j) {
      const uint64_t e = e0 + j;
      if (e >= start && e - start < count) out[e - start] = v[j];
    }
  }
}

// Dropout element function of each dtype (the core's dist::dropout_*).
template <DType T>
struct DropoutOp;
template <>
struct DropoutOp<DType::f32> {
  using V = float;
  XRNG_HD static V apply(uint32_t w, V x, const BernoulliParams& p) { return dist::dropout_f32(w, x, p); }
};
template <>
struct DropoutOp<DType::f64> {
  using V = double;
  XRNG_HD static V apply(uint32_t w, V x, const BernoulliParams& p) { return dist::dropout_f64(w, x, p); }
};
template <>
struct DropoutOp<DType::f16> {
  using V = uint16_t;
  XRNG_HD static V apply(uint32_t w, V x, const BernoulliParams& p) { return dist::dropout_f16(w, x, p); }
};
template <>
struct DropoutOp<DType::bf16> {
  using V = uint16_t;
  XRNG_HD static V apply(uint32_t w, V x, const BernoulliParams& p) { return dist::dropout_bf16(w, x, p); }
};

// Dropout chunk c: elements 16c .. 16c + 15, element e using stream word
// offset + e (the Bernoulli mask of the same draw). Each element is read
// before it is written, by one thread, so in == out is allowed.
template <DType T>
XRNG_HD XRNG_INLINE void dropout_chunk(const BernoulliParams& p, const Stream& s, uint64_t offset, uint64_t start,
                                       uint64_t count, uint64_t c, const typename DropoutOp<T>::V* in,
                                       typename DropoutOp<T>::V* out, bool vec) {
  using V = typename DropoutOp<T>::V;
  constexpr uint32_t N = kDropoutChunk;
  static_assert(N == kChunkWords, "one word per element");
  uint32_t w[kChunkWords];
  chunk_words(s, offset, c, w);
  const uint64_t e0 = c * N;
  if (vec && e0 >= start && count - (e0 - start) >= N) {
    V x[N];
    load_vec(in + (e0 - start), x);
    XRNG_CUDA_UNROLL
    for (uint32_t j = 0; j < N; ++j) x[j] = DropoutOp<T>::apply(w[j], x[j], p);
    store_vec(out + (e0 - start), x);
  } else {
    XRNG_CUDA_UNROLL
    for (uint32_t j = 0; j < N; ++j) {
      const uint64_t e = e0 + j;
      if (e >= start && e - start < count) out[e - start] = DropoutOp<T>::apply(w[j], in[e - start], p);
    }
  }
}

// perm_shard chunk i: shard elements j = i*kShardChunk .. + kShardChunk - 1
// (below count), at positions (p0 + j * world) mod n, p0 = the position of
// element `start`. The host walks j in steps of world mod n from p0; a chunk
// starts from the exact position of its first j and steps the same way, so
// both give perm_at((p0 + j * world) mod n) for every j.
template <class O>
XRNG_HD XRNG_INLINE void shard_chunk(const PermKey& k, uint64_t world, uint64_t p0, uint64_t count, uint64_t i,
                                     O* out) {
  const uint64_t n = k.n;
  const uint64_t step = world % n;
  const uint64_t j0 = i * kShardChunk;
  const uint64_t d = perm_shard_position(n, 0, world, j0);  // (j0 * world) mod n, exact
  uint64_t pos = p0 >= n - d ? p0 - (n - d) : p0 + d;
  for (uint32_t q = 0; q < kShardChunk && j0 + q < count; ++q) {
    out[j0 + q] = static_cast<O>(perm_at(k, pos));
    pos = pos >= n - step ? pos - (n - step) : pos + step;
  }
}

}  // namespace xrng::cuda::detail
