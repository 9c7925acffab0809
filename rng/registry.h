// The registry of draws: the one place that says what xrng can draw.
//
// Four tables, each an X-macro, and everything else derived from them:
//   XRNG_DTYPES  output types (name, C++ storage type, size)
//   XRNG_PARAMS  the user-facing parameters of a draw (name, kind, default)
//   XRNG_DISTS   distributions: name, draw kind, default dtype, parameters
//   XRNG_ROWS    (distribution, dtype) rows: elements per group, words per
//                group, the stream version the row's definition belongs to
// Plan building and validation (plan.h), the element functions of every row
// (detail/rows.h), the scalar, SIMD and CUDA backends, the bindings' dtype
// mapping, the CLI's flags and `verify` rows, the golden cases and the test
// lists all iterate these tables. Adding a distribution is one XRNG_DISTS
// line, its XRNG_ROWS lines, a DistDef (validation, in detail/dist_defs.h)
// and an element function per row (detail/rows.h); the compiler names
// whatever is still missing (an incomplete Row or DistDef).
#pragma once

#include <cstdint>

#include "config.h"

namespace xrng {

// ---- output types ------------------------------------------------------------------
// X(name, storage type, bytes). f16 and bf16 are stored as their bit patterns.
#define XRNG_DTYPES(X)   \
  X(u32, uint32_t, 4)    \
  X(u64, uint64_t, 8)    \
  X(f32, float, 4)       \
  X(f64, double, 8)      \
  X(f16, uint16_t, 2)    \
  X(bf16, uint16_t, 2)   \
  X(i32, int32_t, 4)     \
  X(i64, int64_t, 8)     \
  X(u8, uint8_t, 1)

enum class DType : uint8_t {
#define XRNG_X(name, type, size) name,
  XRNG_DTYPES(XRNG_X)
#undef XRNG_X
};

XRNG_HD constexpr int dtype_size(DType t) {
  switch (t) {
#define XRNG_X(name, type, size) \
  case DType::name:              \
    return size;
    XRNG_DTYPES(XRNG_X)
#undef XRNG_X
  }
  return 0;
}
constexpr const char* dtype_name(DType t) {
  switch (t) {
#define XRNG_X(name, type, size) \
  case DType::name:              \
    return #name;
    XRNG_DTYPES(XRNG_X)
#undef XRNG_X
  }
  return "?";
}
constexpr bool dtype_is_float(DType t) {
  return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16;
}
// The C++ type an element of dtype T is stored as.
template <DType T>
struct dtype_traits;
#define XRNG_X(name, ctype, size)         \
  template <>                             \
  struct dtype_traits<DType::name> {      \
    using type = ctype;                   \
    static_assert(sizeof(ctype) == size); \
  };
XRNG_DTYPES(XRNG_X)
#undef XRNG_X
template <DType T>
using dtype_t = typename dtype_traits<T>::type;

inline constexpr DType kAllDTypes[] = {
#define XRNG_X(name, type, size) DType::name,
    XRNG_DTYPES(XRNG_X)
#undef XRNG_X
};

// ---- parameters ----------------------------------------------------------------------
// X(name, kind, default, description). kind: real (double), integer (int64_t),
// count (uint64_t). The name is the field of DrawParams, the CLI flag (--name)
// and the golden file's token; randint's integer bounds are ilow / ihigh.
#define XRNG_PARAMS(X)                                                    \
  X(low, real, 0.0, "lower bound of the range [low, high)")              \
  X(high, real, 1.0, "upper bound (excluded)")                           \
  X(mean, real, 0.0, "mean (of the underlying normal for log_normal)")   \
  X(std, real, 1.0, "standard deviation, >= 0")                          \
  X(p, real, 0.5, "probability")                                         \
  X(ilow, integer, 0, "lowest integer drawn")                            \
  X(ihigh, integer, 0, "one past the highest integer drawn")             \
  X(n, count, 0, "permutation size")                                     \
  X(rate, real, 1.0, "rate (1 / mean), > 0")                             \
  X(median, real, 0.0, "location (the median)")                          \
  X(sigma, real, 1.0, "scale (half the interquartile range), >= 0")

enum class Param : uint8_t {
#define XRNG_X(name, kind, def, doc) name,
  XRNG_PARAMS(XRNG_X)
#undef XRNG_X
};
enum class ParamKind : uint8_t { real, integer, count };

struct ParamInfo {
  Param id;
  const char* name;
  ParamKind kind;
  const char* doc;
};
inline constexpr ParamInfo kParams[] = {
#define XRNG_X(name, kind, def, doc) {Param::name, #name, ParamKind::kind, doc},
    XRNG_PARAMS(XRNG_X)
#undef XRNG_X
};
constexpr uint32_t param_bit(Param p) { return 1u << static_cast<unsigned>(p); }

// ---- distributions -------------------------------------------------------------------
// How a draw's elements relate to the stream:
//   element:     element e is a pure function of the words of its group
//                (groups of G elements consume K consecutive words each);
//   permutation: element i is a keyed bijection of i; the key consumes K words
//                (the whole draw), whatever the number of elements;
//   transform:   out[e] = f(words of e's group, in[e]): an input is transformed.
enum class Kind : uint8_t { element, permutation, transform };

#define XRNG_P(name) param_bit(Param::name)
// X(name, kind, default dtype, parameters, summary). New distributions go
// last: the enum's values are never reused.
#define XRNG_DISTS(X)                                                                                           \
  X(bits, element, u32, 0u, "raw stream words")                                                                 \
  X(uniform, element, f32, XRNG_P(low) | XRNG_P(high), "uniform on [low, high)")                               \
  X(normal, element, f32, XRNG_P(mean) | XRNG_P(std), "normal (Box-Muller pairs)")                              \
  X(bernoulli, element, u8, XRNG_P(p), "1 with probability p, else 0")                                          \
  X(randint, element, i64, XRNG_P(ilow) | XRNG_P(ihigh), "integers uniform on [ilow, ihigh)")                   \
  X(perm, permutation, i64, XRNG_P(n), "random-access permutation of [0, n)")                                   \
  X(dropout, transform, f32, XRNG_P(p), "drop with probability p, scale the kept by 1/(1-p)")                  \
  X(exponential, element, f32, XRNG_P(rate), "exponential: -log(u) / rate")                                     \
  X(geometric, element, i64, XRNG_P(p), "trials to the first success: ceil(log(u) / log(1-p)), >= 1")          \
  X(log_normal, element, f32, XRNG_P(mean) | XRNG_P(std), "exp of a normal(mean, std)")                         \
  X(cauchy, element, f32, XRNG_P(median) | XRNG_P(sigma), "Cauchy: median + sigma tan(pi (u - 1/2))")

enum class Dist : uint8_t {
#define XRNG_X(name, kind, dtype, params, doc) name,
  XRNG_DISTS(XRNG_X)
#undef XRNG_X
};

struct DistInfo {
  Dist id;
  const char* name;
  Kind kind;
  DType default_dtype;
  uint32_t params;  // param_bit() of each parameter the distribution reads
  const char* doc;
};
inline constexpr DistInfo kDists[] = {
#define XRNG_X(name, kind, dtype, params, doc) {Dist::name, #name, Kind::kind, DType::dtype, params, doc},
    XRNG_DISTS(XRNG_X)
#undef XRNG_X
};
constexpr const DistInfo& dist_info(Dist d) { return kDists[static_cast<unsigned>(d)]; }
constexpr const char* dist_name(Dist d) { return dist_info(d).name; }
constexpr Kind dist_kind(Dist d) { return dist_info(d).kind; }
constexpr DType default_dtype(Dist d) { return dist_info(d).default_dtype; }
constexpr bool dist_has_param(Dist d, Param p) { return (dist_info(d).params & param_bit(p)) != 0; }
template <Dist D>
inline constexpr Kind kind_of = kDists[static_cast<unsigned>(D)].kind;

// ---- rows ------------------------------------------------------------------------------
// X(dist, dtype, G, K, version): a draw of `dist` into `dtype` evaluates groups
// of G elements from K words each (permutation: K words of key for the whole
// draw). `version` is the stream version whose definition the row gives; a
// later version lists only the rows it changes (SPEC.md, stream versions):
// stream 2 redefines the f32, f16 and bf16 rows of the four distributions with
// a transcendental (binary32 transforms, detail/distributions_v2.h) and keeps
// every other row of stream 1. Same G and K as the row it replaces.
// Appending a row never changes an existing value.
#define XRNG_ROWS(X)                  \
  X(bits, u32, 1, 1, 1)               \
  X(bits, u64, 1, 2, 1)               \
  X(uniform, f32, 1, 1, 1)            \
  X(uniform, f64, 1, 2, 1)            \
  X(uniform, f16, 1, 1, 1)            \
  X(uniform, bf16, 1, 1, 1)           \
  X(normal, f32, 2, 2, 1)             \
  X(normal, f64, 2, 4, 1)             \
  X(normal, f16, 2, 2, 1)             \
  X(normal, bf16, 2, 2, 1)            \
  X(bernoulli, u8, 1, 1, 1)           \
  X(randint, i32, 1, 2, 1)            \
  X(randint, i64, 1, 4, 1)            \
  X(perm, i64, 1, kPermRounds, 1)     \
  X(perm, u64, 1, kPermRounds, 1)     \
  X(perm, i32, 1, kPermRounds, 1)     \
  X(perm, u32, 1, kPermRounds, 1)     \
  X(dropout, f32, 1, 1, 1)            \
  X(dropout, f64, 1, 1, 1)            \
  X(dropout, f16, 1, 1, 1)            \
  X(dropout, bf16, 1, 1, 1)           \
  X(exponential, f32, 1, 1, 1)        \
  X(exponential, f64, 1, 2, 1)        \
  X(exponential, f16, 1, 1, 1)        \
  X(exponential, bf16, 1, 1, 1)       \
  X(geometric, f32, 1, 1, 1)          \
  X(geometric, f64, 1, 2, 1)          \
  X(geometric, f16, 1, 1, 1)          \
  X(geometric, bf16, 1, 1, 1)         \
  X(geometric, i32, 1, 1, 1)          \
  X(geometric, i64, 1, 2, 1)          \
  X(log_normal, f32, 2, 2, 1)         \
  X(log_normal, f64, 2, 4, 1)         \
  X(log_normal, f16, 2, 2, 1)         \
  X(log_normal, bf16, 2, 2, 1)        \
  X(cauchy, f32, 1, 1, 1)             \
  X(cauchy, f64, 1, 2, 1)             \
  X(cauchy, f16, 1, 1, 1)             \
  X(cauchy, bf16, 1, 1, 1)            \
  X(normal, f32, 2, 2, 2)             \
  X(normal, f16, 2, 2, 2)             \
  X(normal, bf16, 2, 2, 2)            \
  X(exponential, f32, 1, 1, 2)        \
  X(exponential, f16, 1, 1, 2)        \
  X(exponential, bf16, 1, 1, 2)       \
  X(log_normal, f32, 2, 2, 2)         \
  X(log_normal, f16, 2, 2, 2)         \
  X(log_normal, bf16, 2, 2, 2)        \
  X(cauchy, f32, 1, 1, 2)             \
  X(cauchy, f16, 1, 1, 2)             \
  X(cauchy, bf16, 1, 1, 2)

constexpr int kPermRounds = 12;  // Feistel rounds of a permutation; its key is one word per round

struct RowInfo {
  Dist dist;
  DType dtype;
  uint32_t group;  // elements per group (permutation: 1)
  uint32_t words;  // words per group (permutation: words of the key, for the whole draw)
  int version;     // the stream version the row's definition belongs to
};
inline constexpr RowInfo kRows[] = {
#define XRNG_X(d, t, g, k, v) {Dist::d, DType::t, g, k, v},
    XRNG_ROWS(XRNG_X)
#undef XRNG_X
};

// The row a draw of (d, t) uses in stream `version`: the row of the highest
// version <= `version`; nullptr if (d, t) has none.
constexpr const RowInfo* find_row(Dist d, DType t, int version = kStreamVersion) {
  const RowInfo* best = nullptr;
  for (const RowInfo& r : kRows)
    if (r.dist == d && r.dtype == t && r.version <= version && (best == nullptr || r.version > best->version))
      best = &r;
  return best;
}
constexpr bool dtype_supported(Dist d, DType t, int version = kStreamVersion) {
  return find_row(d, t, version) != nullptr;
}

// ---- draws with a tensor parameter (issue 20; SPEC.md section 10) -------------------------
// Draws whose parameter is a tensor (a row of weights per output row, a shape
// per element), not a few scalars: they are not (distribution, dtype) rows of XRNG_ROWS, which
// every element backend, the golden files v1/v2 and the CLI iterate.
// X(name, unit, words per unit, summary): each *unit* of the draw reads its
// own `words` consecutive stream words (a unit's words are a function of its
// index only). multinomial: int64 [rows, num_samples] (SPEC 10); gamma and
// dirichlet: the parameter's shape and dtype (SPEC 11); poisson, binomial: likewise (SPEC 12, 13). Stream-version
// independent (defined once, in binary64 and integers). Known answers:
// tests/data/golden_v2_multinomial.txt and tests/data/golden_v2_gamma.txt
// (tools/make_golden_multinomial.cpp, tools/make_golden_gamma.cpp).
#define XRNG_TENSOR_DRAWS(X)                                                                             \
  X(multinomial_replacement, sample, 2, "categorical samples with replacement (cumulative-sum search)") \
  X(multinomial, category, 2, "categorical samples without replacement (exponential race, exact keys)")    \
  X(gamma, element, 64, "standard gamma variates (Marsaglia-Tsang, 15 attempts of 4 words, boost below 1)") \
  X(dirichlet, element, 64, "Dirichlet rows: gamma variates of the same words over their binary64 sum")     \
  X(poisson, element, 64, "Poisson counts (inversion below rate 10, PTRS transformed rejection above)")   \
  X(binomial, element, 64, "binomial counts (inversion below n min(p, 1-p) = 10, BTRS rejection above)")

enum class TensorDraw : uint8_t {
#define XRNG_X(name, unit, words, doc) name,
  XRNG_TENSOR_DRAWS(XRNG_X)
#undef XRNG_X
};
struct TensorDrawInfo {
  TensorDraw id;
  const char* name;
  const char* unit;  // what one unit of words is: a sample or a category of a row
  uint32_t words;    // stream words per unit
  const char* doc;
};
inline constexpr TensorDrawInfo kTensorDraws[] = {
#define XRNG_X(name, unit, words, doc) {TensorDraw::name, #name, #unit, words, doc},
    XRNG_TENSOR_DRAWS(XRNG_X)
#undef XRNG_X
};
constexpr const TensorDrawInfo& tensor_draw_info(TensorDraw d) { return kTensorDraws[static_cast<unsigned>(d)]; }
// ---- end of the tensor-parameter draws ------------------------------------------------------

// Compile-time shape of a row, for the templates of the backends.
template <Dist D, DType T, int V = 1>
struct RowShape;
#define XRNG_X(d, t, g, k, v)                                   \
  template <>                                                   \
  struct RowShape<Dist::d, DType::t, v> {                       \
    static constexpr Dist dist = Dist::d;                       \
    static constexpr DType dtype = DType::t;                    \
    static constexpr int version = v;                           \
    static constexpr Kind kind = kind_of<Dist::d>;              \
    static constexpr uint32_t kGroup = g;                       \
    static constexpr uint32_t kWords = k;                       \
    using out_t = dtype_t<DType::t>;                            \
  };
XRNG_ROWS(XRNG_X)
#undef XRNG_X

}  // namespace xrng
