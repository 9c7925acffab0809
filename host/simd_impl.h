// The CPU vector backend, written once for both ISAs: simd_avx2.cpp includes
// it with XRNG_SIMD_BYTES = 32, simd_avx512.cpp with 64. Only the handful of
// intrinsics in the "ISA primitives" section differ; every kernel, and so every
// value, comes from the same source.
//
// Layout. Philox runs in structure-of-arrays form: lane i of a register holds
// counter word j of block base + i (in the low half of a 64-bit lane, so one
// vpmuludq forms the full 32x32 -> 64 product), so lane i always computes
// block base + i, whatever the vector width. The blocks are transposed into
// stream order in a small L1-resident buffer; the value kernels then read the
// words of group g at offset + K*g from that buffer, which makes any word
// offset, start element and count the same code path (no scalar head or tail:
// partial vectors are run on padded copies).
//
// Values. The double-precision transforms are the templates of rng/detail/math.h and
// rng/detail/distributions.h instantiated with the lane types DR<R> / UR<R> below
// (R registers of N64 lanes), so the operation sequence is the scalar one by
// construction. The few element
// functions that distributions.h writes only in scalar form (uniform,
// bernoulli, randint, f16/bf16 rounding) are re-expressed here with the same
// operations; the comment at each says why the result is the same, and
// tests/simd proves it (exhaustively over all 2^32 words where per-word).
//
// Everything is in an anonymous namespace: nothing compiled here with AVX
// enabled can be picked by the linker for a baseline caller (the ctest
// test_simd_symbols checks the objects export only their entry points).
//
// Like the scalar path, the results assume the default MXCSR (round to
// nearest, no FTZ/DAZ).
#pragma once

#if !defined(XRNG_SIMD_BYTES) || (XRNG_SIMD_BYTES != 32 && XRNG_SIMD_BYTES != 64)
#error "define XRNG_SIMD_BYTES as 32 (AVX2) or 64 (AVX-512) before including simd_impl.h"
#endif

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "simd_probe.h"
#include "xrng.h"

