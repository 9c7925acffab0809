// The vector backend's instruction-set layer: register types, the handful of
// intrinsics that differ between AVX2, AVX-512 and NEON, and the lane types
// that the templates of rng/ are instantiated with. Everything above this
// header (philox.h, kernels.h, fill.h, perm.h, probe_impl.h) is written once
// for every ISA in terms of what is defined here.
//
// Included only by the per-ISA translation units: host/simd_avx2.cpp
// (XRNG_SIMD_BYTES = 32) and host/simd_avx512.cpp (64) on x86-64, compiled
// with their ISA enabled; host/simd_neon.cpp (16) on AArch64, where Advanced
// SIMD is part of the base ISA. Everything in host/simd/ lives in an anonymous
// namespace: nothing compiled with AVX enabled can be picked by the linker for
// a baseline caller (the ctest test_simd_symbols checks that those objects
// export only their entry points). For the same reason these headers never
// instantiate an inline function of rng/ with scalar types (that would be a
// weak, exported, AVX-compiled copy); they instantiate rng/'s templates with
// the lane types below only, which have internal linkage. (On AArch64 NEON is
// baseline, so the hazard does not arise there; the same rules hold anyway.)
//
// Like the scalar path, results assume the default floating-point environment:
// round to nearest, no flush-to-zero (x86 MXCSR without FTZ/DAZ; AArch64 FPCR
// with RMode 0 and FZ, FZ16, DN clear, Linux's and macOS's default).
//
// Arithmetic of the stream: GCC/Clang generic vector + - * / (one IEEE
// operation each, never contracted: -ffp-contract=off), and an explicit fused
// multiply-add only where the scalar code calls math::fma_ (std::fma; stream
// v1's double polynomials). Stream v2 (math32.h) has no fma_: its lanes below
// offer none.
#pragma once

#if !defined(XRNG_SIMD_BYTES) || (XRNG_SIMD_BYTES != 16 && XRNG_SIMD_BYTES != 32 && XRNG_SIMD_BYTES != 64)
#error "define XRNG_SIMD_BYTES as 16 (NEON), 32 (AVX2) or 64 (AVX-512) before including host/simd/ headers"
#endif

#if XRNG_SIMD_BYTES == 16
#if !defined(__aarch64__) && !defined(_M_ARM64)
#error "the 16-byte vector backend is NEON: AArch64 only (host/CMakeLists.txt compiles it there only)"
#endif
#include <arm_neon.h>
#else
#if !defined(__x86_64__) && !defined(__i386__)
#error "the AVX2 / AVX-512 backends are x86 only (host/CMakeLists.txt compiles them there only)"
#endif
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../../rng/config.h"

