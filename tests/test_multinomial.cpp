// Categorical sampling (SPEC.md section 10): known answers, invariance to
// threads and to how rows are split, the word layout, the errors, the exact
// race order. Statistical checks: test_multinomial_stat.cpp ("stat").
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "golden/multinomial.h"
#include "host/xrng.h"
#include "rng/multinomial.h"

using namespace xrng;

namespace {
std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
std::vector<int64_t> draw(const std::vector<double>& w, uint64_t rows, uint64_t k, uint64_t ns, bool repl,
                          const Key& key, uint64_t offset, int threads = 1) {
  std::vector<int64_t> out(rows * ns, -1);
  FillOptions o;
  o.threads = threads;
  multinomial(w.data(), rows, k, ns, repl, key, offset, out.data(), o);
  return out;
}
std::vector<double> some_weights(uint64_t n, uint64_t seed) {
  std::vector<double> w(n);
  uniform(Key(seed, 9), 0, w.data(), n, 0.0, 1.0);
  for (uint64_t i = 0; i < n; i += 7) w[i] = 0.0;  // some zero weights
  return w;
}
}  // namespace

TEST_CASE("multinomial: the committed known answers are the reference's") {
  const std::string file = read_file(std::string(XRNG_TEST_DATA_DIR) + "/golden_v2_multinomial.txt");
  REQUIRE(!file.empty());
  CHECK(file == golden::multinomial_golden_text());
}

TEST_CASE("multinomial: the same values for any thread count, and per row (words of its own)") {
  const uint64_t rows = 40, k = 300;
  const std::vector<double> w = some_weights(rows * k, 1);
  for (bool repl : {true, false}) {
    const uint64_t ns = repl ? 500 : 100;
    const auto ref = draw(w, rows, k, ns, repl, Key(3, 1), 17);
    for (int t : {2, 3, 8, 0}) CHECK(draw(w, rows, k, ns, repl, Key(3, 1), 17, t) == ref);
    // rows [5, 12) alone, at the offset where their words start: the same values
    const uint64_t per = repl ? 2 * ns : 2 * k;
    const std::vector<double> part(w.begin() + 5 * k, w.begin() + 12 * k);
    const auto sub = draw(part, 7, k, ns, repl, Key(3, 1), 17 + 5 * per);
    CHECK(std::vector<int64_t>(ref.begin() + 5 * ns, ref.begin() + 12 * ns) == sub);
  }
}

TEST_CASE("multinomial: with replacement, sample j of a one-row draw is the first samples' prefix") {
  const std::vector<double> w = some_weights(50, 2);
  const auto a = draw(w, 1, 50, 1000, true, Key(8), 0);
  const auto b = draw(w, 1, 50, 300, true, Key(8), 0);
  CHECK(std::vector<int64_t>(a.begin(), a.begin() + 300) == b);
  // and sample j reads words 2j, 2j+1: starting 2*300 words later gives samples 300..
  const auto c = draw(w, 1, 50, 700, true, Key(8), 600);
  CHECK(std::vector<int64_t>(a.begin() + 300, a.end()) == c);
}

TEST_CASE("multinomial: zero weights are never drawn with replacement, drawn last (by index) without") {
  const std::vector<double> w = {0, 5, 0, 0, 1e-300, 0, 2};
  for (int64_t v : draw(w, 1, 7, 5000, true, Key(4), 0)) CHECK((v == 1 || v == 4 || v == 6));
  const auto o = draw(w, 1, 7, 7, false, Key(4), 0);
  CHECK(std::vector<int64_t>(o.begin() + 3, o.end()) == std::vector<int64_t>{0, 2, 3, 5});
  // without replacement each row is a permutation's prefix: no repeats
  const std::vector<double> u = some_weights(64 * 20, 5);
  const auto p = draw(u, 20, 64, 64, false, Key(6), 3);
  for (int r = 0; r < 20; ++r) {
    std::vector<int> seen(64, 0);
    for (int j = 0; j < 64; ++j) ++seen[p[r * 64 + j]];
    for (int i = 0; i < 64; ++i) CHECK(seen[i] == 1);
  }
}