namespace xrng::detail {
namespace {

// min / max local to this translation unit. std::min / std::max would be
// instantiated here as weak (COMDAT) symbols compiled with AVX enabled, and in
// an unoptimised build the linker may pick this copy for baseline callers
// elsewhere (a SIGILL on a CPU without AVX); tests/simd/check_isa_symbols.cmake
// checks that these objects export nothing but their entry points.
template <class T>
XRNG_INLINE T lmin(T a, T b) { return b < a ? b : a; }
template <class T>
XRNG_INLINE T lmax(T a, T b) { return a < b ? b : a; }

using u128 = unsigned __int128;

constexpr int kBytes = XRNG_SIMD_BYTES;
constexpr int N64 = kBytes / 8;  // 64-bit lanes per register
constexpr int N32 = kBytes / 4;  // 32-bit lanes per register

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
template <class V, class S>
XRNG_INLINE V bcast(S x) {
  using E = std::remove_cvref_t<decltype(V{}[0])>;
  return V{} + static_cast<E>(x);  // vector + scalar: the scalar is broadcast
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

// ---- ISA primitives ----------------------------------------------------------------------------
#if XRNG_SIMD_BYTES == 32
// Low 32 bits of each 64-bit lane times low 32 bits: the full 64-bit product.
XRNG_INLINE vu64 mul32(vu64 a, vu64 b) { return (vu64)_mm256_mul_epu32((__m256i)a, (__m256i)b); }
XRNG_INLINE vf64 vfma(vf64 a, vf64 b, vf64 c) { return (vf64)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c); }
XRNG_INLINE vf64 vsqrt(vf64 a) { return (vf64)_mm256_sqrt_pd((__m256d)a); }
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
constexpr vu64 kInterleaveLo = {0, 4, 1, 5}, kInterleaveHi = {2, 6, 3, 7};
constexpr vu64 kEven64 = {0, 2, 4, 6}, kOdd64 = {1, 3, 5, 7};
constexpr vi32 kInterleave32 = {0, 4, 1, 5, 2, 6, 3, 7};

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
#else
XRNG_INLINE vu64 mul32(vu64 a, vu64 b) { return (vu64)_mm512_mul_epu32((__m512i)a, (__m512i)b); }
XRNG_INLINE vf64 vfma(vf64 a, vf64 b, vf64 c) { return (vf64)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c); }
XRNG_INLINE vf64 vsqrt(vf64 a) { return (vf64)_mm512_sqrt_pd((__m512d)a); }
XRNG_INLINE vu16h f32_to_f16(vf32 x) { return (vu16h)_mm512_cvtps_ph((__m512)x, _MM_FROUND_TO_NEAREST_INT); }
XRNG_INLINE vf32 f16_to_f32(vu16h h) { return (vf32)_mm512_cvtph_ps((__m256i)h); }
XRNG_INLINE unsigned mask_bits(vi32 m) { return static_cast<unsigned>(_mm512_movepi32_mask((__m512i)m)); }
XRNG_INLINE vu64 pack_lo32(vu64 a, vu64 b) {
  return (vu64)_mm512_mask_blend_epi32(0xAAAA, (__m512i)a, _mm512_slli_epi64((__m512i)b, 32));
}
XRNG_INLINE void stream_store(void* p, const vu32& v) { _mm512_stream_si512(static_cast<__m512i*>(p), (__m512i)v); }
XRNG_INLINE vu16h narrow16(vu32 v) { return (vu16h)_mm512_cvtepi32_epi16((__m512i)v); }
XRNG_INLINE vu8q narrow8(vu32 v) { return (vu8q)_mm512_cvtepi32_epi8((__m512i)v); }
XRNG_INLINE vu32h trunc32(vu64 v) { return (vu32h)_mm512_cvtepi64_epi32((__m512i)v); }
constexpr vu64 kInterleaveLo = {0, 8, 1, 9, 2, 10, 3, 11}, kInterleaveHi = {4, 12, 5, 13, 6, 14, 7, 15};
constexpr vu64 kEven64 = {0, 2, 4, 6, 8, 10, 12, 14}, kOdd64 = {1, 3, 5, 7, 9, 11, 13, 15};
constexpr vi32 kInterleave32 = {0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15};
XRNG_INLINE void compress_store(uint32_t* p, vu32 v, unsigned m) {
  _mm512_mask_compressstoreu_epi32(p, static_cast<__mmask16>(m), (__m512i)v);
}
#endif

// ---- lane types for the templates of rng/detail/math.h ------------------------------------------------
// DR<R>: R registers of N64 doubles, UR<R>: R registers of N64 uint64 (see
// the contract at the top of rng/detail/math.h). Every operation is applied to the R
// registers one after the other, so one instantiation of a math.h template
// carries R independent dependency chains: the long polynomial and
// divide/sqrt latencies of one register overlap with the work of the others.
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
#define XRNG_LANE_BINOP(T, OP)                               \
  template <int R>                                           \
  XRNG_INLINE T<R> operator OP(const T<R>& a, const T<R>& b) { \
    T<R> o;                                                  \
    for (int r = 0; r < R; ++r) o.v[r] = a.v[r] OP b.v[r];   \
    return o;                                                \
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
#undef XRNG_LANE_BINOP
template <int R>
XRNG_INLINE UR<R> operator~(const UR<R>& a) {
  UR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = ~a.v[r];
  return o;
}
template <int R>
XRNG_INLINE UR<R> operator<<(const UR<R>& a, int s) {
  UR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = a.v[r] << s;
  return o;
}
template <int R>
XRNG_INLINE UR<R> operator>>(const UR<R>& a, int s) {  // logical: unsigned lanes
  UR<R> o;
  for (int r = 0; r < R; ++r) o.v[r] = a.v[r] >> s;
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

// ---- integer helpers ----------------------------------------------------------------------------
constexpr uint64_t kLo32 = 0xffffffffull;

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
  }
};

// Words of blocks b .. b + kBatchBlocks - 1 of the stream, in stream order.
__attribute__((flatten)) XRNG_INLINE void philox_batch(const PhiloxKeys& k, uint64_t b, uint32_t* out) {
  vu64 c0[kRegs], c1[kRegs], c2[kRegs], c3[kRegs];
  for (int r = 0; r < kRegs; ++r) {
    const vu64 blk = iota<vu64>() + (b + static_cast<uint64_t>(r * N64));
    c0[r] = blk;  // only the low 32 bits of a lane are ever read (mul32, pack_lo32)
    c1[r] = blk >> 32;
    c2[r] = k.ctr2;
    c3[r] = k.ctr3;
  }
  const vu64 m0 = bcast<vu64>(uint64_t{kPhiloxM0}), m1 = bcast<vu64>(uint64_t{kPhiloxM1});
#pragma GCC unroll 10
  for (int round = 0; round < 10; ++round) {
    for (int r = 0; r < kRegs; ++r) {
      // philox_round: products keep lo in the low half; the high half (hi)
      // there is don't-care for the next round, which reads low halves only.
      const vu64 p0 = mul32(c0[r], m0), p1 = mul32(c2[r], m1);
      c0[r] = (p1 >> 32) ^ c1[r] ^ k.k0[round];
      c1[r] = p1;
      c2[r] = (p0 >> 32) ^ c3[r] ^ k.k1[round];
      c3[r] = p0;
    }
  }
  for (int r = 0; r < kRegs; ++r) {
    const vu64 a = pack_lo32(c0[r], c1[r]), bb = pack_lo32(c2[r], c3[r]);  // words 0,1 | words 2,3
    storeu(out + r * 4 * N64, __builtin_shuffle(a, bb, kInterleaveLo));
    storeu(out + r * 4 * N64 + 2 * N64, __builtin_shuffle(a, bb, kInterleaveHi));
  }
}

// A window of stream words in an L1-resident buffer, refilled in whole
// batches of blocks; words beyond `end` (the call's last word) are generated
// only to complete a batch.
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
      philox_batch(keys, static_cast<uint64_t>(w1 >> 2), buf + static_cast<size_t>(w1 - w0));
      w1 += kBatchWords;
    }
    return buf + static_cast<size_t>(w - w0);
  }
};

