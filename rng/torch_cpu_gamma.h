// torch's CPU gamma and Dirichlet draws (torch.\_standard_gamma,
// torch.\_sample_dirichlet: ATen/native/Distributions.cpp _s_gamma_cpu and
// _s_dirichlet_cpu, torch 2.15) on torch's CPU generator (rng/torch_cpu.h
// State), bit for bit on any host. docs/spec-drafts/torch-cpu-gamma.md
// defines them.
//
// Per element, in memory order (torch's cpu_serial_kernel over a
// contiguous tensor), torch's sample_gamma<scalar_t, double>
// (ATen/native/Distributions.h): Marsaglia and Tsang's method with alpha < 1
// boosted by a uniform's power 1/alpha, its uniforms
// at::uniform_real_distribution<double>(0, 1) (2 words each) and its normals
// at::normal_distribution<double>(0, 1) (the generator's cached second
// normal first, else 4 words, one normal cached). Its literals typed as C++
// promotes them: with a float alpha, 1.0f / alpha, alpha + 1.0f and
// alpha - 1.0f / 3.0f are float operations (the last two rounded to float
// before d is widened); the rest is binary64. No operation is fused
// (Distributions.cpp is built for the baseline x86-64 in torch's wheel),
// pow and log are glibc 2.36's (torch_cpu_pow.h, torch_cpu_math64.h), sqrt
// the correctly rounded one.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "rng/detail/torch_cpu_math64.h"
#include "rng/detail/torch_cpu_pow.h"
#include "rng/torch_cpu.h"

namespace xrng::torch_cpu {

// sample_gamma<T, double>(alpha) (T = float or double, torch's scalar_t),
// before torch's clamp: the value as a double (the caller rounds it to T).
// Consumes the generator's words in torch's order; any alpha torch accepts
// (NaN and negative alphas give NaN after some draws, as torch's).
template <class T>
inline T sample_gamma(State& s, T alpha) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
  double scale = 1.0;
  if (alpha < T(1)) {
    if (alpha == T(0)) return T(0);
    const double u = uniform_f64(s.random64());
    // compat_pow(1 - u, 1.0f / alpha): the exponent divided in T, widened.
    scale *= detail::glibc_pow(1.0 - u, static_cast<double>(T(1) / alpha));
    alpha += T(1);
  }
  // d = alpha - 1.0f / 3.0f: in T (1.0f / 3.0f the float constant), widened.
  const double d = static_cast<double>(alpha - static_cast<T>(1.0f / 3.0f));
  const double c = 1.0 / std::sqrt(9.0 * d);
  const double k0331 = static_cast<double>(0.0331f);
  for (;;) {
    double x, y;
    do {
      x = normal_f64_value(s, 0.0, 1.0, Kernel::scalar);  // (ret * 1 + 0: the same either kernel)
      y = 1.0 + c * x;
    } while (y <= 0);
    const double v = y * y * y;
    const double u = 1.0 - uniform_f64(s.random64());
    const double xx = x * x;
    if (u < 1.0 - k0331 * xx * xx) return static_cast<T>(scale * d * v);
    if (detail::glibc_log(u) < 0.5 * xx + d * (1.0 - v + detail::glibc_log(v))) return static_cast<T>(scale * d * v);
  }
}

// torch._standard_gamma(alpha) on CPU, one element: sample_gamma, then
// std::max(numeric_limits<T>::min(), sample) (a zero or NaN sample gives
// the smallest normal T).
template <class T>
inline T standard_gamma_value(State& s, T alpha) {
  const T v = sample_gamma<T>(s, alpha);
  const T lo = std::numeric_limits<T>::min();
  return lo < v ? v : lo;  // std::max(lo, v)
}

// torch._standard_gamma over n contiguous alphas.
template <class T>
inline void standard_gamma(State& s, const T* alpha, int64_t n, T* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = standard_gamma_value<T>(s, alpha[i]);
}

// torch._sample_dirichlet(alpha) on CPU for rows of k <= 2 (the only rows
// whose sum cannot depend on torch's reduction order): every element's
// gamma first, in memory order, as sample_gamma<double, double> of the
// alpha widened to double, clamped below at DBL_MIN; then per row its sum
// and per element gamma / sum rounded to T, clamped to
// [numeric_limits<T>::min(), nexttoward(T(1), 0)]. `gamma` is rows * k
// doubles of scratch. Throws std::invalid_argument (before drawing) for
// k > 2.
template <class T>
inline void dirichlet(State& s, const T* alpha, int64_t rows, int64_t k, T* out, double* gamma) {
  if (k > 2)
    throw std::invalid_argument(
        "torch_cpu dirichlet: rows of " + std::to_string(k) +
        " categories are not supported (torch's sum over more than 2 depends on its reduction order; k <= 2 only)");
  const int64_t n = rows * k;
  for (int64_t i = 0; i < n; ++i) {
    const double g = sample_gamma<double>(s, static_cast<double>(alpha[i]));
    const double lo = std::numeric_limits<double>::min();
    gamma[i] = lo < g ? g : lo;
  }
  const T lo = std::numeric_limits<T>::min();
  const T hi = static_cast<T>(std::nexttoward(static_cast<T>(1.0f), 0.0L));
  for (int64_t r = 0; r < rows; ++r) {
    const double* g = gamma + r * k;
    const double sum = k == 1 ? g[0] : g[0] + g[1];
    for (int64_t j = 0; j < k; ++j) {
      const T v = static_cast<T>(g[j] / sum);
      const T a = lo < v ? v : lo;  // std::max(min_val, v)
      out[r * k + j] = a < hi ? a : hi;  // std::min(max_val, a)
    }
  }
}

}  // namespace xrng::torch_cpu
