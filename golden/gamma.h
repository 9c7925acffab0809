// Known answers of the gamma family, Poisson and binomial (SPEC.md sections 11-13):
// tests/data/golden_v2_gamma.txt, written by tools/make_golden_gamma.cpp
// (cmake --build build --target golden_gamma) and checked by
// tests/test_gamma.cpp (this text equals the file) and
// tests/python/test_gamma.py (every line through xrng.gamma / xrng.dirichlet).
//
// One case per line, whitespace-separated tokens in this order:
//   op=<gamma|dirichlet|poisson|binomial> seed=<hex> subseq=<hex> offset=<hex> rows=<dec> k=<dec>
//   dtype=<f64|f32|f16|bf16>
//   alpha=<%a>,<%a>,...     the rows * k binary64 alphas (poisson: rates; binomial: counts), row-major, exact
//   prob=<%a>,...           binomial only: the probabilities
//   out=<hex>,<hex>,...     the rows * k results' bit patterns (of the dtype)
// gamma's, poisson's and binomial's cases are rows = 1. '#' starts a comment line. The definition does
// not depend on the stream version.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "host/xrng.h"

namespace xrng::golden {

struct GammaCase {
  bool dirichlet = false;
  bool poisson = false;
  bool binomial = false;
  std::vector<double> prob;  // binomial
  uint64_t seed = 0, subseq = 0, offset = 0;
  uint64_t rows = 1, k = 1;
  DType dtype = DType::f64;
  std::vector<double> alpha;
};

// x rounded to a value of dtype t (to nearest even; clamped to its smallest
// positive and largest finite values; 0 stays 0), as a binary64.
inline double value_of(DType t, double x) {
  if (x == 0.0) return 0.0;
  const float f = std::max(static_cast<float>(x), 0x1p-149f);
  switch (t) {
    case DType::f32: return f;
    case DType::f16: return std::max(math::f16_bits_to_f32(math::f32_to_f16_bits(std::min(f, 65504.0f))), 0x1p-24f);
    case DType::bf16: return std::max(math::bf16_bits_to_f32(math::f32_to_bf16_bits(f)), 0x1p-133f);
    default: return x;
  }
}

// Alphas across every branch: below 1 (the boost; tiny ones whose variates
// reach the clamp), 1, between, large; f32 / f16 / bf16 outputs (their clamps);
// offsets crossing Philox blocks; Dirichlet rows with a dominant concentration.
inline std::vector<GammaCase> gamma_cases() {
  std::vector<GammaCase> v;
  auto add = [&](bool dir, uint64_t seed, uint64_t offset, uint64_t rows, uint64_t k, DType dt, std::vector<double> a) {
    GammaCase c;
    c.dirichlet = dir;
    c.seed = seed;
    c.subseq = seed % 3;
    c.offset = offset;
    c.rows = rows;
    c.k = k;
    c.dtype = dt;
    for (double& x : a) x = value_of(dt, x);  // every alpha a value of the case's dtype
    c.alpha = std::move(a);
    v.push_back(std::move(c));
  };
  const std::vector<double> mix = {1e-3, 0.05, 0.3, 0.5, 0.999, 1.0, 1.5, 2.0, 3.7, 10.0, 100.0, 12345.678};
  for (DType dt : {DType::f64, DType::f32, DType::f16, DType::bf16}) {
    add(false, 0, 0, 1, mix.size(), dt, mix);
    add(false, 0x243f6a8885a308d3ull, 5, 1, 6, dt, {1e-30, 0x1p-149, 1e-8, 0.01, 0.2, 1e30});
    add(true, 42, 3, 3, 4, dt, {1.0, 1.0, 1.0, 1.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 100.0, 1e-4});
    add(true, 7, 1, 2, 2, dt, {2.0, 3.0, 0.5, 0.5});  // Beta(2, 3), Beta(1/2, 1/2)
  }
  const std::vector<double> rates = {0.0, 1e-3, 0.5, 1.0, 3.3, 9.99, 10.0, 10.5, 17.0, 100.0, 12345.0, 0x1p32};
  for (DType dt : {DType::f64, DType::f32, DType::f16, DType::bf16}) {
    add(false, 11, 2, 1, rates.size(), dt, rates);
    v.back().poisson = true;
  }
  const std::vector<double> counts = {0, 1, 5, 20, 20, 21, 100, 100, 1000, 1000, 65504, 0x1p32, 7, 50};
  const std::vector<double> probs = {0.5, 0.3, 0.5, 0.5, 0.49, 0.75, 0.1, 0.99, 0.01, 0.5, 0.001, 0.25, 1.0, 0.0};
  for (DType dt : {DType::f64, DType::f32, DType::f16, DType::bf16}) {
    add(false, 21, 6, 1, counts.size(), dt, counts);
    v.back().binomial = true;
    v.back().prob = probs;
    for (double& p : v.back().prob) p = value_of(DType::f32, p) == 0.0 ? 0.0 : value_of(dt, p);
  }
  std::vector<double> many(40);
  for (int i = 0; i < 40; ++i) many[i] = 0.05 + 0.25 * i;
  add(false, 2026, 11, 1, 40, DType::f32, many);
  return v;
}

inline const char* gamma_dtype_name(DType t) {
  switch (t) {
    case DType::f64: return "f64";
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    default: return "?";
  }
}

// The rows * k results of case c as bit patterns, from the host (one thread).
inline std::vector<uint64_t> gamma_case_bits(const GammaCase& c) {
  const uint64_t n = c.rows * c.k;
  std::vector<unsigned char> buf(n * 8);
  const Key key(c.seed, c.subseq);
  if (c.binomial)
    binomial(c.alpha.data(), c.prob.data(), n, key, c.offset, c.dtype, buf.data());
  else if (c.poisson)
    poisson(c.alpha.data(), n, key, c.offset, c.dtype, buf.data());
  else if (c.dirichlet)
    dirichlet(c.alpha.data(), c.rows, c.k, key, c.offset, c.dtype, buf.data());
  else
    gamma(c.alpha.data(), n, key, c.offset, c.dtype, buf.data());
  const int sz = dtype_size(c.dtype);
  std::vector<uint64_t> bits(n, 0);
  for (uint64_t i = 0; i < n; ++i) std::memcpy(&bits[i], buf.data() + i * sz, sz);  // little-endian
  return bits;
}

inline std::string gamma_case_line(const GammaCase& c, const std::vector<uint64_t>& bits) {
  char b[160];
  std::snprintf(b, sizeof b,
                "op=%s seed=%" PRIx64 " subseq=%" PRIx64 " offset=%" PRIx64 " rows=%" PRIu64 " k=%" PRIu64 " dtype=%s",
                c.binomial ? "binomial" : c.poisson ? "poisson" : c.dirichlet ? "dirichlet" : "gamma", c.seed, c.subseq, c.offset, c.rows, c.k,
                gamma_dtype_name(c.dtype));
  std::string s = b;
  s += " alpha=";
  for (size_t i = 0; i < c.alpha.size(); ++i) {
    std::snprintf(b, sizeof b, "%s%a", i ? "," : "", c.alpha[i]);
    s += b;
  }
  if (c.binomial) {
    s += " prob=";
    for (size_t i = 0; i < c.prob.size(); ++i) {
      std::snprintf(b, sizeof b, "%s%a", i ? "," : "", c.prob[i]);
      s += b;
    }
  }
  s += " out=";
  for (size_t i = 0; i < bits.size(); ++i) {
    std::snprintf(b, sizeof b, "%s%" PRIx64, i ? "," : "", bits[i]);
    s += b;
  }
  return s + "\n";
}

inline std::string gamma_golden_text() {
  std::string t =
      "# xrng gamma family, Poisson and binomial (gamma, dirichlet, poisson, binomial) known answers, SPEC.md sections 11-13.\n"
      "# Written by tools/make_golden_gamma.cpp (cmake --build build --target golden_gamma);\n"
      "# format: golden/gamma.h. Do not edit.\n";
  for (const GammaCase& c : gamma_cases()) t += gamma_case_line(c, gamma_case_bits(c));
  return t;
}

}  // namespace xrng::golden
