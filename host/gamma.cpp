// The gamma family and Poisson on the host (SPEC.md sections 11 and 12):
// loops over the element functions of rng/gamma.h and rng/poisson.h,
// elements (dirichlet: rows) split across threads. Values never depend on
// the split.
#include <string>
#include <vector>

#include "../rng/binomial.h"
#include "../rng/gamma.h"
#include "../rng/poisson.h"
#include "parallel.h"
#include "xrng.h"

namespace xrng {

namespace {
void store(DType dt, void* out, uint64_t i, double y, bool dirichlet) {
  switch (dt) {
    case DType::f64: static_cast<double*>(out)[i] = dirichlet ? gammad::dirichlet_f64(y) : y; return;
    case DType::f32: static_cast<float*>(out)[i] = dirichlet ? gammad::dirichlet_f32(y) : gammad::gamma_f32(y); return;
    case DType::f16:
      static_cast<uint16_t*>(out)[i] = dirichlet ? gammad::dirichlet_f16(y) : gammad::gamma_f16(y);
      return;
    case DType::bf16:
      static_cast<uint16_t*>(out)[i] = dirichlet ? gammad::dirichlet_bf16(y) : gammad::gamma_bf16(y);
      return;
    default: break;
  }
}

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
}  // namespace

void gamma(const double* alpha, uint64_t n, const Key& key, uint64_t offset, DType dt, void* out,
           const FillOptions& opt) {
  check_common("gamma", alpha, n, offset, dt, out, opt.threads);
  if (n == 0) return;
  const Stream s = key.stream();
  detail::parallel_ranges(n, opt.threads, 1, [&](uint64_t b, uint64_t e) {
    for (uint64_t i = b; i < e; ++i)
      store(dt, out, i, gammad::variate_at(alpha[i], s, offset + gammad::kWords * i), false);
  });
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
    for (uint64_t r = b; r < e; ++r) {
      double sum = 0.0;  // left to right, binary64 (SPEC 11.4)
      for (uint64_t i = 0; i < k; ++i) {
        const uint64_t el = r * k + i;
        g[i] = gammad::variate_at(alpha[el], s, offset + gammad::kWords * el);
        sum = sum + g[i];
      }
      for (uint64_t i = 0; i < k; ++i) store(dt, out, r * k + i, g[i] / sum, true);
    }
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
  detail::parallel_ranges(n, opt.threads, 1, [&](uint64_t b, uint64_t e) {
    for (uint64_t i = b; i < e; ++i) {
      const double k = poissond::count_at(rate[i], s, offset + poissond::kWords * i);
      switch (dt) {
        case DType::f64: static_cast<double*>(out)[i] = k; break;
        case DType::f32: static_cast<float*>(out)[i] = math::to_f32(k); break;
        case DType::f16: static_cast<uint16_t*>(out)[i] = math::f32_to_f16_bits(math::to_f32(k)); break;
        default: static_cast<uint16_t*>(out)[i] = math::f32_to_bf16_bits(math::to_f32(k)); break;
      }
    }
  });
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
  detail::parallel_ranges(n, opt.threads, 1, [&](uint64_t b, uint64_t e) {
    for (uint64_t i = b; i < e; ++i) {
      const double k = binomiald::count_at(count[i], prob[i], s, offset + binomiald::kWords * i);
      switch (dt) {
        case DType::f64: static_cast<double*>(out)[i] = k; break;
        case DType::f32: static_cast<float*>(out)[i] = math::to_f32(k); break;
        case DType::f16: static_cast<uint16_t*>(out)[i] = math::f32_to_f16_bits(math::to_f32(k)); break;
        default: static_cast<uint16_t*>(out)[i] = math::f32_to_bf16_bits(math::to_f32(k)); break;
      }
    }
  });
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
