// The gamma family, Poisson and binomial on the host (SPEC.md sections 11 to
// 13): loops over the element functions of rng/gamma.h, rng/poisson.h and
// rng/binomial.h, elements (dirichlet: rows) split across threads. Values
// never depend on the split.
//
// The loops are compiled twice on x86-64 with GCC (target_clones): with the
// FMA instructions and without, picked at load time by the CPU. The element
// functions call std::fma on purpose (SPEC 5); without -mfma that is a libm
// call, with it one instruction: the same correctly rounded result (so the
// same values, tests/test_gamma.cpp's known answers on either), about twice
// as fast. flatten inlines the element functions into each clone.
#include <algorithm>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstring>
#include <string>
#include <vector>

#include "../rng/binomial.h"
#include "../rng/gamma.h"
#include "../rng/poisson.h"
#include "parallel.h"
#include "simd/params_api.h"
#include "xrng.h"

#include "fma_clones.h"
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
// Dirichlet's quotients g / S: IEEE divisions and comparisons, the same
// values at every vector width; the AVX2 clone divides 4 at a time.
#define XRNG_AVX2_CLONES __attribute__((target_clones("avx2", "default"), flatten))
#else
#define XRNG_AVX2_CLONES
#endif

namespace xrng {

namespace {
// Refuses Backend::simd where there is no vector ISA (the fill's message), in
// the calling thread, before anything is written.
void check_backend(Backend be) {
  double y;
  uint8_t d;
  detail::simd_params(be, detail::ParamDraw::gamma, nullptr, nullptr, 0, Stream{}, 0, &y, &d);
}
// first_bad_alpha (rng/gamma.h): on x86-64, blocks of 256 checked two at a
// time with SSE2 compares (alpha > 0 and alpha <= DBL_MAX, both false for a
// NaN: gammad::alpha_ok), the element search only in a block that fails.
uint64_t first_bad(const double* alpha, uint64_t n) {
#if defined(__SSE2__)
  const __m128d zero = _mm_setzero_pd(), top = _mm_set1_pd(1.7976931348623157e308);
  for (uint64_t b = 0; b < n; b += 256) {
    const uint64_t e = n - b < 256 ? n : b + 256;
    __m128d ok = _mm_cmpeq_pd(zero, zero);  // all ones
    uint64_t i = b;
    for (; i + 2 <= e; i += 2) {
      const __m128d x = _mm_loadu_pd(alpha + i);
      ok = _mm_and_pd(ok, _mm_and_pd(_mm_cmpgt_pd(x, zero), _mm_cmple_pd(x, top)));
    }
    bool good = _mm_movemask_pd(ok) == 3;
    for (; i < e; ++i) good = good && gammad::alpha_ok(alpha[i]);
    if (!good) return b + first_bad_alpha(alpha + b, e - b);
  }
  return n;
#else
  return first_bad_alpha(alpha, n);
#endif
}
void check_common(const char* what, const double* alpha, uint64_t n, uint64_t offset, DType dt, const void* out,
                  int threads, Backend be) {
  check_threads(threads);
  if (dt != DType::f64 && dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    throw Error(std::string(what) + ": the output dtype must be float64, float32, float16 or bfloat16");
  check_gamma_count(n, offset);
  if (n == 0) return;
  check_backend(be);
  if (alpha == nullptr || out == nullptr) throw Error(std::string(what) + ": null buffer");
  const uint64_t bad = first_bad(alpha, n);
  if (bad != n) throw Error(gamma_alpha_error(what, bad, alpha[bad]));
}
// The binary64 values of elements [b, e) into y[0 .. e - b), in tiles: the
// vector form of the backend's ISA first (host/simd/params.h), the scalar
// element function for the lanes it leaves undone and where there is no
// vector form. Both give the element function's value
// (tests/test_params_simd.cpp), so the split never shows. `scalar(i)` is
// element i's binary64 value.
constexpr uint64_t kTile = 256;
template <class Scalar>
void values(detail::ParamDraw which, Backend be, const double* a, const double* p, uint64_t b, uint64_t e,
            const Stream& s, uint64_t offset, Scalar&& scalar, double* y) {
  uint8_t done[kTile];
  for (uint64_t t = b; t < e; t += kTile) {
    const uint64_t m = std::min(kTile, e - t);
    double* yt = y + (t - b);
    if (detail::simd_params(be, which, a + t, p ? p + t : nullptr, m, s, offset + 64 * t, yt, done)) {
      if (std::memchr(done, 0, m) != nullptr)
        for (uint64_t i = 0; i < m; ++i)
          if (!done[i]) yt[i] = scalar(t + i);
    } else {
      for (uint64_t i = 0; i < m; ++i) yt[i] = scalar(t + i);
    }
  }
}
// `put(t, y, m)` takes the values y of elements t .. t + m - 1, a tile at a time.
template <class Scalar, class Put>
void tiled(detail::ParamDraw which, Backend be, const double* a, const double* p, uint64_t b, uint64_t e,
           const Stream& s, uint64_t offset, Scalar&& scalar, Put&& put) {
  double y[kTile];
  for (uint64_t t = b; t < e; t += kTile) {
    const uint64_t m = std::min(kTile, e - t);
    values(which, be, a, p, t, t + m, s, offset, scalar, y);
    put(t, y, m);
  }
}

// Elements t .. t + m - 1 of a gamma (dirichlet: the quotients) draw of dtype
// dt from their binary64 values y: gammad::store, one loop per dtype.
template <bool kDirichlet>
void store_values(DType dt, void* out, uint64_t t, const double* y, uint64_t m) {
  switch (dt) {
    case DType::f64: {
      double* o = static_cast<double*>(out) + t;
      for (uint64_t i = 0; i < m; ++i) o[i] = kDirichlet ? gammad::dirichlet_f64(y[i]) : y[i];
      return;
    }
    case DType::f32: {
      float* o = static_cast<float*>(out) + t;
      for (uint64_t i = 0; i < m; ++i) o[i] = kDirichlet ? gammad::dirichlet_f32(y[i]) : gammad::gamma_f32(y[i]);
      return;
    }
    default:
      for (uint64_t i = 0; i < m; ++i) gammad::store(dt, out, t + i, y[i], kDirichlet);
      return;
  }
}

// Elements t .. t + n - 1 of a Dirichlet draw: g[i] / sum[i] (one binary64
// division each, SPEC 11.4), rounded to dt and clamped (gammad::store).
XRNG_AVX2_CLONES void quotients(double* g, const double* sum, uint64_t n, DType dt, void* out, uint64_t t) {
  if (dt == DType::f64) {
    double* o = static_cast<double*>(out) + t;
    for (uint64_t i = 0; i < n; ++i) o[i] = gammad::dirichlet_f64(g[i] / sum[i]);
    return;
  }
  for (uint64_t i = 0; i < n; ++i) g[i] = g[i] / sum[i];
  store_values<true>(dt, out, t, g, n);
}

XRNG_FMA_CLONES double gamma_one(double alpha, const Stream& s, uint64_t w0) {
  return gammad::variate_at(alpha, s, w0);
}
XRNG_FMA_CLONES double poisson_one(double rate, const Stream& s, uint64_t w0) {
  return poissond::count_at(rate, s, w0);
}
XRNG_FMA_CLONES double binomial_one(double count, double prob, const Stream& s, uint64_t w0) {
  return binomiald::count_at(count, prob, s, w0);
}

void gamma_range(const double* alpha, uint64_t b, uint64_t e, const Stream& s, uint64_t offset, DType dt, void* out,
                 Backend be) {
  auto scalar = [&](uint64_t i) { return gamma_one(alpha[i], s, offset + gammad::kWords * i); };
  if (dt == DType::f64) {  // straight into the output
    values(detail::ParamDraw::gamma, be, alpha, nullptr, b, e, s, offset, scalar, static_cast<double*>(out) + b);
    return;
  }
  tiled(detail::ParamDraw::gamma, be, alpha, nullptr, b, e, s, offset, scalar,
        [&](uint64_t t, const double* y, uint64_t m) { store_values<false>(dt, out, t, y, m); });
}

// Rows [b, e) of a Dirichlet draw, up to `rb` rows at a time (their gamma
// variates in one pass); g and sum: rb k doubles of scratch each.
void dirichlet_rows(const double* alpha, uint64_t b, uint64_t e, uint64_t k, uint64_t rb, const Stream& s,
                    uint64_t offset, DType dt, void* out, double* g, double* sum, Backend be) {
  for (uint64_t r0 = b; r0 < e; r0 += rb) {
    const uint64_t r1 = std::min(e, r0 + rb);
    const uint64_t n = (r1 - r0) * k;
    values(
        detail::ParamDraw::gamma, be, alpha, nullptr, r0 * k, r1 * k, s, offset,
        [&](uint64_t el) { return gamma_one(alpha[el], s, offset + gammad::kWords * el); }, g);
    // S = (((0 + g_0) + g_1) + ...) + g_{k-1}, binary64 (SPEC 11.4; 0 + g_0 = g_0, as g_0 > 0)
    if (k == 2) {
      for (uint64_t i = 0; i < n; i += 2) sum[i] = sum[i + 1] = g[i] + g[i + 1];
    } else {
      for (uint64_t r = 0; r < n; r += k) {
        double S = 0.0;
        for (uint64_t i = 0; i < k; ++i) S = S + g[r + i];
        for (uint64_t i = 0; i < k; ++i) sum[r + i] = S;
      }
    }
    quotients(g, sum, n, dt, out, r0 * k);
  }
}

void poisson_range(const double* rate, uint64_t b, uint64_t e, const Stream& s, uint64_t offset, DType dt, void* out,
                   Backend be) {
  tiled(
      detail::ParamDraw::poisson, be, rate, nullptr, b, e, s, offset,
      [&](uint64_t i) { return poisson_one(rate[i], s, offset + poissond::kWords * i); },
      [&](uint64_t t, const double* y, uint64_t m) {
        for (uint64_t i = 0; i < m; ++i) poissond::store_count(dt, out, t + i, y[i]);
      });
}

void binomial_range(const double* count, const double* prob, uint64_t b, uint64_t e, const Stream& s,
                    uint64_t offset, DType dt, void* out, Backend be) {
  tiled(
      detail::ParamDraw::binomial, be, count, prob, b, e, s, offset,
      [&](uint64_t i) { return binomial_one(count[i], prob[i], s, offset + binomiald::kWords * i); },
      [&](uint64_t t, const double* y, uint64_t m) {
        for (uint64_t i = 0; i < m; ++i) poissond::store_count(dt, out, t + i, y[i]);
      });
}
}  // namespace

void gamma(const double* alpha, uint64_t n, const Key& key, uint64_t offset, DType dt, void* out,
           const FillOptions& opt) {
  check_common("gamma", alpha, n, offset, dt, out, opt.threads, opt.backend);
  if (n == 0) return;
  const Stream s = key.stream();
  detail::parallel_ranges(n, opt.threads, 1,
                          [&](uint64_t b, uint64_t e) { gamma_range(alpha, b, e, s, offset, dt, out, opt.backend); });
}

void dirichlet(const double* alpha, uint64_t rows, uint64_t k, const Key& key, uint64_t offset, DType dt, void* out,
               const FillOptions& opt) {
  if (k == 0 && rows != 0) throw Error("dirichlet: the concentration has no categories (k = 0)");
  if (k != 0 && rows > UINT64_MAX / k) throw Error("dirichlet: the draw needs more than 2^64 stream words");
  check_common("dirichlet", alpha, rows * k, offset, dt, out, opt.threads, opt.backend);
  if (rows == 0) return;
  const Stream s = key.stream();
  detail::parallel_ranges(rows, opt.threads, 1, [&](uint64_t b, uint64_t e) {
    const uint64_t rb = std::max<uint64_t>(1, kTile / k);
    std::vector<double> g(rb * k), sum(rb * k);
    dirichlet_rows(alpha, b, e, k, rb, s, offset, dt, out, g.data(), sum.data(), opt.backend);
  });
}

void poisson(const double* rate, uint64_t n, const Key& key, uint64_t offset, DType dt, void* out,
             const FillOptions& opt) {
  check_threads(opt.threads);
  if (dt != DType::f64 && dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    throw Error("poisson: the output dtype must be float64, float32, float16 or bfloat16");
  if (poisson_words(n) > ~offset)
    throw Error("counter overflow: the draw needs stream words beyond 2^64 (offset " + std::to_string(offset) + ")");
  if (n == 0) return;
  if (rate == nullptr || out == nullptr) throw Error("poisson: null buffer");
  const uint64_t bad = first_bad_rate(rate, n);
  if (bad != n) throw Error(poisson_rate_error(bad, rate[bad]));
  check_backend(opt.backend);
  const Stream s = key.stream();
  detail::parallel_ranges(n, opt.threads, 1,
                          [&](uint64_t b, uint64_t e) { poisson_range(rate, b, e, s, offset, dt, out, opt.backend); });
}

void binomial(const double* count, const double* prob, uint64_t n, const Key& key, uint64_t offset, DType dt,
              void* out, const FillOptions& opt) {
  check_threads(opt.threads);
  if (dt != DType::f64 && dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    throw Error("binomial: the output dtype must be float64, float32, float16 or bfloat16");
  if (poisson_words(n) > ~offset)  // 64 words per element, as poisson's
    throw Error("counter overflow: the draw needs stream words beyond 2^64 (offset " + std::to_string(offset) + ")");
  if (n == 0) return;
  if (count == nullptr || prob == nullptr || out == nullptr) throw Error("binomial: null buffer");
  for (uint64_t i = 0; i < n; ++i)
    if (!binomiald::params_ok(count[i], prob[i])) throw Error(binomial_param_error(i, count[i], prob[i]));
  check_backend(opt.backend);
  const Stream s = key.stream();
  detail::parallel_ranges(n, opt.threads, 1,
                          [&](uint64_t b, uint64_t e) { binomial_range(count, prob, b, e, s, offset, dt, out, opt.backend); });
}

void Generator::gamma(const double* alpha, uint64_t n, DType dt, void* out, const FillOptions& opt) {
  check_gamma_count(n, 0);
  const Range r = reserve_words(gamma_words(n));
  try {
    xrng::gamma(alpha, n, r.key, r.offset, dt, out, opt);
  } catch (...) {
    release(r);
    throw;
  }
}

}  // namespace xrng
