// A draw: which distribution, which output type, which parameters. A Plan is
// a validated, plain-value description of a draw that every backend (scalar,
// SIMD, CUDA) evaluates with the same element functions.
#pragma once

#include "distributions.h"
#include "permutation.h"

namespace xrng {

enum class Dist : uint8_t { bits, uniform, normal, bernoulli, randint, perm, dropout };
enum class DType : uint8_t { u32, u64, f32, f64, f16, bf16, i32, i64, u8 };

XRNG_HD constexpr int dtype_size(DType t) {
  return t == DType::u8 ? 1
         : (t == DType::f16 || t == DType::bf16) ? 2
         : (t == DType::u64 || t == DType::f64 || t == DType::i64) ? 8
                                                                    : 4;
}

struct Plan {
  Dist dist = Dist::bits;
  DType dtype = DType::u32;
  uint32_t group = 1;  // elements per group
  uint32_t words = 1;  // words per group (perm: the words of its key)
  UniformParams uniform;
  NormalParams normal;
  BernoulliParams bernoulli;
  RandintParams randint;
  uint64_t n = 0;  // perm: the permutation's size
};

// Words consumed by a draw of `count` elements (elements [0, count) or any
// other `count` consecutive elements starting at a group boundary).
XRNG_HD XRNG_INLINE uint64_t plan_words(const Plan& p, uint64_t count) {
  if (p.dist == Dist::perm) return p.words;
  return p.words * ((count / p.group) + (count % p.group != 0 ? 1u : 0u));
}

// ---- typed group functors ------------------------------------------------------------
// Group<dist, dtype>::eval(words, plan, out) writes the group's G values.
template <Dist D, DType T>
struct Group;

#define XRNG_GROUP(DIST, DTYPE, OUT_T, G, K, BODY)                                  \
  template <>                                                                        \
  struct Group<Dist::DIST, DType::DTYPE> {                                           \
    using out_t = OUT_T;                                                             \
    static constexpr uint32_t kGroup = G;                                            \
    static constexpr uint32_t kWords = K;                                            \
    XRNG_HD XRNG_INLINE static void eval(const uint32_t* w, const Plan& p, out_t* o) { \
      (void)p;                                                                       \
      BODY;                                                                          \
    }                                                                                \
  };

XRNG_GROUP(bits, u32, uint32_t, 1, 1, o[0] = dist::bits_u32(w[0]))
XRNG_GROUP(bits, u64, uint64_t, 1, 2, o[0] = dist::bits_u64(w[0], w[1]))
XRNG_GROUP(uniform, f32, float, 1, 1, o[0] = dist::uniform_f32(w[0], p.uniform))
XRNG_GROUP(uniform, f64, double, 1, 2, o[0] = dist::uniform_f64(w[0], w[1], p.uniform))
XRNG_GROUP(uniform, f16, uint16_t, 1, 1, o[0] = dist::uniform_f16(w[0], p.uniform))
XRNG_GROUP(uniform, bf16, uint16_t, 1, 1, o[0] = dist::uniform_bf16(w[0], p.uniform))
XRNG_GROUP(normal, f32, float, 2, 2, dist::normal_f32(w[0], w[1], p.normal, o))
XRNG_GROUP(normal, f64, double, 2, 4, dist::normal_f64(w, p.normal, o))
XRNG_GROUP(normal, f16, uint16_t, 2, 2, dist::normal_f16(w[0], w[1], p.normal, o))
XRNG_GROUP(normal, bf16, uint16_t, 2, 2, dist::normal_bf16(w[0], w[1], p.normal, o))
XRNG_GROUP(bernoulli, u8, uint8_t, 1, 1, o[0] = dist::bernoulli_u8(w[0], p.bernoulli))
XRNG_GROUP(randint, i32, int32_t, 1, 2, o[0] = dist::randint_i32(w[0], w[1], p.randint))
XRNG_GROUP(randint, i64, int64_t, 1, 4, o[0] = dist::randint_i64(w, p.randint))
#undef XRNG_GROUP

// Calls f.template operator()<Dist, DType>() for the plan's (dist, dtype);
// returns false for a pair with no group functor (perm, dropout, invalid).
template <class F>
XRNG_HD XRNG_INLINE bool dispatch_group(const Plan& p, F&& f) {
#define XRNG_CASE(DIST, DTYPE)                               \
  if (p.dist == Dist::DIST && p.dtype == DType::DTYPE) {     \
    f.template operator()<Dist::DIST, DType::DTYPE>();       \
    return true;                                             \
  }
  XRNG_CASE(bits, u32)
  XRNG_CASE(bits, u64)
  XRNG_CASE(uniform, f32)
  XRNG_CASE(uniform, f64)
  XRNG_CASE(uniform, f16)
  XRNG_CASE(uniform, bf16)
  XRNG_CASE(normal, f32)
  XRNG_CASE(normal, f64)
  XRNG_CASE(normal, f16)
  XRNG_CASE(normal, bf16)
  XRNG_CASE(bernoulli, u8)
  XRNG_CASE(randint, i32)
  XRNG_CASE(randint, i64)
#undef XRNG_CASE
  return false;
}

// ---- the scalar reference --------------------------------------------------------------
// Elements [start, start + count) of the draw at word `offset` into out
// (out[0] is element `start`). The caller has validated the plan and that
// every word index stays below 2^64.
template <Dist D, DType T>
XRNG_HD void reference_fill(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
                            typename Group<D, T>::out_t* out) {
  using G = Group<D, T>;
  if (count == 0) return;
  const uint64_t last = start + (count - 1);  // inclusive: start + count may be 2^64
  const uint64_t g_last = last / G::kGroup;
  for (uint64_t g = start / G::kGroup;; ++g) {
    uint32_t w[G::kWords];
    stream_words(s, offset + G::kWords * g, G::kWords, w);
    typename G::out_t v[G::kGroup];
    G::eval(w, p, v);
    for (uint32_t j = 0; j < G::kGroup; ++j) {
      const uint64_t e = g * G::kGroup + j;
      if (e >= start && e <= last) out[e - start] = v[j];
    }
    if (g == g_last) break;  // not a loop condition: g_last may be 2^64 - 1
  }
}

// Elements [start, start + count) of the permutation (key from the stream).
template <class OutT>
XRNG_HD void reference_perm(const PermKey& k, uint64_t start, uint64_t count, OutT* out) {
  for (uint64_t i = 0; i < count; ++i) out[i] = static_cast<OutT>(perm_at(k, start + i));
}

}  // namespace xrng