// ---- value kernels -------------------------------------------------------------------------------
// Kernel<dist, dtype>: S groups per step, each group G elements from K words
// (G and K as Group<dist, dtype> in rng/registry.h). step() reads S*K words and
// writes S*G elements.
template <Dist DI, DType T>
struct Kernel;

template <>
struct Kernel<Dist::bits, DType::u32> {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan&, uint32_t* o) { storeu(o, loadu<vu32>(w)); }
};
template <>
struct Kernel<Dist::bits, DType::u64> {
  static constexpr int S = N64;  // dist::bits_u64: w0 | w1 << 32 is the little-endian pair
  static void step(const uint32_t* w, const Plan&, uint64_t* o) { storeu(o, loadu<vu64>(w)); }
};

// dist::uniform_f32/f16/bf16: u = (w >> shift) * 2^-bits in double (exact),
// y = float(uniform_affine(u)), rounded once by vcvtpd2ps (RNE, as the
// scalar cast). Returned for all N32 words of a step.
template <int kShift>
XRNG_INLINE vf32 uniform_f32_lanes(vu32 x, const UniformParams& p) {
  constexpr double kScale = 1.0 / static_cast<double>(1ull << (32 - kShift));
  vf32h y[2];
  for (int h = 0; h < 2; ++h) {
    const vi32h m = (vi32h)(half<vu32h>(x, h) >> kShift);  // < 2^24: the signed conversion is exact
    const D u = dof(__builtin_convertvector(m, vf64) * kScale);
    y[h] = __builtin_convertvector(dist::uniform_affine<D, U>(u, p).v[0], vf32h);
  }
  return concat<vf32>(y[0], y[1]);
}

