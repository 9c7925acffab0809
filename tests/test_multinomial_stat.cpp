// Statistical checks of categorical sampling (SPEC.md section 10), fixed
// seeds, explicit thresholds (chi2_critical at z = 5: a one-sided tail of
// about 3e-7 per check).
#include <doctest/doctest.h>

#include <vector>

#include "host/xrng.h"
#include "stat_util.h"

using namespace xrng;

TEST_SUITE("stat") {
  TEST_CASE("multinomial with replacement: counts follow the weights (chi-square)") {
    for (uint64_t seed : {1u, 2u, 3u}) {
      const std::vector<double> w = {1, 2, 3, 4, 0, 10, 0.5, 1e-3};
      double W = 0;
      for (double x : w) W += x;
      const uint64_t n = 400000;
      std::vector<int64_t> out(n);
      FillOptions o;
      o.threads = 2;
      multinomial(w.data(), 1, w.size(), n, true, Key(seed), 0, out.data(), o);
      std::vector<uint64_t> obs;
      std::vector<double> exp;
      std::vector<uint64_t> count(w.size(), 0);
      for (int64_t v : out) ++count[v];
      CHECK(count[4] == 0);
      for (size_t i = 0; i < w.size(); ++i)
        if (w[i] > 0) {
          obs.push_back(count[i]);
          exp.push_back(n * w[i] / W);
        }
      CHECK(xrng_test::chi2(obs, exp) < xrng_test::chi2_critical(obs.size() - 1, 5.0));
    }
  }

  TEST_CASE("multinomial without replacement: ordered pairs follow sequential sampling (chi-square)") {
    // P(first i, second j) = w_i / W * w_j / (W - w_i)
    const std::vector<double> w = {1, 2, 3, 4, 6};
    const uint64_t k = w.size(), rows = 200000;
    double W = 0;
    for (double x : w) W += x;
    std::vector<double> all(rows * k);
    for (uint64_t r = 0; r < rows; ++r)
      for (uint64_t i = 0; i < k; ++i) all[r * k + i] = w[i];
    for (uint64_t seed : {11u, 12u}) {
      std::vector<int64_t> out(rows * 2);
      FillOptions o;
      o.threads = 2;
      multinomial(all.data(), rows, k, 2, false, Key(seed), 5, out.data(), o);
      std::vector<uint64_t> count(k * k, 0);
      for (uint64_t r = 0; r < rows; ++r) ++count[out[2 * r] * k + out[2 * r + 1]];
      std::vector<uint64_t> obs;
      std::vector<double> exp;
      for (uint64_t i = 0; i < k; ++i)
        for (uint64_t j = 0; j < k; ++j) {
          if (i == j) {
            CHECK(count[i * k + j] == 0);
            continue;
          }
          obs.push_back(count[i * k + j]);
          exp.push_back(rows * (w[i] / W) * (w[j] / (W - w[i])));
        }
      CHECK(xrng_test::chi2(obs, exp) < xrng_test::chi2_critical(obs.size() - 1, 5.0));
    }
  }

  TEST_CASE("multinomial without replacement, all k: each full ordering of 4 equally likely (chi-square)") {
    const uint64_t k = 4, rows = 240000;
    std::vector<double> all(rows * k, 1.0);
    std::vector<int64_t> out(rows * k);
    FillOptions o;
    o.threads = 2;
    multinomial(all.data(), rows, k, k, false, Key(21), 0, out.data(), o);
    std::vector<uint64_t> count(256, 0);
    for (uint64_t r = 0; r < rows; ++r) {
      uint64_t code = 0;
      for (uint64_t j = 0; j < k; ++j) code = code * 4 + static_cast<uint64_t>(out[r * k + j]);
      ++count[code];
    }
    std::vector<uint64_t> obs;
    std::vector<double> exp;
    for (uint64_t c = 0; c < 256; ++c) {
      const int a = c >> 6, b = (c >> 4) & 3, d = (c >> 2) & 3, e = c & 3;
      const bool perm = a != b && a != d && a != e && b != d && b != e && d != e;
      if (!perm) {
        CHECK(count[c] == 0);
        continue;
      }
      obs.push_back(count[c]);
      exp.push_back(rows / 24.0);
    }
    CHECK(obs.size() == 24);
    CHECK(xrng_test::chi2(obs, exp) < xrng_test::chi2_critical(23, 5.0));
  }
}