namespace xrng::detail {
namespace {

// min / max local to this translation unit. std::min / std::max would be
// instantiated here as weak (COMDAT) symbols compiled with AVX enabled, and in
// an unoptimised build the linker may pick this copy for baseline callers
// elsewhere (a SIGILL on a CPU without AVX).
template <class T>
XRNG_INLINE T lmin(T a, T b) { return b < a ? b : a; }
template <class T>
XRNG_INLINE T lmax(T a, T b) { return a < b ? b : a; }

using u128 = unsigned __int128;

constexpr int kBytes = XRNG_SIMD_BYTES;
constexpr int N64 = kBytes / 8;  // 64-bit lanes per register
constexpr int N32 = kBytes / 4;  // 32-bit lanes per register
constexpr uint64_t kLo32 = 0xffffffffull;

// GCC generic vectors: + - * / & | ^ << >> and comparisons map onto the ISA's
// instructions; their arithmetic is the IEEE / modular arithmetic of the
// element type (no contraction: -ffp-contract=off).
typedef uint64_t vu64 __attribute__((vector_size(kBytes)));
typedef int64_t vi64 __attribute__((vector_size(kBytes)));
typedef double vf64 __attribute__((vector_size(kBytes)));
typedef uint32_t vu32 __attribute__((vector_size(kBytes)));
typedef int32_t vi32 __attribute__((vector_size(kBytes)));
typedef float vf32 __attribute__((vector_size(kBytes)));
typedef uint32_t vu32h __attribute__((vector_size(kBytes / 2)));  // N64 lanes
typedef int32_t vi32h __attribute__((vector_size(kBytes / 2)));
typedef float vf32h __attribute__((vector_size(kBytes / 2)));
typedef uint16_t vu16h __attribute__((vector_size(kBytes / 2)));  // N32 lanes
typedef uint8_t vu8q __attribute__((vector_size(kBytes / 4)));    // N32 lanes

template <class V>
XRNG_INLINE V loadu(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class V>
XRNG_INLINE void storeu(void* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}
// Every lane = x, the sign of a zero included.
template <class V, class S>
XRNG_INLINE V bcast(S x) {
  using E = std::remove_cvref_t<decltype(V{}[0])>;
  if constexpr (std::is_floating_point_v<E>) {
    // Floating point: broadcast the bit pattern as integers. `V{} + x` is
    // 0 + x, which turns a -0 parameter into +0 (stream 2's exponential
    // negates 1 / rate = +0 into -0 and relies on its sign).
    using U = std::conditional_t<sizeof(E) == 4, uint32_t, uint64_t>;
    typedef U VU __attribute__((vector_size(sizeof(V))));
    return (V)(VU{} + __builtin_bit_cast(U, static_cast<E>(x)));
  } else {
    return V{} + static_cast<E>(x);  // vector + scalar: the scalar is broadcast
  }
}
template <class V>
XRNG_INLINE V iota() {
  V v;
  for (size_t i = 0; i < sizeof(V) / sizeof(v[0]); ++i) v[i] = i;
  return v;
}
// Two half-width vectors side by side, and the halves of a vector: register
// shuffles (vinsert/vextract), never a round trip through memory.
template <class W, class H>
XRNG_INLINE W concat(const H& lo, const H& hi) {
  static_assert(2 * sizeof(H) == sizeof(W));
  constexpr size_t n = sizeof(W) / sizeof(lo[0]);
  return [&]<size_t... I>(std::index_sequence<I...>) {
    return (W)__builtin_shufflevector(lo, hi, I...);
  }(std::make_index_sequence<n>{});
}
template <class H, class W>
XRNG_INLINE H half(const W& w, int which) {
  static_assert(2 * sizeof(H) == sizeof(W));
  constexpr size_t n = sizeof(H) / sizeof(w[0]);
  if (which == 0)
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return (H)__builtin_shufflevector(w, w, I...);
    }(std::make_index_sequence<n>{});
  return [&]<size_t... I>(std::index_sequence<I...>) {
    return (H)__builtin_shufflevector(w, w, (I + n)...);
  }(std::make_index_sequence<n>{});
}

// A lane permutation of two vectors a, b (lanes of b numbered after a's) by
// constant indices: shuffle<kEven64>(a, b). __builtin_shufflevector takes the
// indices as constants, which GCC (12+) and Clang both accept (GCC's
// __builtin_shuffle with a mask vector is GCC only).
template <int N>
struct Lanes {
  int i[N];
};
template <const auto& M, class V>
XRNG_INLINE V shuffle(const V& a, const V& b) {
  constexpr size_t n = sizeof(M.i) / sizeof(M.i[0]);
  static_assert(n == sizeof(V) / sizeof(a[0]), "one index per lane");
  return [&]<size_t... I>(std::index_sequence<I...>) {
    return (V)__builtin_shufflevector(a, b, M.i[I]...);
  }(std::make_index_sequence<n>{});
}

// ---- ISA primitives ----------------------------------------------------------------------------
#if XRNG_SIMD_BYTES == 32
// Low 32 bits of each 64-bit lane times low 32 bits: the full 64-bit product.
XRNG_INLINE vu64 mul32(vu64 a, vu64 b) { return (vu64)_mm256_mul_epu32((__m256i)a, (__m256i)b); }
XRNG_INLINE vf64 vfma(vf64 a, vf64 b, vf64 c) { return (vf64)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c); }
XRNG_INLINE vf64 vsqrt(vf64 a) { return (vf64)_mm256_sqrt_pd((__m256d)a); }
XRNG_INLINE vf32 vsqrt32(vf32 a) { return (vf32)_mm256_sqrt_ps((__m256)a); }
// a * b - c rounded once (vfmsub): only where that value is exact (fused.h, kernels.h: sincos_turns_v2).
XRNG_INLINE vf32 vfms32(vf32 a, vf32 b, vf32 c) { return (vf32)_mm256_fmsub_ps((__m256)a, (__m256)b, (__m256)c); }
// vcvtps2ph with rounding mode 0 (nearest even), independent of MXCSR.RC.
XRNG_INLINE vu16h f32_to_f16(vf32 x) { return (vu16h)_mm256_cvtps_ph((__m256)x, _MM_FROUND_TO_NEAREST_INT); }
XRNG_INLINE vf32 f16_to_f32(vu16h h) { return (vf32)_mm256_cvtph_ps((__m128i)h); }
// One bit per 32-bit lane of a comparison result.
XRNG_INLINE unsigned mask_bits(vi32 m) { return static_cast<unsigned>(_mm256_movemask_ps((__m256)m)); }
// (low 32 bits of a) | (low 32 bits of b) << 32 in each 64-bit lane.
XRNG_INLINE vu64 pack_lo32(vu64 a, vu64 b) {
  return (vu64)_mm256_blend_epi32((__m256i)a, _mm256_slli_epi64((__m256i)b, 32), 0xAA);
}
XRNG_INLINE void stream_store(void* p, const vu32& v) { _mm256_stream_si256(static_cast<__m256i*>(p), (__m256i)v); }
XRNG_INLINE void stream_fence() { _mm_sfence(); }
constexpr bool kNonTemporal = true;
// Narrowing (GCC's generic conversions scalarise these on AVX2).
XRNG_INLINE vu16h narrow16(vu32 v) {  // lanes <= 0xffff
  const __m256i x = (__m256i)v;
  return (vu16h)_mm_packus_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
}
XRNG_INLINE vu8q narrow8(vu32 v) {  // lanes <= 0xff
  const __m128i w = (__m128i)narrow16(v);
  return (vu8q)_mm_cvtsi128_si64(_mm_packus_epi16(w, w));
}
XRNG_INLINE vu32h trunc32(vu64 v) {  // low 32 bits of each lane
  const __m256i x = _mm256_permutevar8x32_epi32((__m256i)v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
  return (vu32h)_mm256_castsi256_si128(x);
}
constexpr Lanes<N64> kInterleaveLo = {{0, 4, 1, 5}}, kInterleaveHi = {{2, 6, 3, 7}};
constexpr Lanes<N64> kEven64 = {{0, 2, 4, 6}}, kOdd64 = {{1, 3, 5, 7}};
constexpr Lanes<N32> kInterleave32 = {{0, 4, 1, 5, 2, 6, 3, 7}};
constexpr Lanes<N32> kEven32 = {{0, 2, 4, 6, 8, 10, 12, 14}}, kOdd32 = {{1, 3, 5, 7, 9, 11, 13, 15}};
constexpr Lanes<N32> kZipLo32 = {{0, 8, 1, 9, 2, 10, 3, 11}}, kZipHi32 = {{4, 12, 5, 13, 6, 14, 7, 15}};

// Left-packing of the lanes selected by an 8-bit mask, through a table of
// lane indices (AVX2 has no compress instruction).
struct CompressTable {
  uint64_t idx[256];
  constexpr CompressTable() : idx() {
    for (unsigned m = 0; m < 256; ++m) {
      uint64_t v = 0;
      int k = 0;
      for (unsigned i = 0; i < 8; ++i)
        if (m & (1u << i)) v |= static_cast<uint64_t>(i) << (8 * k++);
      idx[m] = v;
    }
  }
};
constexpr CompressTable kCompress;
// Stores the selected lanes of v contiguously at p (writes a whole vector).
XRNG_INLINE void compress_store(uint32_t* p, vu32 v, unsigned m) {
  const __m256i sel = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kCompress.idx[m])));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_permutevar8x32_epi32((__m256i)v, sel));
}
#elif XRNG_SIMD_BYTES == 16
// AArch64 Advanced SIMD: 2 x 64-bit or 4 x 32-bit lanes per register.
// Low 32 bits of each 64-bit lane times low 32 bits: xtn, xtn, umull.
XRNG_INLINE vu64 mul32(vu64 a, vu64 b) {
  return (vu64)vmull_u32(vmovn_u64((uint64x2_t)a), vmovn_u64((uint64x2_t)b));
}
// math::fma_ (std::fma, one rounding): fmla. Only the calls of fma_ in the
// scalar templates reach this; a + b * c written with + and * stays two
// operations (vmulq, vaddq: -ffp-contract=off).
XRNG_INLINE vf64 vfma(vf64 a, vf64 b, vf64 c) { return (vf64)vfmaq_f64((float64x2_t)c, (float64x2_t)a, (float64x2_t)b); }
XRNG_INLINE vf64 vsqrt(vf64 a) { return (vf64)vsqrtq_f64((float64x2_t)a); }
XRNG_INLINE vf32 vsqrt32(vf32 a) { return (vf32)vsqrtq_f32((float32x4_t)a); }
XRNG_INLINE vf32 vfms32(vf32 a, vf32 b, vf32 c) {  // a * b - c rounded once: -(c - a b) = -fmls
  return (vf32)vnegq_f32(vfmsq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b));
}
// fcvtn / fcvtl: IEEE conversions in the FPCR's rounding mode (nearest even
// by default); a NaN keeps its sign and the top 10 bits of its payload and is
// quieted (FPCR.DN clear), as F16C's and as math::f32_to_f16_bits.
XRNG_INLINE vu16h f32_to_f16(vf32 x) { return (vu16h)vcvt_f16_f32((float32x4_t)x); }
XRNG_INLINE vf32 f16_to_f32(vu16h h) { return (vf32)vcvt_f32_f16((float16x4_t)h); }
// One bit per 32-bit lane of a comparison result (lanes all-ones or zero).
XRNG_INLINE unsigned mask_bits(vi32 m) {
  const uint32x4_t bit = {1u, 2u, 4u, 8u};
  return vaddvq_u32(vandq_u32((uint32x4_t)m, bit));
}
// (low 32 bits of a) | (low 32 bits of b) << 32: sli (shift left and insert).
XRNG_INLINE vu64 pack_lo32(vu64 a, vu64 b) { return (vu64)vsliq_n_u64((uint64x2_t)a, (uint64x2_t)b, 32); }
// No non-temporal store here (stnp is a hint that compilers do not expose as
// an intrinsic): ordinary stores, and nothing to fence.
XRNG_INLINE void stream_store(void* p, const vu32& v) { storeu(p, v); }
XRNG_INLINE void stream_fence() {}
constexpr bool kNonTemporal = false;  // fill.h writes straight to the output
XRNG_INLINE vu16h narrow16(vu32 v) { return (vu16h)vmovn_u32((uint32x4_t)v); }  // lanes <= 0xffff
XRNG_INLINE vu8q narrow8(vu32 v) {                                               // lanes <= 0xff
  const uint16x4_t h = vmovn_u32((uint32x4_t)v);
  const uint8x8_t b = vmovn_u16(vcombine_u16(h, h));
  return loadu<vu8q>(&b);  // the low 4 bytes
}
XRNG_INLINE vu32h trunc32(vu64 v) { return (vu32h)vmovn_u64((uint64x2_t)v); }  // low 32 bits of each lane
constexpr Lanes<N64> kInterleaveLo = {{0, 2}}, kInterleaveHi = {{1, 3}};
constexpr Lanes<N64> kEven64 = {{0, 2}}, kOdd64 = {{1, 3}};
constexpr Lanes<N32> kInterleave32 = {{0, 2, 1, 3}};
constexpr Lanes<N32> kEven32 = {{0, 2, 4, 6}}, kOdd32 = {{1, 3, 5, 7}};
constexpr Lanes<N32> kZipLo32 = {{0, 4, 1, 5}}, kZipHi32 = {{2, 6, 3, 7}};