template <>
struct Kernel<Dist::uniform, DType::f32> {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan& pl, float* o) {
    const UniformParams& p = pl.uniform;
    const vu32 x = loadu<vu32>(w);
    if (p.unit) {
      // low = 0 (or -0), width = 1: the scalar path computes float(0 + u * 1)
      // = u exactly (u has 24 bits), and u < 1 = high. (w >> 8) * 2^-24 in
      // binary32 is the same exact value.
      storeu(o, __builtin_convertvector((vi32)(x >> 8), vf32) * 0x1p-24f);
      return;
    }
    const vf32 y = uniform_f32_lanes<8>(x, p);
    const vf32 hi = bcast<vf32>(static_cast<float>(p.high));
    const vf32 below = bcast<vf32>(static_cast<float>(p.below_high));
    storeu(o, y >= hi ? below : y);
  }
};
template <>
struct Kernel<Dist::uniform, DType::f64> {
  static constexpr int S = N64;
  static void step(const uint32_t* w, const Plan& pl, double* o) {
    const UniformParams& p = pl.uniform;
    const vu64 m = loadu<vu64>(w) >> 11;  // bits_u64(w0, w1) >> 11 < 2^53
    // double(m) exactly: both halves convert exactly, hi * 2^32 is exact, and
    // the sum is an integer below 2^53, so the addition is exact too.
    const D hi = math::u52_to_f64<D, U>(uof(m >> 32)) * D(4294967296.0);
    const D lo = math::u52_to_f64<D, U>(uof(m & kLo32));
    const D u = (hi + lo) * D(0x1p-53);
    const vf64 y = dist::uniform_affine<D, U>(u, p).v[0];
    storeu(o, y >= p.high ? bcast<vf64>(p.below_high) : y);
  }
};
template <>
struct Kernel<Dist::uniform, DType::f16> {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan& pl, uint16_t* o) {
    const UniformParams& p = pl.uniform;
    const vu16h h = f32_to_f16(uniform_f32_lanes<21>(loadu<vu32>(w), p));
    const vi32 ge = f16_to_f32(h) >= static_cast<float>(p.high);
    const vu32 r = ge ? bcast<vu32>(p.below_high_bits) : __builtin_convertvector(h, vu32);
    storeu(o, narrow16(r));
  }
};
template <>
struct Kernel<Dist::uniform, DType::bf16> {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan& pl, uint16_t* o) {
    const UniformParams& p = pl.uniform;
    const vu16h b = f32_to_bf16(uniform_f32_lanes<24>(loadu<vu32>(w), p));
    const vu32 b32 = __builtin_convertvector(b, vu32);
    const vi32 ge = (vf32)(b32 << 16) >= static_cast<float>(p.high);  // bf16_bits_to_f32
    const vu32 r = ge ? bcast<vu32>(p.below_high_bits) : b32;
    storeu(o, narrow16(r));
  }
};

// Normal pairs: dist::normal_pair_f32_core on kNormalRegs * N64 pairs at
// once, rounded to binary32 by vcvtpd2ps (the scalar static_cast<float>),
// interleaved z0, z1. Writes kNormalRegs vectors of N32 floats.
constexpr int kNormalRegs = 4;
XRNG_INLINE void normal_f32_lanes(const uint32_t* w, const NormalParams& p, vf32* out) {
  constexpr int R = kNormalRegs;
  UR<R> a, b;
  for (int r = 0; r < R; ++r) {
    const vu64 x = loadu<vu64>(w + 2 * N64 * r);  // lane g: w[2g] | w[2g+1] << 32
    a.v[r] = x & kLo32;
    b.v[r] = x >> 32;
  }
  DR<R> z0, z1;
  dist::normal_pair_f32_core<DR<R>, UR<R>>(a, b, DR<R>(p.mean), DR<R>(p.std), &z0, &z1);
  for (int r = 0; r < R; ++r) {
    const vf32 c =
        concat<vf32>(__builtin_convertvector(z0.v[r], vf32h), __builtin_convertvector(z1.v[r], vf32h));
    out[r] = __builtin_shuffle(c, kInterleave32);
  }
}
// normal f32 / f16 / bf16: the binary32 pairs of normal_f32_lanes, stored as
// they are or rounded to 16 bits (dist::normal_f16 / normal_bf16).
template <DType T>
struct NormalNarrowKernel {
  static constexpr int S = kNormalRegs * N64;
  template <class O>
  static void step(const uint32_t* w, const Plan& pl, O* o) {
    vf32 z[kNormalRegs];
    normal_f32_lanes(w, pl.normal, z);
    for (int r = 0; r < kNormalRegs; ++r) {
      if constexpr (T == DType::f32)
        storeu(o + r * N32, z[r]);
      else if constexpr (T == DType::f16)
        storeu(o + r * N32, f32_to_f16(z[r]));
      else
        storeu(o + r * N32, f32_to_bf16(z[r]));
    }
  }
};
template <>
struct Kernel<Dist::normal, DType::f32> : NormalNarrowKernel<DType::f32> {};
template <>
struct Kernel<Dist::normal, DType::f16> : NormalNarrowKernel<DType::f16> {};
template <>
struct Kernel<Dist::normal, DType::bf16> : NormalNarrowKernel<DType::bf16> {};
template <>
struct Kernel<Dist::normal, DType::f64> {
  static constexpr int S = kNormalRegs * N64;
  static void step(const uint32_t* w, const Plan& pl, double* o) {
    constexpr int R = kNormalRegs;
    UR<R> a, b;
    for (int r = 0; r < R; ++r) {
      const vu64 x0 = loadu<vu64>(w + 4 * N64 * r), x1 = loadu<vu64>(w + 4 * N64 * r + 2 * N64);  // a0 b0 a1 b1..
      a.v[r] = __builtin_shuffle(x0, x1, kEven64);
      b.v[r] = __builtin_shuffle(x0, x1, kOdd64);
    }
    DR<R> z0, z1;
    dist::normal_pair_f64_core<DR<R>, UR<R>>(a, b, DR<R>(pl.normal.mean), DR<R>(pl.normal.std), &z0, &z1);
    for (int r = 0; r < R; ++r) {
      storeu(o + 2 * N64 * r, __builtin_shuffle(z0.v[r], z1.v[r], kInterleaveLo));
      storeu(o + 2 * N64 * r + N64, __builtin_shuffle(z0.v[r], z1.v[r], kInterleaveHi));
    }
  }
};

