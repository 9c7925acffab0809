// torch's CPU gamma and Dirichlet draws (torch._standard_gamma,
// torch._sample_dirichlet: ATen/native/Distributions.cpp _s_gamma_cpu and
// _s_dirichlet_cpu, torch 2.15) on torch's CPU generator (rng/torch_cpu.h
// State), bit for bit on any host. SPEC.md section 14.4
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

#include <algorithm>
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

// sample_gamma<T, double>(alpha) (T = float or double, torch's scalar_t):
// the binary64 sample rounded to T, before torch's clamp. Consumes the
// generator's words in torch's order; any alpha (torch refuses none: NaN
// and negative alphas give NaN after some draws, +inf gives +inf).
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

namespace detail {

// utils::CeilLog2 (ATen/native/cpu/utils.h): 1 for x <= 2, else the bit length of x - 1.
inline int64_t torch_ceil_log2(int64_t x) {
  if (x <= 2) return 1;
  int64_t n = 0;
  for (uint64_t v = static_cast<uint64_t>(x - 1); v != 0; v >>= 1) ++n;
  return n;
}

// multi_row_sum<acc, 4> (ATen/native/cpu/SumKernel.cpp): 4 columns summed
// over `size` rows at once in a cascade of 4 levels, each level taking
// 2^level_power of the one below; a value is V lanes (V = 1: a double; V
// = 4: a Vectorized<double> of torch's AVX2 and default builds, each lane
// summed alone). load(i, col, lane) is the element at row i.
template <int V, class Load>
inline void torch_multi_row_sum(int64_t size, Load load, double (&ret)[4][V]) {
  constexpr int kLevels = 4;
  const int64_t level_power = std::max<int64_t>(4, torch_ceil_log2(size) / kLevels);
  const int64_t level_step = int64_t{1} << level_power;
  const int64_t level_mask = level_step - 1;
  double acc[kLevels][4][V] = {};
  int64_t i = 0;
  while (i + level_step <= size) {
    for (int64_t j = 0; j < level_step; ++j, ++i)
      for (int c = 0; c < 4; ++c)
        for (int l = 0; l < V; ++l) acc[0][c][l] += load(i, c, l);
    for (int j = 1; j < kLevels; ++j) {
      for (int c = 0; c < 4; ++c)
        for (int l = 0; l < V; ++l) {
          acc[j][c][l] += acc[j - 1][c][l];
          acc[j - 1][c][l] = 0.0;
        }
      if ((i & (level_mask << (j * level_power))) != 0) break;
    }
  }
  for (; i < size; ++i)
    for (int c = 0; c < 4; ++c)
      for (int l = 0; l < V; ++l) acc[0][c][l] += load(i, c, l);
  for (int j = 1; j < kLevels; ++j)
    for (int c = 0; c < 4; ++c)
      for (int l = 0; l < V; ++l) acc[0][c][l] += acc[j][c][l];
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < V; ++l) ret[c][l] = acc[0][c][l];
}

// row_sum<acc> (SumKernel.cpp): the row of `size` values (V lanes each, at
// x[u V + lane]) as 4 interleaved columns (multi_row_sum), the remainder
// added to column 0, then columns 1, 2, 3 added to it.
template <int V>
inline void torch_row_sum(const double* x, int64_t size, double (&out)[V]) {
  const int64_t size_ilp = size / 4;
  double part[4][V];
  torch_multi_row_sum<V>(size_ilp, [x](int64_t i, int c, int l) { return x[(4 * i + c) * V + l]; }, part);
  for (int64_t u = size_ilp * 4; u < size; ++u)
    for (int l = 0; l < V; ++l) part[0][l] += x[u * V + l];
  for (int c = 1; c < 4; ++c)
    for (int l = 0; l < V; ++l) part[0][l] += part[c][l];
  for (int l = 0; l < V; ++l) out[l] = part[0][l];
}

}  // namespace detail

// torch's CPU sum of one contiguous float64 row of k values, as
// x.sum(-1) runs it on x86 (cascade_sum, SumKernel.cpp; the AVX2 kernel,
// which torch's AVX-512 build dispatches to as well, and the default
// kernel, both with 4-double vectors): for k >= 4, vectorized_inner_sum
// (k / 4 vectors summed lane-wise by row_sum, the k % 4 left-overs summed
// from 0 in order, then the 4 lanes added to that); for k < 4,
// scalar_inner_sum (row_sum of doubles); then added to the output's 0.
// Serial order: torch splits a single row over its threads (a different
// order per thread count) when the whole tensor has 32768 elements or more
// and only one row; the caller refuses that case.
inline double torch_cpu_row_sum(const double* x, int64_t k) {
  constexpr int W = 4;
  if (k >= W) {
    const int64_t vec_size = k / W;
    double vacc[W];
    detail::torch_row_sum<W>(x, vec_size, vacc);
    double acc = 0.0;
    for (int64_t j = vec_size * W; j < k; ++j) acc += x[j];
    for (int l = 0; l < W; ++l) acc += vacc[l];
    return 0.0 + acc;
  }
  double s[1];
  detail::torch_row_sum<1>(x, k, s);
  return 0.0 + s[0];
}

// The largest row torch sums in one serial order when it is the only row
// (at::internal::GRAIN_SIZE): from there on torch's threads split it.
inline constexpr int64_t kTorchCpuSumGrain = 32768;

// torch._sample_dirichlet(alpha) on CPU, `rows` rows of k > 0 alphas,
// contiguous: every element's gamma first, in memory order, as
// sample_gamma<double, double> of the alpha widened to double, clamped
// below at DBL_MIN; then each row's sum (torch_cpu_row_sum) and per element
// gamma / sum rounded to T, clamped to [numeric_limits<T>::min(),
// nexttoward(T(1), 0)]. `gamma` is rows * k doubles of scratch. Throws
// std::invalid_argument, before drawing, for a single row of 32768 or more
// (torch sums it in an order that depends on its thread count).
template <class T>
inline void dirichlet(State& s, const T* alpha, int64_t rows, int64_t k, T* out, double* gamma) {
  if (rows == 1 && k >= kTorchCpuSumGrain)
    throw std::invalid_argument("torch_cpu dirichlet: a single row of " + std::to_string(k) +
                                " categories (32768 or more) is not supported: torch sums it across its threads, in "
                                "an order that depends on their number");
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
    const double sum = torch_cpu_row_sum(g, k);
    for (int64_t j = 0; j < k; ++j) {
      const T v = static_cast<T>(g[j] / sum);
      const T a = lo < v ? v : lo;  // std::max(min_val, v)
      out[r * k + j] = a < hi ? a : hi;  // std::min(max_val, a)
    }
  }
}

}  // namespace xrng::torch_cpu