// Left-packing of the lanes selected by a 4-bit mask: a byte table lookup
// (tbl) with the byte indices of the selected lanes first.
struct CompressTable {
  uint8_t idx[16][16];
  constexpr CompressTable() : idx() {
    for (unsigned m = 0; m < 16; ++m) {
      int k = 0;
      for (unsigned i = 0; i < 4; ++i)
        if (m & (1u << i)) {
          for (unsigned b = 0; b < 4; ++b) idx[m][4 * k + b] = static_cast<uint8_t>(4 * i + b);
          ++k;
        }
    }
  }
};
constexpr CompressTable kCompress;
// Stores the selected lanes of v contiguously at p (writes a whole vector).
XRNG_INLINE void compress_store(uint32_t* p, vu32 v, unsigned m) {
  storeu(p, (vu32)vqtbl1q_u8((uint8x16_t)v, vld1q_u8(kCompress.idx[m])));
}
#else
XRNG_INLINE vu64 mul32(vu64 a, vu64 b) { return (vu64)_mm512_mul_epu32((__m512i)a, (__m512i)b); }
XRNG_INLINE vf64 vfma(vf64 a, vf64 b, vf64 c) { return (vf64)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c); }
XRNG_INLINE vf64 vsqrt(vf64 a) { return (vf64)_mm512_sqrt_pd((__m512d)a); }
XRNG_INLINE vf32 vsqrt32(vf32 a) { return (vf32)_mm512_sqrt_ps((__m512)a); }
XRNG_INLINE vf32 vfms32(vf32 a, vf32 b, vf32 c) { return (vf32)_mm512_fmsub_ps((__m512)a, (__m512)b, (__m512)c); }
XRNG_INLINE vu16h f32_to_f16(vf32 x) { return (vu16h)_mm512_cvtps_ph((__m512)x, _MM_FROUND_TO_NEAREST_INT); }
XRNG_INLINE vf32 f16_to_f32(vu16h h) { return (vf32)_mm512_cvtph_ps((__m256i)h); }
XRNG_INLINE unsigned mask_bits(vi32 m) { return static_cast<unsigned>(_mm512_movepi32_mask((__m512i)m)); }
XRNG_INLINE vu64 pack_lo32(vu64 a, vu64 b) {
  return (vu64)_mm512_mask_blend_epi32(0xAAAA, (__m512i)a, _mm512_slli_epi64((__m512i)b, 32));
}
XRNG_INLINE void stream_store(void* p, const vu32& v) { _mm512_stream_si512(static_cast<__m512i*>(p), (__m512i)v); }
XRNG_INLINE void stream_fence() { _mm_sfence(); }
constexpr bool kNonTemporal = true;
XRNG_INLINE vu16h narrow16(vu32 v) { return (vu16h)_mm512_cvtepi32_epi16((__m512i)v); }
XRNG_INLINE vu8q narrow8(vu32 v) { return (vu8q)_mm512_cvtepi32_epi8((__m512i)v); }
XRNG_INLINE vu32h trunc32(vu64 v) { return (vu32h)_mm512_cvtepi64_epi32((__m512i)v); }
constexpr Lanes<N64> kInterleaveLo = {{0, 8, 1, 9, 2, 10, 3, 11}}, kInterleaveHi = {{4, 12, 5, 13, 6, 14, 7, 15}};
constexpr Lanes<N64> kEven64 = {{0, 2, 4, 6, 8, 10, 12, 14}}, kOdd64 = {{1, 3, 5, 7, 9, 11, 13, 15}};
constexpr Lanes<N32> kInterleave32 = {{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15}};
constexpr Lanes<N32> kEven32 = {{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30}};
constexpr Lanes<N32> kOdd32 = {{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31}};
constexpr Lanes<N32> kZipLo32 = {{0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23}};
constexpr Lanes<N32> kZipHi32 = {{8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31}};
XRNG_INLINE void compress_store(uint32_t* p, vu32 v, unsigned m) {
  _mm512_mask_compressstoreu_epi32(p, static_cast<__mmask16>(m), (__m512i)v);
}
#endif

