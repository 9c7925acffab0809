// torch.poisson and torch.binomial on torch's CPU generator, bit for bit
// (torch 2.15: aten/src/ATen/native/Distributions.cpp's _s_poisson_cpu and
// sample_poisson, ATen/native/Distributions.h's sample_binomial, btrs,
// binomial_inversion and stirling_approx_tail, as _s_binomial_cpu
// instantiates them: sample_binomial<scalar_t, double>). Defined in
// SPEC.md section 14.5.
//
// Both draw per element, in torch's element order, a data-dependent number
// of uniforms u = at::uniform_real_distribution<double>(0, 1) (2 words of
// the engine each: uniform_f64(random64())), and neither touches the
// cached normals. Distributions.cpp is compiled once, for base x86-64 (no
// CPU-capability variants): objdump -d of torch 2.15's libtorch_cpu.so
// shows no VEX instruction in sample_poisson, in either btrs or in the
// binomial loops, so nothing is fused; every operation below is the plain
// IEEE one of the C++ source, with C++'s promotions (float arithmetic where
// the source mixes only float operands, binary64 where a double enters).
// libm: log, exp, log1p through glibc's x86-64 ifunc (the FMA variants,
// rng/detail/torch_cpu_math64.h), lgamma and log1pf (plain, no variants:
// rng/detail/torch_cpu_lgamma.h); sqrt, floor, ceil, fabs are exact.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "rng/detail/torch_cpu_lgamma.h"
#include "rng/detail/torch_cpu_math64.h"
#include "rng/torch_cpu.h"

namespace xrng::torch_cpu {

namespace detail {

// x86-64's cvttsd2si: truncation toward zero, and 0x8000000000000000 for
// NaN and for anything outside [-2^63, 2^63) (where C++'s conversion is
// undefined: what torch's x86-64 build then returns).
inline int64_t x86_double_to_int64(double v) {
  if (v >= -0x1p63 && v < 0x1p63) return static_cast<int64_t>(v);
  return std::numeric_limits<int64_t>::min();
}

inline double std_uniform(State& s) { return uniform_f64(s.random64()); }

// stirling_approx_tail<double>: log k! minus Stirling's approximation; a
// table below 10 (indexed by the truncated argument), the series above.
inline double stirling_approx_tail(double k) {
  static constexpr double kTail[10] = {0.0810614667953272,  0.0413406959554092,  0.0276779256849983,
                                       0.02079067210376509, 0.0166446911898211,  0.0138761288230707,
                                       0.0118967099458917,  0.0104112652619720,  0.00925546218271273,
                                       0.00833056343336287};
  if (k < 10) return kTail[static_cast<size_t>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// binomial_inversion<T, double>: count geometric waiting times until their
// sum passes count. log1p(-prob) in T (log1pf for float), the rest binary64.
template <class T>
T binomial_inversion(State& s, T count, T prob) {
  double logprob;
  if constexpr (std::is_same_v<T, float>)
    logprob = static_cast<double>(glibc_log1pf(-prob));
  else
    logprob = glibc_log1p(-prob);
  double geom_sum = 0;
  T num_geom = 0;
  while (true) {
    const double u = std_uniform(s);
    const double geom = std::ceil(glibc_log(u) / logprob);
    geom_sum += geom;
    if (geom_sum > count) break;
    num_geom = num_geom + T(1);
  }
  return num_geom;
}

// btrs<T, double>: Hormann's transformed rejection with squeeze (BTRS), as
// TensorFlow's and torch's code has it (without the log in the squeeze).
// Two uniforms per try, U first.
template <class T>
T btrs(State& s, T count, T prob) {
  const double stddev = std::sqrt(count * prob * (T(1) - prob));  // in T
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;  // the product in T
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (T(1) - prob);  // in T
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + T(1)) * prob);  // in T
  while (true) {
    const double U = std_uniform(s) - 0.5;
    double V = std_uniform(s);
    const double us = 0.5 - std::fabs(U);
    const T k = static_cast<T>(std::floor((2 * a / us + b) * U + c));
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && V <= v_r) return k;
    V = glibc_log(V * alpha / (a / (us * us) + b));
    // (count + 1), (count - k + 1) and (k + 1) in T; every other term binary64
    const double upperbound = (m + 0.5) * glibc_log((m + 1) / (r * (count - m + 1))) +
                              (count + T(1)) * glibc_log((count - m + 1) / (count - k + T(1))) +
                              (k + 0.5) * glibc_log(r * (count - k + T(1)) / (k + T(1))) + stirling_approx_tail(m) +
                              stirling_approx_tail(count - m) - stirling_approx_tail(k) -
                              stirling_approx_tail(count - k);
    if (V <= upperbound) return k;
  }
}

}  // namespace detail