TEST_CASE("multinomial: the race order is exact (integer cross products)") {
  using namespace categorical;
  // keys equal as rationals: E w' = E' w exactly, with different doubles
  const Exact e1 = exact_of(3.0), w1 = exact_of(1.5), e2 = exact_of(0.75), w2 = exact_of(0.375);
  CHECK(compare_products(e1, w2, e2, w1) == 0);  // 3 * 0.375 == 0.75 * 1.5
  // differences in the last bit of a 106-bit product are seen
  const double a = 1.0 + 0x1p-52, b = 1.0 - 0x1p-53;
  CHECK(compare_products(exact_of(a), exact_of(b), exact_of(1.0), exact_of(1.0)) == 1);  // a b = 1 + 2^-53 - 2^-105 > 1
  CHECK(compare_products(exact_of(1.0), exact_of(1.0), exact_of(a), exact_of(b)) == -1);
  // subnormal and huge magnitudes
  CHECK(compare_products(exact_of(0x1p-1074), exact_of(0x1p1023), exact_of(0x1p-52), exact_of(0x1p2)) == -1);
  CHECK(compare_products(exact_of(0x1p-1074), exact_of(0x1p1023), exact_of(0x1p-52), exact_of(0x1p1)) == 0);  // 2^-51 both
  CHECK(compare_products(exact_of(0x1.fffffffffffffp1023), exact_of(36.0), exact_of(0x1p-1074), exact_of(1.0)) == 1);
  // the order of the race: ties by index, zeros last
  const RaceEntry x{exact_of(1.0), exact_of(2.0), 5}, y{exact_of(0.5), exact_of(1.0), 3}, z{exact_of(0.1), exact_of(0.0), 0};
  CHECK(before(y, x));
  CHECK(!before(x, y));
  CHECK(before(x, z));
  CHECK(!before(z, x));
}

TEST_CASE("multinomial: errors, one line, before anything is written") {
  std::vector<int64_t> out(8, -7);
  auto bad = [&](std::vector<double> w, uint64_t rows, uint64_t k, uint64_t ns, bool repl, const char* what,
                 uint64_t offset = 0) {
    try {
      multinomial(w.data(), rows, k, ns, repl, Key(1), offset, out.data());
      FAIL("no error for " << what);
    } catch (const Error& e) {
      CHECK_MESSAGE(std::string(e.what()).find(what) != std::string::npos, e.what());
    }
    for (int64_t v : out) CHECK(v == -7);
  };
  const double inf = 1.0 / 0.0;
  bad({1, -1}, 1, 2, 1, true, "element < 0");
  bad({1, 0.0 / 0.0}, 1, 2, 1, true, "nan");
  bad({1, inf}, 1, 2, 1, true, "inf");
  bad({1, 1, 0, 0}, 2, 2, 1, true, "row 1: invalid multinomial distribution (sum of probabilities <= 0)");
  bad({0x1p1023, 0x1p1023}, 1, 2, 1, true, "overflows");
  bad({1, 2}, 1, 2, 3, false, "cannot sample num_samples = 3 > 2 categories without replacement");
  bad({1, 2}, 1, 2, 0, true, "num_samples <= 0");
  bad({}, 1, 0, 1, true, "no categories");
  bad({1, 2}, 1, 2, 2, true, "counter overflow", ~uint64_t{0} - 2);
  // rows = 0: nothing to draw, nothing consumed beyond the checks
  CHECK_NOTHROW(multinomial(nullptr, 0, 3, 2, true, Key(1), 0, nullptr));
  CHECK(multinomial_words(3, 10, 4, true) == 24);
  CHECK(multinomial_words(3, 10, 4, false) == 60);
}

TEST_CASE("multinomial: a Generator advances by the draw's words, and not on a refused draw") {
  Generator g(5);
  std::vector<double> w = {1, 2, 3};
  std::vector<int64_t> out(4);
  g.multinomial(w.data(), 1, 3, 4, true, out.data());
  CHECK(g.offset() == 8);
  CHECK(out == draw(w, 1, 3, 4, true, Key(5), 0));
  std::vector<double> bad = {1, -2, 3};
  CHECK_THROWS_AS(g.multinomial(bad.data(), 1, 3, 4, true, out.data()), Error);
  CHECK(g.offset() == 8);
  g.multinomial(w.data(), 1, 3, 2, false, out.data());
  CHECK(g.offset() == 14);
}

TEST_CASE("multinomial: the CUDA kernel's per-row insertion (race_row_insertion) == the host's partial sort") {
  // The CUDA backend runs categorical::race_row_insertion per row; here on the
  // host, against xrng::multinomial (std::partial_sort), for many shapes.
  uint64_t seed = 0;
  for (uint64_t k : {1u, 2u, 3u, 17u, 64u, 500u}) {
    for (uint64_t ns : {uint64_t{1}, k / 2 + 1, k}) {
      if (ns == 0 || ns > k) continue;
      const uint64_t rows = 5;
      const std::vector<double> w = some_weights(rows * k, 40 + seed);
      std::vector<double> ww = w;
      for (uint64_t r = 0; r < rows; ++r) ww[r * k + (r % k)] += 0.5;  // no all-zero row
      const auto host = draw(ww, rows, k, ns, false, Key(++seed, 2), 7);
      std::vector<categorical::RaceEntry> list(ns);
      std::vector<int64_t> out(rows * ns);
      for (uint64_t r = 0; r < rows; ++r)
        categorical::race_row_insertion(ww.data() + r * k, k, ns, Key(seed, 2).stream(), 7 + 2 * r * k, list.data(),
                                        out.data() + r * ns);
      CHECK_MESSAGE(out == host, "k ", k, " ns ", ns);
    }
  }
}