// ---- lane types for the templates of rng/ --------------------------------------------------------
// DR<R>: R registers of N64 doubles and UR<R>: R registers of N64 uint64, the
// "double lane" and "64-bit integer lane" of rng/detail/math.h (see the
// contract at its top). W32<R>: R registers of N32 uint32, the 32-bit lane of
// the Feistel network in rng/permutation.h. Every operation is applied to the
// R registers one after the other, so one instantiation of a template carries
// R independent dependency chains: the long polynomial, divide/sqrt and
// multiply latencies of one register overlap with the work of the others.
template <int R>
struct DR {
  vf64 v[R];
  DR() = default;
  explicit DR(double x) {
    for (int r = 0; r < R; ++r) v[r] = bcast<vf64>(x);
  }
};
template <int R>
struct UR {
  vu64 v[R];
  UR() = default;
  explicit UR(uint64_t x) {
    for (int r = 0; r < R; ++r) v[r] = bcast<vu64>(x);
  }
};
template <int R>
struct W32 {
  vu32 v[R];
  W32() = default;
  explicit W32(uint32_t x) {
    for (int r = 0; r < R; ++r) v[r] = bcast<vu32>(x);
  }
};
// FR<R>: R registers of N32 binary32 values, the "binary32 lane" of
// rng/detail/math32.h (stream v2), with W32<R> as its uint32 lane.
template <int R>
struct FR {
  vf32 v[R];
  FR() = default;
  explicit FR(float x) {
    for (int r = 0; r < R; ++r) v[r] = bcast<vf32>(x);
  }
};
#define XRNG_LANE_BINOP(T, OP)                                 \
  template <int R>                                             \
  XRNG_INLINE T<R> operator OP(const T<R>& a, const T<R>& b) { \
    T<R> o;                                                    \
    for (int r = 0; r < R; ++r) o.v[r] = a.v[r] OP b.v[r];     \
    return o;                                                  \
  }