// True where torch's CPU binomial never returns (count NaN with prob in
// (0, 1): binomial_inversion's `geom_sum > count` is never true). Callers
// refuse these before drawing.
template <class T>
bool binomial_never_returns(T count, T prob) {
  return std::isnan(count) && prob > 0 && prob < 1;
}

// torch.binomial's element (sample_binomial<T, double>), T float or
// double: 0 for count <= 0 or prob <= 0, count for prob >= 1 (no draw);
// BTRS where count min(p, 1 - p) >= 10, inversion below (for p > 1/2 on
// q = 1 - p, rounded to T, returning count - the draw); NaN for a NaN prob.
// Precondition: !binomial_never_returns(count, prob).
template <class T>
T binomial_value(State& s, T count, T prob) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "torch's CPU binomial: float or double");
  if (count <= 0.0 || prob <= 0.0) return 0;
  if (prob >= 1.0) return count;
  if (prob <= 0.5) {
    if (count * prob >= 10.0) return detail::btrs(s, count, prob);
    return detail::binomial_inversion(s, count, prob);
  }
  if (prob > 0.5) {
    const T qprob = static_cast<T>(1.0 - prob);
    if (count * qprob >= 10.0) return count - detail::btrs(s, count, qprob);
    return count - detail::binomial_inversion(s, count, qprob);
  }
  return std::numeric_limits<T>::quiet_NaN();
}

// torch.poisson's element (sample_poisson(double(rate))), lambda >= 0 (not
// NaN: torch refuses it). 0 for lambda 0 (no draw); below 10 the product of
// uniforms against exp(-lambda); from 10 Hormann's PTRS (1993) with
// lgamma. The int64 result is what torch's x86-64 build returns: its k is
// floor(...) kept in binary64 (GCC drops the int64 round trip, undefined
// outside int64) and converted by cvttsd2si on return, so a rate whose draw
// passes 2^63 (from about 9.2e18, or +inf) gives INT64_MIN. The caller
// casts to the dtype as torch does (static_cast<scalar_t>(int64)).
inline int64_t poisson_value(State& s, double lambda) {
  using detail::glibc_log;
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda);
    const double loglam = glibc_log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2);
    while (true) {
      const double U = detail::std_uniform(s) - 0.5;
      const double V = detail::std_uniform(s);
      const double us = 0.5 - std::fabs(U);
      const double k = std::floor((2 * a / us + b) * U + lambda + 0.43);
      if (us >= 0.07 && V <= vr) return detail::x86_double_to_int64(k);
      if (k < 0 || (us < 0.013 && V > us)) continue;
      if ((glibc_log(V) + glibc_log(invalpha) - glibc_log(a / (us * us) + b)) <=
          (-lambda + k * loglam - detail::glibc_lgamma(k + 1)))
        return detail::x86_double_to_int64(k);
    }
  }
  if (lambda == 0) return 0;
  const double enlam = detail::glibc_exp(-lambda);
  int64_t x = 0;
  double prod = 1.0;
  while (true) {
    prod *= detail::std_uniform(s);
    if (prod > enlam)
      x += 1;
    else
      return x;
  }
}

}  // namespace xrng::torch_cpu