// dist::bernoulli_u8: word < threshold, compared as unsigned integers.
template <>
struct Kernel<Dist::bernoulli, DType::u8> {
  static constexpr int S = N32;
  static void step(const uint32_t* w, const Plan& pl, uint8_t* o) {
    const uint64_t th = pl.bernoulli.threshold;
    vu32 r;
    if (th > kLo32) {
      r = bcast<vu32>(1u);  // threshold 2^32: every word is below it
    } else {
      r = (vu32)(loadu<vu32>(w) < static_cast<uint32_t>(th)) & 1u;
    }
    storeu(o, narrow8(r));
  }
};

// dist::randint_i32: low 32 bits of low + mulhi64(w0 | w1 << 32, range).
template <>
struct Kernel<Dist::randint, DType::i32> {
  static constexpr int S = N64;
  static void step(const uint32_t* w, const Plan& pl, int32_t* o) {
    const vu64 v = mulhi64(loadu<vu64>(w), pl.randint.range) + static_cast<uint64_t>(pl.randint.low);
    storeu(o, trunc32(v));
  }
};
// dist::randint_i64: (hi * range + mulhi(lo, range)) >> 64 with the carry.
template <>
struct Kernel<Dist::randint, DType::i64> {
  static constexpr int S = N64;
  static void step(const uint32_t* w, const Plan& pl, int64_t* o) {
    const uint64_t range = pl.randint.range;
    const vu64 x0 = loadu<vu64>(w), x1 = loadu<vu64>(w + 2 * N64);  // lo0 hi0 lo1 hi1 ...
    const vu64 lo = __builtin_shuffle(x0, x1, kEven64), hi = __builtin_shuffle(x0, x1, kOdd64);
    const vu64 t = mulhi64(lo, range);
    const vu64 hl = hi * range;
    const vu64 hh = mulhi64(hi, range);
    const vu64 carry = (vu64)((hl + t) < hl);  // all ones where the sum wraps
    storeu(o, hh - carry + static_cast<uint64_t>(pl.randint.low));
  }
};

template <Dist DI, DType T>
using out_of = typename Row<DI, T>::out_t;

// n groups from words w (n*K words, nothing read beyond) into o (n*G elements).
template <Dist DI, DType T>
__attribute__((flatten)) void run_groups(const uint32_t* w, uint64_t n, const Plan& p, out_of<DI, T>* o) {
  using Kn = Kernel<DI, T>;
  constexpr uint64_t K = Row<DI, T>::kWords, G = Row<DI, T>::kGroup, S = Kn::S;
  uint64_t i = 0;
  for (; i + S <= n; i += S) Kn::step(w + i * K, p, o + i * G);
  if (i < n) {  // a partial step on a padded copy
    alignas(64) uint32_t tw[S * K] = {};
    alignas(64) out_of<DI, T> to[S * G];
    std::memcpy(tw, w + i * K, (n - i) * K * sizeof(uint32_t));
    Kn::step(tw, p, to);
    std::memcpy(o + i * G, to, (n - i) * G * sizeof(to[0]));
  }
}