XRNG_LANE_BINOP(DR, +)
XRNG_LANE_BINOP(DR, -)
XRNG_LANE_BINOP(DR, *)
XRNG_LANE_BINOP(DR, /)
XRNG_LANE_BINOP(UR, +)
XRNG_LANE_BINOP(UR, -)
XRNG_LANE_BINOP(UR, &)
XRNG_LANE_BINOP(UR, |)
XRNG_LANE_BINOP(UR, ^)
XRNG_LANE_BINOP(W32, +)
XRNG_LANE_BINOP(W32, -)
XRNG_LANE_BINOP(W32, *)
XRNG_LANE_BINOP(W32, &)
XRNG_LANE_BINOP(W32, |)
XRNG_LANE_BINOP(W32, ^)
XRNG_LANE_BINOP(FR, +)
XRNG_LANE_BINOP(FR, -)
XRNG_LANE_BINOP(FR, *)
#undef XRNG_LANE_BINOP
#define XRNG_LANE_SHIFT(T, OP)                           \
  template <int R>                                       \
  XRNG_INLINE T<R> operator OP(const T<R>& a, int s) {   \
    T<R> o;                                              \
    for (int r = 0; r < R; ++r) o.v[r] = a.v[r] OP s;    \
    return o;                                            \
  }
XRNG_LANE_SHIFT(UR, <<)
XRNG_LANE_SHIFT(UR, >>)  // logical: unsigned lanes
XRNG_LANE_SHIFT(W32, >>)  // logical
XRNG_LANE_SHIFT(W32, <<)
#undef XRNG_LANE_SHIFT
template <int R>
XRNG_INLINE UR<R> operator~(const UR<R>& a) {
  UR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = ~a.v[r];
  return o;
}
template <int R>
XRNG_INLINE DR<R> fma_(const DR<R>& a, const DR<R>& b, const DR<R>& c) {
  DR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = vfma(a.v[r], b.v[r], c.v[r]);
  return o;
}
template <int R>
XRNG_INLINE DR<R> sqrt_(const DR<R>& a) {
  DR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = vsqrt(a.v[r]);
  return o;
}
// math::min_ / max_ lane by lane: the same comparison and selection as the
// scalar `b < a ? b : a` / `a < b ? b : a` (also for signed zeros).
template <int R>
XRNG_INLINE DR<R> min_(const DR<R>& a, const DR<R>& b) {
  DR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = b.v[r] < a.v[r] ? b.v[r] : a.v[r];
  return o;
}
template <int R>
XRNG_INLINE DR<R> max_(const DR<R>& a, const DR<R>& b) {
  DR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = a.v[r] < b.v[r] ? b.v[r] : a.v[r];
  return o;
}
template <int R>
XRNG_INLINE UR<R> as_u64(const DR<R>& a) {
  UR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = (vu64)a.v[r];
  return o;
}
template <int R>
XRNG_INLINE DR<R> as_f64(const UR<R>& a) {
  DR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = (vf64)a.v[r];
  return o;
}
// The free functions of math32.h's lane contract, lane by lane: the same
// IEEE operations (and the same comparisons) as the scalar forms there.
template <int R>
XRNG_INLINE FR<R> sqrt_(const FR<R>& a) {
  FR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = vsqrt32(a.v[r]);
  return o;
}
// On x86 one instruction each: MINPS / MAXPS (dst, src) return dst if dst < src
// (resp. dst > src), else src (equal values, zeros of either sign, a NaN:
// src), so minps(b, a) is `b < a ? b : a` and maxps(b, a) is `a < b ? b : a`
// in every case, NaNs and signed zeros included. (GCC emits a compare and a
// blend for the ?: form.)
template <int R>
XRNG_INLINE FR<R> min_(const FR<R>& a, const FR<R>& b) {
  FR<R> o;
  for (int r = 0; r < R; ++r) {
#if XRNG_SIMD_BYTES == 32
    o.v[r] = (vf32)_mm256_min_ps((__m256)b.v[r], (__m256)a.v[r]);
#elif XRNG_SIMD_BYTES == 64
    o.v[r] = (vf32)_mm512_min_ps((__m512)b.v[r], (__m512)a.v[r]);
#else
    o.v[r] = b.v[r] < a.v[r] ? b.v[r] : a.v[r];
#endif
  }
  return o;
}
template <int R>
XRNG_INLINE FR<R> max_(const FR<R>& a, const FR<R>& b) {
  FR<R> o;
  for (int r = 0; r < R; ++r) {
#if XRNG_SIMD_BYTES == 32
    o.v[r] = (vf32)_mm256_max_ps((__m256)b.v[r], (__m256)a.v[r]);
#elif XRNG_SIMD_BYTES == 64
    o.v[r] = (vf32)_mm512_max_ps((__m512)b.v[r], (__m512)a.v[r]);
#else
    o.v[r] = a.v[r] < b.v[r] ? b.v[r] : a.v[r];
#endif
  }
  return o;
}
template <int R>
XRNG_INLINE W32<R> lt_mask(const FR<R>& a, const FR<R>& b) {
  W32<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = (vu32)(a.v[r] < b.v[r]);
  return o;
}
template <int R>
XRNG_INLINE W32<R> as_u32(const FR<R>& a) {
  W32<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = (vu32)a.v[r];
  return o;
}
template <int R>
XRNG_INLINE FR<R> as_f32(const W32<R>& a) {
  FR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = (vf32)a.v[r];
  return o;
}
template <int R>
XRNG_INLINE W32<R> sra(const W32<R>& a, int s) {  // arithmetic: the lanes read as int32
  W32<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = (vu32)((vi32)a.v[r] >> s);
  return o;
}
template <int R>
XRNG_INLINE FR<R> cvt_i32(const W32<R>& a) {  // vcvtdq2ps; exact for |value| < 2^24 (all calls)
  FR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = __builtin_convertvector((vi32)a.v[r], vf32);
  return o;
}