TEST_CASE("multinomial: with replacement, every sample is sample_with's category (the guide table saves steps only)") {
  // rows of many shapes: zeros (flat runs of the cumulative sum), one positive
  // weight, tiny rows (scaled), a steep row, k = 1; enough samples per row for
  // the host's guide table, and a few rows below its threshold.
  const uint64_t k = 257;
  std::vector<double> w = some_weights(12 * k, 5);
  for (uint64_t i = 0; i < k; ++i) {
    w[1 * k + i] = i == 100 ? 1.0 : 0.0;
    w[2 * k + i] *= 0x1p-1000;
    w[3 * k + i] = std::ldexp(1.0, static_cast<int>(i % 60));
    w[4 * k + i] = i < 200 ? 0.0 : w[4 * k + i];
    w[5 * k + i] = i > 3 ? 0.0 : 1.0;
  }
  const Stream st = Key(8, 2).stream();
  for (uint64_t ns : {1ull, 15ull, 16ull, 1000ull}) {
    CAPTURE(ns);
    const auto out = draw(w, 12, k, ns, true, Key(8, 2), 3);
    bool all = true;
    for (uint64_t r = 0; r < 12; ++r) {
      double scale = 1.0, total = 0.0;
      REQUIRE(categorical::check_row(w.data() + r * k, k, &scale, &total) == categorical::RowStatus::ok);
      std::vector<double> c(k);
      categorical::cumulative(w.data() + r * k, k, scale, c.data());
      for (uint64_t j = 0; j < ns; ++j) {
        uint32_t wd[2];
        stream_words(st, 3 + 2 * (r * ns + j), 2, wd);
        all = all && out[r * ns + j] == categorical::sample_with(c.data(), k, total, wd[0], wd[1]);
      }
    }
    CHECK(all);
  }
  const std::vector<double> one(1, 0.25);
  CHECK(draw(one, 1, 1, 64, true, Key(1, 1), 0) == std::vector<int64_t>(64, 0));
  // few categories (the host counts instead of searching): k = 2 .. 33, zeros included
  for (uint64_t kk : {2ull, 3ull, 10ull, 32ull, 33ull}) {
    std::vector<double> v = some_weights(9 * kk, 6 + kk);
    for (uint64_t r = 0; r < 9; ++r) v[r * kk + r % kk] += 0.5;
    v[kk - 1] = 0.0;  // a zero last weight: c[k-2] == c[k-1]
    const uint64_t ns = 200;
    const auto got = draw(v, 9, kk, ns, true, Key(8, 3), 1);
    bool all = true;
    for (uint64_t r = 0; r < 9; ++r) {
      double scale = 1.0, total = 0.0;
      REQUIRE(categorical::check_row(v.data() + r * kk, kk, &scale, &total) == categorical::RowStatus::ok);
      std::vector<double> c(kk);
      categorical::cumulative(v.data() + r * kk, kk, scale, c.data());
      for (uint64_t j = 0; j < ns; ++j) {
        uint32_t wd[2];
        stream_words(Key(8, 3).stream(), 1 + 2 * (r * ns + j), 2, wd);
        all = all && got[r * ns + j] == categorical::sample_with(c.data(), kk, total, wd[0], wd[1]);
      }
    }
    CHECK_MESSAGE(all, "k ", kk);
  }
}

