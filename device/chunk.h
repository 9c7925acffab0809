// The per-thread work of the CUDA kernels, as __host__ __device__ templates
// over a registry row R (rng/detail/rows.h): the kernels (kernels.cuh) are
// grid-stride loops around them, and the CPU-only test
// (tests/gpu/test_cuda_host.cpp) runs the very same functions over every chunk
// of a draw to check the chunk arithmetic (unaligned offsets, heads and tails,
// vector loads and stores, the last words of the stream) on machines without
// a GPU.
//
// Nothing here is a second implementation of a value: values come from the
// row's element function (R::eval, R::at, R::position, R::shard); this file
// only decides which words and which output slots a chunk has (launch.h).
#pragma once

#include <cstdint>
#include <type_traits>

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

// The W stream words starting at word offset + W * c (W a multiple of 4).
// Every chunk starts at the same lane (offset & 3) of a Philox block: that
// phase is uniform across the grid, and the shift below is a select with
// constant indices (registers, no local memory).
template <uint32_t W>
XRNG_HD XRNG_INLINE void chunk_words(const Stream& s, uint64_t offset, uint64_t c, uint32_t (&w)[W]) {
  static_assert(W % 4 == 0, "a chunk is whole Philox blocks");
  constexpr uint32_t kBlocks = W / 4;
  const unsigned phase = static_cast<unsigned>(offset & 3u);
  const uint64_t b0 = (offset >> 2) + kBlocks * c;
  uint32_t raw[W + 4];
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < kBlocks; ++j) {
    const u32x4 r = stream_block(s, b0 + j);
    XRNG_CUDA_UNROLL
    for (int l = 0; l < 4; ++l) raw[4 * j + l] = r.v[l];
  }
  u32x4 t{{0u, 0u, 0u, 0u}};
  if (phase != 0) t = stream_block(s, b0 + kBlocks);  // only an unaligned offset needs one more block
  XRNG_CUDA_UNROLL
  for (int l = 0; l < 4; ++l) raw[W + l] = t.v[l];
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < W; ++j)
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
// Whether N elements of T are a whole number of 16-byte vectors; rows whose
// chunks are not (none in stream v1) simply take the element-wise path.
template <class T, int N>
inline constexpr bool kVectorChunk = (N * sizeof(T)) % 16 == 0;

// Stores N elements to a 16-byte aligned address with 16-byte stores.
template <class T, int N>
XRNG_HD XRNG_INLINE void store_vec(T* dst, const T (&v)[N]) {
  static_assert(kVectorChunk<T, N>, "a chunk is a whole number of 16-byte vectors");
  vec16* d = reinterpret_cast<vec16*>(dst);
  XRNG_CUDA_UNROLL
  for (int q = 0; q < static_cast<int>(N * sizeof(T) / 16); ++q)
    d[q] =
        make_vec16(image_word(v, 4 * q), image_word(v, 4 * q + 1), image_word(v, 4 * q + 2), image_word(v, 4 * q + 3));
}
// Loads N elements from a 16-byte aligned address with 16-byte loads.
template <class T, int N>
XRNG_HD XRNG_INLINE void load_vec(const T* src, T (&v)[N]) {
  static_assert(kVectorChunk<T, N>, "a chunk is a whole number of 16-byte vectors");
  constexpr int kWords = static_cast<int>(N * sizeof(T) / 4);
  uint32_t w[kWords];
  const vec16* s = reinterpret_cast<const vec16*>(src);
  XRNG_CUDA_UNROLL
  for (int q = 0; q < kWords / 4; ++q) {
    const vec16 u = s[q];  // a plain load: transforms allow in == out
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

// Whether the chunks of row R, in a buffer whose element `start` is at `p`,
// can use 16-byte loads and stores: element 0 of the draw would sit on a
// 16-byte boundary (then so does every chunk, a multiple of 16 bytes), and
// the row's chunk is a whole number of vectors.
template <class R>
inline bool vector_chunks(const void* p, uint64_t start) {
  using O = typename R::out_t;
  if constexpr (!kVectorChunk<O, ChunkShape<R>::kElems>) {
    return false;
  } else {
    return ((reinterpret_cast<uintptr_t>(p) - static_cast<uintptr_t>(start * sizeof(O))) & 15u) == 0;
  }
}

// ---- the chunk bodies ---------------------------------------------------------------------
// Element row R, chunk c: groups c*C .. c*C + C - 1, elements c*N .. c*N + N - 1
// (ChunkShape<R>); writes those in [start, start + count) to out[e - start].
// vec: vector_chunks<R>(out, start).
template <class R>
XRNG_HD XRNG_INLINE void fill_chunk(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
                                    uint64_t c, typename R::out_t* out, bool vec) {
  static_assert(R::kind == Kind::element);
  using O = typename R::out_t;
  using S = ChunkShape<R>;
  constexpr uint32_t N = S::kElems;
  uint32_t w[S::kWords];
  chunk_words(s, offset, c, w);
  O v[N];
  XRNG_CUDA_UNROLL
  for (uint32_t q = 0; q < S::kGroups; ++q) R::eval(w + R::kWords * q, p, v + R::kGroup * q);
  const uint64_t e0 = c * N;  // first element of the chunk
  if constexpr (kVectorChunk<O, N>) {
    if (vec && e0 >= start && count - (e0 - start) >= N) {
      store_vec(out + (e0 - start), v);
      return;
    }
  }
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < N; ++j) {
    const uint64_t e = e0 + j;
    if (e >= start && e - start < count) out[e - start] = v[j];
  }
}

// Transform row R, chunk c: elements c*N .. c*N + N - 1, element e using the
// words offset + K*e .. + K - 1. Each element is read before it is written,
// by one thread, so in == out is allowed. vec: vector_chunks<R> of in and out.
template <class R>
XRNG_HD XRNG_INLINE void transform_chunk(const Plan& p, const Stream& s, uint64_t offset, uint64_t start,
                                         uint64_t count, uint64_t c, const typename R::out_t* in,
                                         typename R::out_t* out, bool vec) {
  static_assert(R::kind == Kind::transform && R::kGroup == 1, "a transform maps one input to one output");
  using V = typename R::out_t;
  using S = ChunkShape<R>;
  constexpr uint32_t N = S::kElems;
  uint32_t w[S::kWords];
  chunk_words(s, offset, c, w);
  const uint64_t e0 = c * N;
  if constexpr (kVectorChunk<V, N>) {
    if (vec && e0 >= start && count - (e0 - start) >= N) {
      V x[N];
      load_vec(in + (e0 - start), x);
      XRNG_CUDA_UNROLL
      for (uint32_t j = 0; j < N; ++j) x[j] = R::eval(w + R::kWords * j, x[j], p);
      store_vec(out + (e0 - start), x);
      return;
    }
  }
  XRNG_CUDA_UNROLL
  for (uint32_t j = 0; j < N; ++j) {
    const uint64_t e = e0 + j;
    if (e >= start && e - start < count) out[e - start] = R::eval(w + R::kWords * j, in[e - start], p);
  }
}

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