// a - b lane by lane, wrapping modulo 2^32 as vpsubd / NEON's sub do (in
// unsigned lanes: a signed lane's overflow would be undefined behaviour).
// kernels.h's angle reductions take r - cvtt_i32(float(r)) with it: where
// float(r) rounds up to 2^31 the truncation gives 0x80000000 (below), and the
// wrapped difference is the exact r - 2^31.
XRNG_INLINE vi32 sub_wrap(vi32 a, vi32 b) { return (vi32)((vu32)a - (vu32)b); }

// Truncation to int32, lane by lane (vcvttps2dq: 0x80000000 for a value out
// of range, as kernels.h's sincos_turns_v2 relies on; NEON's fcvtzs saturates).
XRNG_INLINE vi32 cvtt_i32(vf32 x) {
#if XRNG_SIMD_BYTES == 64
  return (vi32)_mm512_cvttps_epi32((__m512)x);
#elif XRNG_SIMD_BYTES == 32
  return (vi32)_mm256_cvttps_epi32((__m256)x);
#else
  return __builtin_convertvector(x, vi32);
#endif
}

// x where bit 30 of m is set, else y (lane by lane): vptestmd and a masked
// blend on AVX-512, a shift and vblendvps (which reads the sign bit) on AVX2.
XRNG_INLINE vf32 select_bit30(vu32 m, vf32 x, vf32 y) {
#if XRNG_SIMD_BYTES == 64
  return (vf32)_mm512_mask_blend_ps(_mm512_test_epi32_mask((__m512i)m, _mm512_set1_epi32(0x40000000)), (__m512)y,
                                    (__m512)x);
#elif XRNG_SIMD_BYTES == 32
  return (vf32)_mm256_blendv_ps((__m256)y, (__m256)x, (__m256)(m << 1));
#else
  return (vi32)(m << 1) < 0 ? x : y;
#endif
}