// Copies with non-temporal stores (the destination is not read back soon and
// does not fit in cache); unaligned edges with ordinary stores.
void stream_copy(void* dst, const void* src, size_t bytes) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  size_t head = (kBytes - reinterpret_cast<uintptr_t>(d) % kBytes) % kBytes;
  head = lmin(head, bytes);
  std::memcpy(d, s, head);
  size_t i = head;
  for (; i + kBytes <= bytes; i += kBytes) stream_store(d + i, loadu<vu32>(s + i));
  std::memcpy(d + i, s + i, bytes - i);
}

// Calls larger than this (per thread) bypass the caches on the way out.
constexpr uint64_t kStreamBytes = uint64_t{4} << 20;

template <Dist DI, DType T>
void fill_kernel(const Plan& p, const Stream& s, uint64_t off, uint64_t start, uint64_t count, void* outv) {
  using out_t = out_of<DI, T>;
  constexpr uint64_t K = Row<DI, T>::kWords, G = Row<DI, T>::kGroup;
  constexpr uint64_t kTileGroups = kTileWords / K;
  out_t* o = static_cast<out_t*>(outv);
  const u128 end = static_cast<u128>(start) + count;
  const u128 g_end = (end + G - 1) / G;
  WordSource src(s, static_cast<u128>(off) + g_end * K);
  auto words = [&](u128 g, uint64_t n) { return src.get(static_cast<uint64_t>(off + g * K), n * K); };

  // A group cut by start or end: evaluated whole, the wanted elements copied.
  auto partial = [&](u128 g, uint64_t from, uint64_t to) {
    out_t tmp[G];
    run_groups<DI, T>(words(g, 1), 1, p, tmp);
    std::memcpy(o, tmp + from, (to - from) * sizeof(out_t));
    o += to - from;
  };
  u128 g = start / G;
  if (start % G != 0) {
    const uint64_t from = start % G;
    partial(g, from, static_cast<uint64_t>(lmin<u128>(G, from + static_cast<u128>(count))));
    ++g;
  }
  const u128 g_full = end / G;
  const bool nt = count * sizeof(out_t) >= kStreamBytes;
  alignas(64) out_t stage[kTileGroups * G];
  while (g < g_full) {
    const uint64_t n = static_cast<uint64_t>(lmin<u128>(kTileGroups, g_full - g));
    if (nt) {
      run_groups<DI, T>(words(g, n), n, p, stage);
      stream_copy(o, stage, n * G * sizeof(out_t));
    } else {
      run_groups<DI, T>(words(g, n), n, p, o);
    }
    o += n * G;
    g += n;
  }
  if (end % G != 0 && g_full * G >= start) partial(g_full, 0, static_cast<uint64_t>(end % G));
  if (nt) _mm_sfence();
}


// ---- permutations --------------------------------------------------------------------------------
// feistel_forward and the cycle walk of rng/permutation.h on N32 lanes: each
// lane holds the halves (l, r) of one element's walk in 32-bit lanes.
struct PermLanes {
  vu32 key[kPermRounds];
  vu32 mask, nl, nr;  // n = nl * 2^h + nr
  int h;

  explicit PermLanes(const PermKey& k) : h(static_cast<int>(k.half_bits)) {
    for (int i = 0; i < kPermRounds; ++i) key[i] = bcast<vu32>(k.round_key[i]);
    mask = bcast<vu32>(k.half_mask);
    // n <= 2^(2h), so n >> h <= 2^h fits 32 bits (2^32 would need n = 2^64).
    nl = bcast<vu32>(static_cast<uint32_t>(k.n >> k.half_bits));
    nr = bcast<vu32>(static_cast<uint32_t>(k.n & k.half_mask));
  }
  // One pass of the network (detail::feistel_f per round) on R independent
  // vectors, interleaved round by round: a round is a chain of two multiplies
  // and eight dependent bit operations, so one vector alone is latency bound.
  template <int R>
  XRNG_INLINE void forward(vu32 (&l)[R], vu32 (&r)[R]) const {
#pragma GCC unroll 8
    for (int i = 0; i < kPermRounds; ++i) {
      for (int j = 0; j < R; ++j) {
        vu32 x = r[j] ^ key[i];
        x ^= x >> 16;
        x *= 0x85ebca6bu;
        x ^= x >> 13;
        x *= 0xc2b2ae35u;
        x ^= x >> 16;
        const vu32 nlft = r[j];
        r[j] = (l[j] + x) & mask;  // modular addition, as feistel_forward
        l[j] = nlft;
      }
    }
  }
  // (l << h | r) < n
  XRNG_INLINE vi32 inside(vu32 l, vu32 r) const { return (l < nl) | ((l == nl) & (r < nr)); }
  // Halves of the N32 indices base, base + 1, ...
  XRNG_INLINE void split(uint64_t base, vu32& l, vu32& r) const {
    vu32h lh[2], rh[2];
    for (int j = 0; j < 2; ++j) {
      const vu64 idx = iota<vu64>() + (base + static_cast<uint64_t>(j * N64));
      lh[j] = trunc32(idx >> h);
      rh[j] = trunc32(idx & static_cast<uint64_t>(mask[0]));
    }
    l = concat<vu32>(lh[0], lh[1]);
    r = concat<vu32>(rh[0], rh[1]);
  }
};

