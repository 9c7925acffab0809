// Known answers of categorical sampling (SPEC.md section 10):
// tests/data/golden_v2_multinomial.txt, written by tools/make_golden_multinomial.cpp
// (cmake --build build --target golden_multinomial) and checked by
// tests/test_multinomial.cpp (this text equals the file) and
// tests/python/test_multinomial.py (every line through xrng.multinomial).
//
// One case per line, whitespace-separated tokens in this order:
//   op=multinomial seed=<hex> subseq=<hex> offset=<hex> rows=<dec> k=<dec>
//   num_samples=<dec> replacement=<0|1>
//   weights=<%a>,<%a>,...      the rows * k binary64 weights, row-major, exact
//   out=<dec>,<dec>,...        the rows * num_samples category indices
// '#' starts a comment line. The file is a separate one so that the stream
// files golden_v1.txt / golden_v2.txt stay byte for byte as they are; the
// definition does not depend on the stream version.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "host/xrng.h"

namespace xrng::golden {

struct MultinomialCase {
  uint64_t seed = 0, subseq = 0, offset = 0;
  uint64_t rows = 1, k = 1, num_samples = 1;
  bool replacement = true;
  std::vector<double> weights;
};

// The cases: shapes and weights that reach every branch (zero weights, a
// category alone, equal weights, tiny weights on the scaled path, weights
// near the top of binary64, f16/bf16/f32 values, ns = k without
// replacement, several rows, odd offsets crossing Philox blocks).
inline std::vector<MultinomialCase> multinomial_cases() {
  std::vector<MultinomialCase> v;
  auto add = [&](uint64_t seed, uint64_t offset, uint64_t rows, uint64_t k, uint64_t ns, bool repl,
                 std::vector<double> w) {
    MultinomialCase c;
    c.seed = seed;
    c.subseq = seed % 3;
    c.offset = offset;
    c.rows = rows;
    c.k = k;
    c.num_samples = ns;
    c.replacement = repl;
    c.weights = std::move(w);
    v.push_back(std::move(c));
  };
  for (int repl = 1; repl >= 0; --repl) {
    const bool r = repl != 0;
    add(0, 0, 1, 4, r ? 16 : 4, r, {0.1, 0.2, 0.3, 0.4});
    add(42, 3, 1, 5, r ? 12 : 3, r, {0.0, 1.0, 0.0, 2.0, 0.0});
    add(7, 1, 1, 1, r ? 5 : 1, r, {3.5});
    add(123456789, 5, 1, 8, r ? 10 : 8, r, {1, 1, 1, 1, 1, 1, 1, 1});
    add(0x243f6a8885a308d3ull, 7, 3, 4, r ? 6 : 2, r,
        {1.0, 2.0, 3.0, 4.0, 4.0, 3.0, 2.0, 1.0, 0.0, 0.0, 1e-300, 1.0});
    add(99, 2, 1, 3, r ? 8 : 3, r, {0x1p-1074, 0x3p-1074, 0x1p-1073});          // tiny: the scaled path
    add(98, 0, 1, 3, r ? 8 : 3, r, {0x1.fffffffffffffp1021, 0x1p1021, 0x1p1020});  // the sum just finite
    add(5, 9, 2, 6, r ? 7 : 6, r,
        {0x1.99999ap-4, 0x1.fep127, 1.0, 0x1p-24, 65504.0, 0x1p-14,  // f32 / bf16 / f16 values
         0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625});
    std::vector<double> w(64);
    for (int i = 0; i < 64; ++i) w[i] = static_cast<double>((i * 37 + 11) % 64) / 8.0;
    add(2026, 11, 2, 32, r ? 20 : 20, r, w);
  }
  return v;
}

inline std::string multinomial_case_line(const MultinomialCase& c, const std::vector<int64_t>& out) {
  char b[128];
  std::snprintf(b, sizeof b,
                "op=multinomial seed=%" PRIx64 " subseq=%" PRIx64 " offset=%" PRIx64 " rows=%" PRIu64 " k=%" PRIu64
                " num_samples=%" PRIu64 " replacement=%d",
                c.seed, c.subseq, c.offset, c.rows, c.k, c.num_samples, c.replacement ? 1 : 0);
  std::string s = b;
  s += " weights=";
  for (size_t i = 0; i < c.weights.size(); ++i) {
    std::snprintf(b, sizeof b, "%s%a", i ? "," : "", c.weights[i]);
    s += b;
  }
  s += " out=";
  for (size_t i = 0; i < out.size(); ++i) {
    std::snprintf(b, sizeof b, "%s%" PRId64, i ? "," : "", out[i]);
    s += b;
  }
  return s + "\n";
}

// The whole file, from the host scalar path (one thread).
inline std::string multinomial_golden_text() {
  std::string t =
      "# xrng categorical sampling (multinomial) known answers, SPEC.md section 10.\n"
      "# Written by tools/make_golden_multinomial.cpp (cmake --build build --target golden_multinomial);\n"
      "# format: golden/multinomial.h. Do not edit.\n";
  for (const MultinomialCase& c : multinomial_cases()) {
    std::vector<int64_t> out(c.rows * c.num_samples);
    multinomial(c.weights.data(), c.rows, c.k, c.num_samples, c.replacement, Key(c.seed, c.subseq), c.offset,
                out.data());
    t += multinomial_case_line(c, out);
  }
  return t;
}

}  // namespace xrng::golden