// Extra attributes of the fused normal loop (fused.h). AVX2 with GCC: no
// temporary expression replacement (-fno-tree-ter), which otherwise expands
// each register's long dependency chain (the radius's Horner polynomial, ...)
// as one nested expression, register after register; kept as written, the
// four registers' operations stay interleaved, and the loop takes about 2 %
// less time on Zen 4 (1.26 -> 1.245 ns per value). Only this loop: the
// same flag on the whole AVX2 file made other kernels slower (exponential
// 1.67 -> 1.8, uniform 0.58 -> 0.67 ns per value). AVX-512 too since its
// radius and angle are written interleaved (kernels.h radius_angle_v2): with
// TER the loop ran at 0.887 against 0.879 ns per value without it (medians of
// seven alternated compare.py-style runs).
#if (XRNG_SIMD_BYTES == 32 || XRNG_SIMD_BYTES == 64) && defined(__GNUC__) && !defined(__clang__)
#define XRNG_FUSED_NORMAL_OPT __attribute__((optimize("no-tree-ter")))
#else
#define XRNG_FUSED_NORMAL_OPT
#endif

#if XRNG_SIMD_BYTES == 32
// x where the sign bit of m is set, else y (lane by lane): one vblendvps.
XRNG_INLINE vf32 select_sign(vu32 m, vf32 x, vf32 y) {
  return (vf32)_mm256_blendv_ps((__m256)y, (__m256)x, (__m256)m);
}
#endif