// Writes the N32 values (l << h | r) to o as OutT.
template <class OutT>
XRNG_INLINE void perm_store(OutT* o, vu32 l, vu32 r, int h) {
  if constexpr (sizeof(OutT) == 8) {
    for (int j = 0; j < 2; ++j) {
      const vu64 v = (__builtin_convertvector(half<vu32h>(l, j), vu64) << h) |
                     __builtin_convertvector(half<vu32h>(r, j), vu64);
      storeu(o + j * N64, v);
    }
  } else {
    storeu(o, (l << h) | r);  // 32-bit outputs: n <= 2^32, so h <= 16
  }
}

// Elements [start, start + count) of the permutation. The first pass runs on
// consecutive indices and stores whole vectors; the lanes that left [0, n)
// are left-packed into a pending list that further passes walk on, full
// vectors at a time, scattering each element when its walk ends.
template <class OutT>
void perm_kernel(const PermKey& k, uint64_t start, uint64_t count, OutT* out) {
  constexpr int R = 4;  // vectors per pass
  constexpr uint64_t V = R * N32;
  const PermLanes pl(k);
  constexpr uint64_t kT = 1024;
  alignas(64) uint32_t pi[kT + V], pli[kT + V], pri[kT + V];
  const vu32 lane = iota<vu32>();
  for (uint64_t t0 = 0; t0 < count; t0 += kT) {
    const uint64_t tn = lmin<uint64_t>(kT, count - t0);
    uint64_t np = 0;
    for (uint64_t j = 0; j < tn; j += V) {
      vu32 l[R], r[R];
      for (int v = 0; v < R; ++v) pl.split(start + t0 + j + v * N32, l[v], r[v]);
      pl.forward<R>(l, r);
      for (int v = 0; v < R; ++v) {
        const uint64_t jv = j + v * N32;
        if (jv >= tn) break;
        if (jv + N32 <= tn) {
          perm_store(out + t0 + jv, l[v], r[v], pl.h);
        } else {
          OutT tmp[N32];
          perm_store(tmp, l[v], r[v], pl.h);
          std::memcpy(out + t0 + jv, tmp, (tn - jv) * sizeof(OutT));
        }
        const vi32 valid = lane < static_cast<uint32_t>(tn - jv);
        const unsigned rej = mask_bits(~pl.inside(l[v], r[v]) & valid);
        if (rej) {
          compress_store(pi + np, lane + static_cast<uint32_t>(jv), rej);
          compress_store(pli + np, l[v], rej);
          compress_store(pri + np, r[v], rej);
          np += static_cast<uint64_t>(__builtin_popcount(rej));
        }
      }
    }
    while (np != 0) {
      uint64_t wp = 0;  // in place: wp <= q, and a step reads its lanes before it writes
      for (uint64_t q = 0; q < np; q += V) {
        vu32 idx[R], l[R], r[R];
        for (int v = 0; v < R; ++v) {
          idx[v] = loadu<vu32>(pi + q + v * N32);
          l[v] = loadu<vu32>(pli + q + v * N32);
          r[v] = loadu<vu32>(pri + q + v * N32);
        }
        pl.forward<R>(l, r);
        for (int v = 0; v < R; ++v) {
          const uint64_t qv = q + v * N32;
          if (qv >= np) break;
          const vi32 valid = lane < static_cast<uint32_t>(lmin<uint64_t>(N32, np - qv));
          const vi32 in = pl.inside(l[v], r[v]);
          unsigned acc = mask_bits(in & valid);
          const unsigned rej = mask_bits(~in & valid);
          if (acc) {
            alignas(64) uint32_t li[N32], ri[N32], ii[N32];
            storeu(li, l[v]);
            storeu(ri, r[v]);
            storeu(ii, idx[v]);
            while (acc) {
              const int i = __builtin_ctz(acc);
              acc &= acc - 1;
              out[t0 + ii[i]] = static_cast<OutT>((static_cast<uint64_t>(li[i]) << pl.h) | ri[i]);
            }
          }
          if (rej) {
            compress_store(pi + wp, idx[v], rej);
            compress_store(pli + wp, l[v], rej);
            compress_store(pri + wp, r[v], rej);
            wp += static_cast<uint64_t>(__builtin_popcount(rej));
          }
        }
      }
      np = wp;
    }
  }
}

