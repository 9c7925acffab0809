// The element function of every row of the registry (registry.h, XRNG_ROWS),
// and the scalar reference that evaluates a plan with them. Backends (scalar,
// SIMD, CUDA) reach a row only through visit_row / for_each_row, so a row
// added to the table is dispatched everywhere; a row without an element
// function here is a compile error (Row<...> is incomplete).
#pragma once

#include "../plan.h"
#include "../permutation.h"
#include "distributions.h"
#include "distributions_v2.h"

namespace xrng {

// Row<dist, dtype, version>: the shape of the row (RowShape, from the table)
// and its element function:
//   element:     eval(const uint32_t* w, const Plan&, out_t* o): K words -> G values
//   permutation: at(const PermKey&, uint64_t i) -> out_t: element i
//   transform:   eval(const uint32_t* w, out_t x, const Plan&) -> out_t
template <Dist D, DType T, int V = 1>
struct Row;

// XRNG_ELEMENT_ROW(dist, dtype, version, body): the element function of the
// row (dist, dtype, version) of XRNG_ROWS.
#define XRNG_ELEMENT_ROW(DIST, DTYPE, V, BODY)                                                     \
  template <>                                                                                       \
  struct Row<Dist::DIST, DType::DTYPE, V> : RowShape<Dist::DIST, DType::DTYPE, V> {                \
    static_assert(kind == Kind::element);                                                           \
    using out_t = dtype_t<DType::DTYPE>;                                                            \
    XRNG_HD XRNG_INLINE static void eval(const uint32_t* w, const Plan& p, out_t* o) {             \
      (void)p;                                                                                      \
      BODY;                                                                                         \
    }                                                                                               \
  };

// The f16 / bf16 rows of a distribution whose 16-bit values are, by
// definition, its binary32 values rounded (dist::to_f16 / dist::to_bf16): the
// f32 row of the same version, then the rounding.
template <Dist D, int V, DType T>
XRNG_HD XRNG_INLINE void narrowed(const uint32_t* w, const Plan& p, uint16_t* o) {
  using F = Row<D, DType::f32, V>;
  static_assert(RowShape<D, T, V>::kGroup == F::kGroup && RowShape<D, T, V>::kWords == F::kWords);
  float f[F::kGroup];
  F::eval(w, p, f);
  for (uint32_t j = 0; j < F::kGroup; ++j) o[j] = T == DType::f16 ? dist::to_f16(f[j]) : dist::to_bf16(f[j]);
}
#define XRNG_NARROWED_ROWS(DIST, V)                                                    \
  XRNG_ELEMENT_ROW(DIST, f16, V, (narrowed<Dist::DIST, V, DType::f16>(w, p, o)))      \
  XRNG_ELEMENT_ROW(DIST, bf16, V, (narrowed<Dist::DIST, V, DType::bf16>(w, p, o)))

XRNG_ELEMENT_ROW(bits, u32, 1, o[0] = dist::bits_u32(w[0]))
XRNG_ELEMENT_ROW(bits, u64, 1, o[0] = dist::bits_u64(w[0], w[1]))
XRNG_ELEMENT_ROW(uniform, f32, 1, o[0] = dist::uniform_f32(w[0], p.uniform))
XRNG_ELEMENT_ROW(uniform, f64, 1, o[0] = dist::uniform_f64(w[0], w[1], p.uniform))
XRNG_ELEMENT_ROW(uniform, f16, 1, o[0] = dist::uniform_f16(w[0], p.uniform))
XRNG_ELEMENT_ROW(uniform, bf16, 1, o[0] = dist::uniform_bf16(w[0], p.uniform))
XRNG_ELEMENT_ROW(normal, f32, 1, dist::normal_f32(w[0], w[1], p.normal, o))
XRNG_ELEMENT_ROW(normal, f64, 1, dist::normal_f64(w, p.normal, o))
XRNG_ELEMENT_ROW(normal, f16, 1, dist::normal_f16(w[0], w[1], p.normal, o))
XRNG_ELEMENT_ROW(normal, bf16, 1, dist::normal_bf16(w[0], w[1], p.normal, o))
XRNG_ELEMENT_ROW(bernoulli, u8, 1, o[0] = dist::bernoulli_u8(w[0], p.bernoulli))
XRNG_ELEMENT_ROW(randint, i32, 1, o[0] = dist::randint_i32(w[0], w[1], p.randint))
XRNG_ELEMENT_ROW(randint, i64, 1, o[0] = dist::randint_i64(w, p.randint))
XRNG_ELEMENT_ROW(exponential, f32, 1, o[0] = dist::exponential_f32(w[0], p.exponential))
XRNG_ELEMENT_ROW(exponential, f64, 1, o[0] = dist::exponential_f64(w[0], w[1], p.exponential))
XRNG_NARROWED_ROWS(exponential, 1)
XRNG_ELEMENT_ROW(geometric, f32, 1, o[0] = math::to_f32(dist::geometric_value<32>(w[0], p.geometric)))
XRNG_ELEMENT_ROW(geometric, f64, 1, o[0] = dist::geometric_value<52>(dist::bits_u64(w[0], w[1]) >> 12, p.geometric))
XRNG_ELEMENT_ROW(geometric, f16, 1,
                 o[0] = dist::to_f16(math::to_f32(dist::geometric_value<32>(w[0], p.geometric))))
XRNG_ELEMENT_ROW(geometric, bf16, 1,
                 o[0] = dist::to_bf16(math::to_f32(dist::geometric_value<32>(w[0], p.geometric))))
XRNG_ELEMENT_ROW(geometric, i32, 1,
                 o[0] = static_cast<int32_t>(math::min_(dist::geometric_value<32>(w[0], p.geometric),
                                                              2147483647.0)))
XRNG_ELEMENT_ROW(geometric, i64, 1,
                 o[0] = dist::saturate_i64(dist::geometric_value<52>(dist::bits_u64(w[0], w[1]) >> 12, p.geometric)))
XRNG_ELEMENT_ROW(log_normal, f32, 1, dist::log_normal_f32(w[0], w[1], p.normal, o))
XRNG_ELEMENT_ROW(log_normal, f64, 1, dist::log_normal_f64(w, p.normal, o))
XRNG_NARROWED_ROWS(log_normal, 1)
XRNG_ELEMENT_ROW(cauchy, f32, 1, o[0] = dist::cauchy_f32(w[0], p.cauchy))
XRNG_ELEMENT_ROW(cauchy, f64, 1, o[0] = dist::cauchy_f64(w[0], w[1], p.cauchy))
XRNG_NARROWED_ROWS(cauchy, 1)

// Stream v2 (registry.h): the f32 value in binary32 (detail/distributions_v2.h);
// f16 and bf16 are that value rounded, as in v1.
XRNG_ELEMENT_ROW(normal, f32, 2, dist::v2::normal_f32(w[0], w[1], p.normal, o))
XRNG_NARROWED_ROWS(normal, 2)
XRNG_ELEMENT_ROW(exponential, f32, 2, o[0] = dist::v2::exponential_f32(w[0], p.exponential))
XRNG_NARROWED_ROWS(exponential, 2)
XRNG_ELEMENT_ROW(log_normal, f32, 2, dist::v2::log_normal_f32(w[0], w[1], p.normal, o))
XRNG_NARROWED_ROWS(log_normal, 2)
XRNG_ELEMENT_ROW(cauchy, f32, 2, o[0] = dist::v2::cauchy_f32(w[0], p.cauchy))
XRNG_NARROWED_ROWS(cauchy, 2)
#undef XRNG_NARROWED_ROWS
#undef XRNG_ELEMENT_ROW

// Permutation rows: one per index type; the value is the same, only its storage differs.
template <DType T>
struct Row<Dist::perm, T, 1> : RowShape<Dist::perm, T, 1> {
  using out_t = dtype_t<T>;
  XRNG_HD XRNG_INLINE static out_t at(const PermKey& k, uint64_t i) { return static_cast<out_t>(perm_at(k, i)); }
  XRNG_HD XRNG_INLINE static out_t position(const PermKey& k, uint64_t v) {
    return static_cast<out_t>(perm_inverse(k, v));
  }
  // Elements [start, start + count) of shard `rank` of `world` (perm_shard_range).
  XRNG_HD XRNG_INLINE static void shard(const PermKey& k, uint64_t rank, uint64_t world, uint64_t start,
                                        uint64_t count, out_t* out) {
    perm_shard_range(k, rank, world, start, count, out);
  }
};

// Transform rows: dropout, one word per element.
#define XRNG_TRANSFORM_ROW(DIST, DTYPE, V, BODY)                                                  \
  template <>                                                                                     \
  struct Row<Dist::DIST, DType::DTYPE, V> : RowShape<Dist::DIST, DType::DTYPE, V> {              \
    static_assert(kind == Kind::transform);                                                       \
    using out_t = dtype_t<DType::DTYPE>;                                                          \
    XRNG_HD XRNG_INLINE static out_t eval(const uint32_t* w, out_t x, const Plan& p) { return BODY; } \
  };
XRNG_TRANSFORM_ROW(dropout, f32, 1, dist::dropout_f32(w[0], x, p.bernoulli))
XRNG_TRANSFORM_ROW(dropout, f64, 1, dist::dropout_f64(w[0], x, p.bernoulli))
XRNG_TRANSFORM_ROW(dropout, f16, 1, dist::dropout_f16(w[0], x, p.bernoulli))
XRNG_TRANSFORM_ROW(dropout, bf16, 1, dist::dropout_bf16(w[0], x, p.bernoulli))
#undef XRNG_TRANSFORM_ROW

// ---- dispatch ---------------------------------------------------------------------------------
// Calls f.template operator()<Row<...>>() for the plan's row; returns false
// for a (dist, dtype, version) that has no row (make_plan never builds one).
template <class F>
XRNG_HD XRNG_INLINE bool visit_row(const Plan& p, F&& f) {
#define XRNG_X(d, t, g, k, v)                                                      \
  if (p.dist == Dist::d && p.dtype == DType::t && p.version == v) {                \
    f.template operator()<Row<Dist::d, DType::t, v>>();                            \
    return true;                                                                   \
  }
  XRNG_ROWS(XRNG_X)
#undef XRNG_X
  return false;
}
// Calls f.template operator()<Row<...>>() for every row, in table order.
template <class F>
void for_each_row(F&& f) {
#define XRNG_X(d, t, g, k, v) f.template operator()<Row<Dist::d, DType::t, v>>();
  XRNG_ROWS(XRNG_X)
#undef XRNG_X
}

// ---- the scalar reference -----------------------------------------------------------------------
// Elements [start, start + count) of an element draw at word `offset` into
// out (out[0] is element `start`). The caller has validated the plan and that
// every word index stays below 2^64.
template <class R>
XRNG_HD void reference_fill(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
                            typename R::out_t* out) {
  static_assert(R::kind == Kind::element);
  if (count == 0) return;
  const uint64_t last = start + (count - 1);  // inclusive: start + count may be 2^64
  const uint64_t g_last = last / R::kGroup;
  for (uint64_t g = start / R::kGroup;; ++g) {
    uint32_t w[R::kWords];
    stream_words(s, offset + R::kWords * g, R::kWords, w);
    typename R::out_t v[R::kGroup];
    R::eval(w, p, v);
    for (uint32_t j = 0; j < R::kGroup; ++j) {
      const uint64_t e = g * R::kGroup + j;
      if (e >= start && e <= last) out[e - start] = v[j];
    }
    if (g == g_last) break;  // not a loop condition: g_last may be 2^64 - 1
  }
}

// Elements [start, start + count) of a permutation.
template <class R>
XRNG_HD void reference_perm(const PermKey& k, uint64_t start, uint64_t count, typename R::out_t* out) {
  for (uint64_t i = 0; i < count; ++i) out[i] = R::at(k, start + i);
}

// Elements [start, start + count) of a transform draw: out[i] = f(words of
// element start + i, in[i]). One word per element (K = G = 1).
template <class R>
XRNG_HD void reference_transform(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
                                 const typename R::out_t* in, typename R::out_t* out) {
  static_assert(R::kind == Kind::transform && R::kGroup == 1 && R::kWords == 1);
  for (uint64_t i = 0; i < count; ++i) {
    const uint32_t w = stream_word(s, offset + start + i);
    out[i] = R::eval(&w, in[i], p);
  }
}

}  // namespace xrng