TEST_CASE("multinomial: with replacement, rows of many categories for their samples (one pass over the weights)") {
  // k >= 8 ns: the host checks each row and samples it in the same pass over
  // its weights (host/multinomial.cpp, one_pass_rows). Every sample is still
  // sample_with's category of the row's cumulative sums; rows in groups of 4
  // and a tail, tiny (scaled) and zero-laden rows, any thread count; an error
  // in any row writes nothing. (rows x k = 84000 weights: the host splits
  // them across two threads, whole rows each.)
  const uint64_t rows = 7, k = 12000;
  std::vector<double> w = some_weights(rows * k, 11);
  for (uint64_t i = 0; i < k; ++i) {
    w[1 * k + i] *= 0x1p-1000;                       // tiny: scaled by 2^1000
    w[5 * k + i] = i % 500 == 3 ? w[5 * k + i] : 0.0;  // few positive weights
    w[6 * k + i] *= 0x1p-1020;                      // tiny, in the tail
  }
  const Stream st = Key(4, 4).stream();
  for (uint64_t ns : {1ull, 15ull, 16ull, 250ull, 1500ull}) {  // 16: coarse guide table; 250, 1500 (k = 8 ns): plain
    CAPTURE(ns);
    const auto out = draw(w, rows, k, ns, true, Key(4, 4), 9);
    bool all = true;
    for (uint64_t r = 0; r < rows; ++r) {
      double scale = 1.0, total = 0.0;
      REQUIRE(categorical::check_row(w.data() + r * k, k, &scale, &total) == categorical::RowStatus::ok);
      std::vector<double> c(k);
      categorical::cumulative(w.data() + r * k, k, scale, c.data());
      for (uint64_t j = 0; j < ns; ++j) {
        uint32_t wd[2];
        stream_words(st, 9 + 2 * (r * ns + j), 2, wd);
        all = all && out[r * ns + j] == categorical::sample_with(c.data(), k, total, wd[0], wd[1]);
      }
    }
    CHECK(all);
    for (int t : {2, 3, 0}) CHECK(draw(w, rows, k, ns, true, Key(4, 4), 9, t) == out);
  }
  // a bad value, or a zero row, in a group of four or in the tail: the first such row is named, nothing written
  for (uint64_t bad_row : {2ull, 6ull})
    for (double v : {-1.0, 0.0 / 0.0, 1.0 / 0.0, 0.0}) {
      std::vector<double> b = w;
      if (v == 0.0)
        std::fill(b.begin() + static_cast<std::ptrdiff_t>(bad_row * k), b.begin() + static_cast<std::ptrdiff_t>((bad_row + 1) * k), 0.0);
      else
        b[bad_row * k + 1234] = v;
      for (int t : {1, 2}) {
        std::vector<int64_t> out(rows * 20, -7);
        FillOptions o;
        o.threads = t;
        try {
          multinomial(b.data(), rows, k, 20, true, Key(1), 0, out.data(), o);
          FAIL("no error");
        } catch (const Error& e) {
          CHECK_MESSAGE(std::string(e.what()).find("row " + std::to_string(bad_row) + ":") != std::string::npos, e.what());
        }
        CHECK(out == std::vector<int64_t>(rows * 20, -7));
      }
    }
}

TEST_CASE("multinomial: without replacement, keys equal or within rounding of each other are ordered exactly") {
  // Weights made from each category's own E (its words known here): w = 2 E
  // gives keys of exactly 1/2 (ties, by index), w = 3 E rounded keys within an
  // ulp of 1/3, and tiny and huge weights keys beyond the host's quick
  // comparison; the host's selection must equal race_row_insertion's (exact
  // comparisons only).
  const uint64_t k = 400, rows = 3;
  const Stream st = Key(21, 4).stream();
  std::vector<double> w(rows * k);
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t i = 0; i < k; ++i) {
      uint32_t wd[2];
      stream_words(st, 9 + 2 * (r * k + i), 2, wd);
      const double E = categorical::race_time(wd[0], wd[1]);
      const uint64_t c = (i + r) % 5;
      w[r * k + i] = c == 0 ? 2.0 * E : c == 1 ? 3.0 * E : c == 2 ? 1e-300 * (1.0 + i) : c == 3 ? (r == 2 ? 1e305 : 1e300) : E * 0x1p-1;
    }
  for (uint64_t ns : {1ull, 50ull, 399ull, 400ull}) {
    const auto host = draw(w, rows, k, ns, false, Key(21, 4), 9);
    std::vector<categorical::RaceEntry> list(ns);
    std::vector<int64_t> ref(rows * ns);
    for (uint64_t r = 0; r < rows; ++r)
      categorical::race_row_insertion(w.data() + r * k, k, ns, st, 9 + 2 * r * k, list.data(), ref.data() + r * ns);
    CHECK_MESSAGE(ref == host, "ns ", ns);
  }
  // rows of distinct keys only (the quick path whole), with zero weights, every ns
  std::vector<double> v = some_weights(rows * k, 77);
  for (uint64_t r = 0; r < rows; ++r) v[r * k + 1] = 0.5;
  for (uint64_t ns : {1ull, 2ull, 200ull, 340ull, 343ull, 400ull}) {
    const auto host = draw(v, rows, k, ns, false, Key(22, 4), 1);
    std::vector<categorical::RaceEntry> list(ns);
    std::vector<int64_t> ref(rows * ns);
    for (uint64_t r = 0; r < rows; ++r)
      categorical::race_row_insertion(v.data() + r * k, k, ns, Key(22, 4).stream(), 1 + 2 * r * k, list.data(),
                                      ref.data() + r * ns);
    CHECK_MESSAGE(ref == host, "ns ", ns);
  }
}