// ---- entry points ---------------------------------------------------------------------------------
// Rows with a SIMD kernel run it; any other row returns false and the caller
// runs the scalar element function (bit-identical, only slower).
template <class R>
concept HasKernel = R::kind == Kind::element && R::version == 1 && requires { Kernel<R::dist, R::dtype>::S; };

bool fill_impl(const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out) {
  bool done = false;
  visit_row(plan, [&]<class R>() {
    if constexpr (HasKernel<R>) {
      if (count != 0) fill_kernel<R::dist, R::dtype>(plan, s, offset, start, count, out);
      done = true;
    }
  });
  return done;
}

bool perm_impl(const PermKey& k, uint64_t start, uint64_t count, DType t, void* out) {
  switch (t) {
    case DType::i64: perm_kernel(k, start, count, static_cast<int64_t*>(out)); return true;
    case DType::u64: perm_kernel(k, start, count, static_cast<uint64_t*>(out)); return true;
    case DType::i32: perm_kernel(k, start, count, static_cast<int32_t*>(out)); return true;
    case DType::u32: perm_kernel(k, start, count, static_cast<uint32_t*>(out)); return true;
    default: return false;
  }
}

bool probe_impl(Probe which, const Plan& plan, const uint32_t* in, size_t n, void* out) {
  switch (which) {
    case Probe::radius32:
    case Probe::sincos32: {
      double* o = static_cast<double*>(out);
      for (size_t i = 0; i < n; i += N64) {
        alignas(64) uint32_t w[N64] = {};
        const size_t m = lmin<size_t>(N64, n - i);
        std::memcpy(w, in + i, m * sizeof(uint32_t));
        const U x = uof(__builtin_convertvector(loadu<vu32h>(w), vu64));
        alignas(64) double r[2 * N64];
        if (which == Probe::radius32) {
          storeu(r, math::box_muller_radius<32, D, U>(x).v[0]);
          std::memcpy(o + i, r, m * sizeof(double));
        } else {
          D c, sn;
          math::sincos_turns<32, D, U>(x, &c, &sn);
          storeu(r, __builtin_shuffle(c.v[0], sn.v[0], kInterleaveLo));
          storeu(r + N64, __builtin_shuffle(c.v[0], sn.v[0], kInterleaveHi));
          std::memcpy(o + 2 * i, r, 2 * m * sizeof(double));
        }
      }
      return true;
    }
    case Probe::uniform_f32:
      run_groups<Dist::uniform, DType::f32>(in, n, plan, static_cast<float*>(out));
      return true;
    case Probe::uniform_f16:
      run_groups<Dist::uniform, DType::f16>(in, n, plan, static_cast<uint16_t*>(out));
      return true;
    case Probe::uniform_bf16:
      run_groups<Dist::uniform, DType::bf16>(in, n, plan, static_cast<uint16_t*>(out));
      return true;
    case Probe::f32_to_f16:
    case Probe::f32_to_bf16: {
      uint16_t* o = static_cast<uint16_t*>(out);
      for (size_t i = 0; i < n; i += N32) {
        alignas(64) uint32_t w[N32] = {};
        const size_t m = lmin<size_t>(N32, n - i);
        std::memcpy(w, in + i, m * sizeof(uint32_t));
        const vf32 f = loadu<vf32>(w);
        alignas(64) uint16_t r[N32];
        storeu(r, which == Probe::f32_to_f16 ? f32_to_f16(f) : f32_to_bf16(f));
        std::memcpy(o + i, r, m * sizeof(uint16_t));
      }
      return true;
    }
  }
  return false;
}

}  // namespace
}  // namespace xrng::detail
