// Statistics helpers of the "stat" suite: Kolmogorov-Smirnov, chi-square
// critical values and moment checks. Thresholds are chosen in the tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace xrng_test {

// sqrt(n) * D_n of a sample against a continuous CDF (the sample is sorted in
// place). Under the null hypothesis sqrt(n) D_n follows Kolmogorov's law
// asymptotically: P(K > x) ~ 2 exp(-2 x^2).
template <class T, class Cdf>
double ks_sqrt_n_d(std::vector<T>& x, Cdf cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(static_cast<double>(x[i]));
    d = std::max(d, std::max(static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n));
  }
  return d * std::sqrt(n);
}

// Upper critical value of chi-square with `df` degrees of freedom at a
// standard-normal quantile z (Wilson-Hilferty): P(X > c) ~ P(Z > z). z = 4
// is a one-sided tail of 3.2e-5; for df = 1 the approximation is
// conservative (the true tail is smaller).
inline double chi2_critical(double df, double z) {
  const double a = 2.0 / (9.0 * df);
  const double c = 1.0 - a + z * std::sqrt(a);
  return df * c * c * c;
}

inline double chi2(const std::vector<uint64_t>& observed, const std::vector<double>& expected) {
  double s = 0.0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double d = static_cast<double>(observed[i]) - expected[i];
    s += d * d / expected[i];
  }
  return s;
}

// Raw sample moments E[x^k], k = 1..4, accumulated in long double.
struct Moments {
  long double s[5] = {0, 0, 0, 0, 0};
  uint64_t n = 0;
  template <class T>
  void add(const std::vector<T>& v) {
    for (const T& t : v) {
      const long double x = static_cast<long double>(t);
      long double p = 1;
      for (int k = 1; k <= 4; ++k) {
        p *= x;
        s[k] += p;
      }
    }
    n += v.size();
  }
  double mean(int k) const { return static_cast<double>(s[k] / static_cast<long double>(n)); }
};

// Standard normal CDF.
inline double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// CDFs of the other continuous laws of the suite (libm is fine here: these
// judge samples, they produce no stream value).
inline double exponential_cdf(double x, double rate) { return x <= 0.0 ? 0.0 : -std::expm1(-rate * x); }
inline double log_normal_cdf(double x, double mean, double std) {
  return x <= 0.0 ? 0.0 : normal_cdf((std::log(x) - mean) / std);
}
inline double cauchy_cdf(double x, double median, double sigma) {
  return 0.5 + std::atan((x - median) / sigma) / 3.14159265358979323846;
}

// The sample q-quantile of a sorted sample (the element of rank ceil(q n)).
// Its standard error is sqrt(q (1 - q) / n) / f(x_q) for a density f.
template <class T>
double sample_quantile(const std::vector<T>& sorted, double q) {
  size_t r = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  if (r > 0) --r;
  return static_cast<double>(sorted[std::min(r, sorted.size() - 1)]);
}

// A count of rare events against its expectation lambda (binomial with a
// small p, so about Poisson): accepted when |count - lambda| <= 5 sqrt(lambda)
// + 3, a band a Poisson variable leaves with probability below 1e-5 for
// lambda >= 1 (the + 3 covers the small-lambda end).
inline bool poisson_count_ok(uint64_t count, double lambda) {
  return std::fabs(static_cast<double>(count) - lambda) <= 5.0 * std::sqrt(lambda) + 3.0;
}

}  // namespace xrng_test
