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
#include <string>
#include <vector>

#include "../rng/binomial.h"
#include "../rng/gamma.h"
#include "../rng/poisson.h"
#include "parallel.h"
#include "xrng.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define XRNG_FMA_CLONES __attribute__((target_clones("fma", "default"), flatten))
#else
#define XRNG_FMA_CLONES
#endif

namespace xrng {

namespace {
void check_common(const char* what, const double* alpha, uint64_t n, uint64_t offset, DType dt, const void* out,
                  int threads) {
  check_threads(threads);
  if (dt != DType::f64 && dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    throw Error(std::string(what) + ": the output dtype must be float64, float32, float16 or bfloat16");
  check_gamma_count(n, offset);
  if (n == 0) return;
  if (alpha == nullptr || out == nullptr) throw Error(std::string(what) + ": null buffer");
  const uint64_t bad = first_bad_alpha(alpha, n);
  if (bad != n) throw Error(gamma_alpha_error(what, bad, alpha[bad]));
}
XRNG_FMA_CLONES void gamma_range(const double* alpha, uint64_t b, uint64_t e, const Stream& s, uint64_t offset,
                                 DType dt, void* out) {
  for (uint64_t i = b; i < e; ++i)
    gammad::store(dt, out, i, gammad::variate_at(alpha[i], s, offset + gammad::kWords * i), false);
}

// Rows [b, e) of a Dirichlet draw; g: k doubles of scratch.
XRNG_FMA_CLONES void dirichlet_rows(const double* alpha, uint64_t b, uint64_t e, uint64_t k, const Stream& s,
                                    uint64_t offset, DType dt, void* out, double* g) {
  for (uint64_t r = b; r < e; ++r) {
    double sum = 0.0;  // left to right, binary64 (SPEC 11.4)
    for (uint64_t i = 0; i < k; ++i) {
      const uint64_t el = r * k + i;
      g[i] = gammad::variate_at(alpha[el], s, offset + gammad::kWords * el);
      sum = sum + g[i];
    }
    for (uint64_t i = 0; i < k; ++i) gammad::store(dt, out, r * k + i, g[i] / sum, true);
  }
}

XRNG_FMA_CLONES void poisson_range(const double* rate, uint64_t b, uint64_t e, const Stream& s, uint64_t offset,
                                   DType dt, void* out) {
  for (uint64_t i = b; i < e; ++i)
    poissond::store_count(dt, out, i, poissond::count_at(rate[i], s, offset + poissond::kWords * i));
}

XRNG_FMA_CLONES void binomial_range(const double* count, const double* prob, uint64_t b, uint64_t e, const Stream& s,
                                    uint64_t offset, DType dt, void* out) {
  for (uint64_t i = b; i < e; ++i)
    poissond::store_count(dt, out, i, binomiald::count_at(count[i], prob[i], s, offset + binomiald::kWords * i));
}
}  // namespace

void gamma(const double* alpha, uint64_t n, const Key& key, uint64_t offset, DType dt, void* out,
           const FillOptions& opt) {
  check_common("gamma", alpha, n, offset, dt, out, opt.threads);
  if (n == 0) return;
  const Stream s = key.stream();
  detail::parallel_ranges(n, opt.threads, 1,
                          [&](uint64_t b, uint64_t e) { gamma_range(alpha, b, e, s, offset, dt, out); });
}

void dirichlet(const double* alpha, uint64_t rows, uint64_t k, const Key& key, uint64_t offset, DType dt, void* out,
               const FillOptions& opt) {
  if (k == 0 && rows != 0) throw Error("dirichlet: the concentration has no categories (k = 0)");
  if (k != 0 && rows > UINT64_MAX / k) throw Error("dirichlet: the draw needs more than 2^64 stream words");
  check_common("dirichlet", alpha, rows * k, offset, dt, out, opt.threads);
  if (rows == 0) return;
  const Stream s = key.stream();
  detail::parallel_ranges(rows, opt.threads, 1, [&](uint64_t b, uint64_t e) {
    std::vector<double> g(k);
    dirichlet_rows(alpha, b, e, k, s, offset, dt, out, g.data());
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
  const Stream s = key.stream();
  detail::parallel_ranges(n, opt.threads, 1,
                          [&](uint64_t b, uint64_t e) { poisson_range(rate, b, e, s, offset, dt, out); });
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
  const Stream s = key.stream();
  detail::parallel_ranges(n, opt.threads, 1,
                          [&](uint64_t b, uint64_t e) { binomial_range(count, prob, b, e, s, offset, dt, out); });
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