// One register: the lane types of the simple kernels.
using D = DR<1>;
using U = UR<1>;
XRNG_INLINE D dof(vf64 x) {
  D d;
  d.v[0] = x;
  return d;
}
XRNG_INLINE U uof(vu64 x) {
  U u;
  u.v[0] = x;
  return u;
}

// ---- integer and conversion helpers ----------------------------------------------------------------
// High 64 bits of x * r (128-bit product) from four 32x32 products; equals
// dist::mulhi64 lane by lane (both are the exact integer result).
XRNG_INLINE vu64 mulhi64(vu64 x, uint64_t r) {
  const vu64 rl = bcast<vu64>(r & kLo32), rh = bcast<vu64>(r >> 32);
  const vu64 xh = x >> 32;
  const vu64 ll = mul32(x, rl), lh = mul32(x, rh), hl = mul32(xh, rl), hh = mul32(xh, rh);
  const vu64 mid = (ll >> 32) + (lh & kLo32) + (hl & kLo32);  // < 3 * 2^32
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

// math::f32_to_bf16_bits lane by lane: the same integer expression, NaN first.
XRNG_INLINE vu16h f32_to_bf16(vf32 f) {
  const vu32 x = (vu32)f;
  const vi32 nan = (x & 0x7fffffffu) > 0x7f800000u;
  const vu32 rne = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const vu32 r = nan ? (x >> 16) | 0x0040u : rne;
  return narrow16(r);
}

}  // namespace
}  // namespace xrng::detail
