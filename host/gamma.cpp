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
#include <string>
#include <vector>

#include "../rng/binomial.h"
#include "../rng/gamma.h"
#include "../rng/poisson.h"
#include "parallel.h"
#include "simd/params_api.h"
#include "xrng.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define XRNG_FMA_CLONES __attribute__((target_clones("fma", "default"), flatten))
#else
#define XRNG_FMA_CLONES
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
void check_common(const char* what, const double* alpha, uint64_t n, uint64_t offset, DType dt, const void* out,
                  int threads, Backend be) {
  check_threads(threads);
  if (dt != DType::f64 && dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    throw Error(std::string(what) + ": the output dtype must be float64, float32, float16 or bfloat16");
  check_gamma_count(n, offset);
  if (n == 0) return;
  check_backend(be);
  if (alpha == nullptr || out == nullptr) throw Error(std::string(what) + ": null buffer");
  const uint64_t bad = first_bad_alpha(alpha, n);
  if (bad != n) throw Error(gamma_alpha_error(what, bad, alpha[bad]));
}
// Elements [b, e) in tiles: the vector form of the backend's ISA first
// (host/simd/params.h, lanes in lock step), the scalar element function for
// the lanes it leaves undone and where there is no vector form. Both give the
// element function's value (tests/test_params_simd.cpp), so the split never
// shows. `scalar(i)` is element i's binary64 value, `put(i, y)` stores it.
constexpr uint64_t kTile = 256;
template <class Scalar, class Put>
void tiled(detail::ParamDraw which, Backend be, const double* a, const double* p, uint64_t b, uint64_t e,
           const Stream& s, uint64_t offset, Scalar&& scalar, Put&& put) {
  double y[kTile];
  uint8_t done[kTile];
  for (uint64_t t = b; t < e; t += kTile) {
    const uint64_t m = std::min(kTile, e - t);
    if (detail::simd_params(be, which, a + t, p ? p + t : nullptr, m, s, offset + 64 * t, y, done)) {
      for (uint64_t i = 0; i < m; ++i) put(t + i, done[i] ? y[i] : scalar(t + i));
    } else {
      for (uint64_t i = 0; i < m; ++i) put(t + i, scalar(t + i));
    }
  }
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
  tiled(
      detail::ParamDraw::gamma, be, alpha, nullptr, b, e, s, offset,
      [&](uint64_t i) { return gamma_one(alpha[i], s, offset + gammad::kWords * i); },
      [&](uint64_t i, double y) { gammad::store(dt, out, i, y, false); });
}

// Rows [b, e) of a Dirichlet draw, up to `rb` rows at a time (their gamma
// variates in one tiled pass); g: rb k doubles of scratch.
void dirichlet_rows(const double* alpha, uint64_t b, uint64_t e, uint64_t k, uint64_t rb, const Stream& s,
                    uint64_t offset, DType dt, void* out, double* g, Backend be) {
  for (uint64_t r0 = b; r0 < e; r0 += rb) {
    const uint64_t r1 = std::min(e, r0 + rb);
    tiled(
        detail::ParamDraw::gamma, be, alpha, nullptr, r0 * k, r1 * k, s, offset,
        [&](uint64_t el) { return gamma_one(alpha[el], s, offset + gammad::kWords * el); },
        [&](uint64_t el, double y) { g[el - r0 * k] = y; });
    for (uint64_t r = r0; r < r1; ++r) {
      const double* gr = g + (r - r0) * k;
      double sum = 0.0;  // left to right, binary64 (SPEC 11.4)
      for (uint64_t i = 0; i < k; ++i) sum = sum + gr[i];
      for (uint64_t i = 0; i < k; ++i) gammad::store(dt, out, r * k + i, gr[i] / sum, true);
    }
  }
}

void poisson_range(const double* rate, uint64_t b, uint64_t e, const Stream& s, uint64_t offset, DType dt, void* out,
                   Backend be) {
  tiled(
      detail::ParamDraw::poisson, be, rate, nullptr, b, e, s, offset,
      [&](uint64_t i) { return poisson_one(rate[i], s, offset + poissond::kWords * i); },
      [&](uint64_t i, double y) { poissond::store_count(dt, out, i, y); });
}

void binomial_range(const double* count, const double* prob, uint64_t b, uint64_t e, const Stream& s,
                    uint64_t offset, DType dt, void* out, Backend be) {
  tiled(
      detail::ParamDraw::binomial, be, count, prob, b, e, s, offset,
      [&](uint64_t i) { return binomial_one(count[i], prob[i], s, offset + binomiald::kWords * i); },
      [&](uint64_t i, double y) { poissond::store_count(dt, out, i, y); });
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
    std::vector<double> g(rb * k);
    dirichlet_rows(alpha, b, e, k, rb, s, offset, dt, out, g.data(), opt.backend);
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
