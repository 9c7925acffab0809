// Categorical sampling on the host (SPEC.md section 10): a loop over the
// element functions of rng/multinomial.h, rows (with replacement: samples)
// split across threads. Values never depend on the split.
#include <algorithm>
#include <string>
#include <vector>

#include "../rng/multinomial.h"
#include "parallel.h"
#include "xrng.h"

namespace xrng {

namespace {
// A guide table over a row's cumulative sums (Chen and Asau): bucket j of m
// holds an index near the first i with c[i] > j T / m, so a sample starts its
// search there and walks to the first i with x < c[i] (down while
// x < c[i - 1], up while x >= c[i]). The walk ends at that index whatever the
// table holds (c is non-decreasing), which is categorical::sample_with's
// (its binary search's) answer, also at its edge (x >= T: i = k - 1): the
// table only saves steps, never changes a category. Built once per row of a
// thread's range, used when a row has enough samples to repay it.
constexpr uint64_t kGuideMinSamples = 16;
struct GuideTable {
  std::vector<uint32_t> g;
  double inv = 0.0;  // m / T
  void build(const double* c, uint64_t k, double total) {
    const uint64_t m = std::min<uint64_t>(k, 1u << 20);
    g.resize(m);
    inv = static_cast<double>(m) / total;
    uint64_t i = 0;
    for (uint64_t j = 0; j < m; ++j) {
      const double x = static_cast<double>(j) / inv;
      while (i < k - 1 && !(x < c[i])) ++i;
      g[j] = static_cast<uint32_t>(i);
    }
  }
  int64_t sample(const double* c, uint64_t k, double total, uint32_t w0, uint32_t w1) const {
    const double x = categorical::unit52(w0, w1) * total;  // sample_with's x
    double jd = x * inv;
    const uint64_t m = g.size();
    uint64_t j = jd < static_cast<double>(m) ? static_cast<uint64_t>(jd) : m - 1;
    uint64_t i = g[j];
    while (i > 0 && x < c[i - 1]) --i;
    while (i < k - 1 && !(x < c[i])) ++i;
    return static_cast<int64_t>(i);
  }
};
}  // namespace

void multinomial(const double* weights, uint64_t rows, uint64_t k, uint64_t num_samples, bool replacement,
                 const Key& key, uint64_t offset, int64_t* out, const FillOptions& opt) {
  check_threads(opt.threads);
  check_multinomial_shape(rows, k, num_samples, replacement, offset);
  if (rows == 0) return;
  if (weights == nullptr || out == nullptr) throw Error("multinomial: null buffer");
  // Every row is checked before anything is written.
  std::vector<double> scale(rows), total(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    const auto st = categorical::check_row(weights + r * k, k, &scale[r], &total[r]);
    if (st != categorical::RowStatus::ok) throw Error(multinomial_row_error(st, r));
  }
  // The words come from fill's bits row on opt.backend; its backend check
  // (Backend::simd without a vector ISA) here, in the calling thread.
  const Plan bits = make_plan(Dist::bits, DType::u32, DrawParams{});
  const FillOptions one{opt.backend, 1};
  {
    uint32_t probe_word;
    fill(bits, key, offset, 0, 1, &probe_word, one);
  }
  if (replacement) {
    std::vector<double> c(rows * k);
    detail::parallel_ranges(rows, opt.threads, 1, [&](uint64_t b, uint64_t e) {
      for (uint64_t r = b; r < e; ++r) categorical::cumulative(weights + r * k, k, scale[r], c.data() + r * k);
    });
    // samples, row-major: element e = r ns + j reads words offset + 2e, 2e + 1,
    // taken from the vector Philox a tile at a time (fill of the bits row:
    // the stream's words, so the values are those of stream_words).
    detail::parallel_ranges(rows * num_samples, opt.threads, 1, [&](uint64_t b, uint64_t e) {
      constexpr uint64_t kTile = 1024;  // samples per tile
      uint32_t w[2 * kTile];
      GuideTable guide;
      uint64_t guide_row = ~uint64_t{0};
      for (uint64_t t = b; t < e; t += kTile) {
        const uint64_t m = std::min(kTile, e - t);
        fill(bits, key, offset + categorical::kWordsWith * t, 0, 2 * m, w, one);
        for (uint64_t i = 0; i < m; ++i) {
          const uint64_t r = (t + i) / num_samples;
          const double* cr = c.data() + r * k;
          if (num_samples < kGuideMinSamples || k > UINT32_MAX) {
            out[t + i] = categorical::sample_with(cr, k, total[r], w[2 * i], w[2 * i + 1]);
            continue;
          }
          if (r != guide_row) {
            guide.build(cr, k, total[r]);
            guide_row = r;
          }
          out[t + i] = guide.sample(cr, k, total[r], w[2 * i], w[2 * i + 1]);
        }
      }
    });
    return;
  }
  // without replacement: per row, the race entries of its k categories, then
  // the num_samples first in the exact order (a strict total order, so any
  // selection algorithm gives the same result; the CUDA kernel inserts).
  detail::parallel_ranges(rows, opt.threads, 1, [&](uint64_t b, uint64_t e) {
    std::vector<categorical::RaceEntry> entries(k);
    constexpr uint64_t kTile = 1024;  // categories per tile of words (the vector Philox's)
    uint32_t wd[2 * kTile];
    for (uint64_t r = b; r < e; ++r) {
      const double* w = weights + r * k;
      for (uint64_t t = 0; t < k; t += kTile) {
        const uint64_t m = std::min(kTile, k - t);
        fill(bits, key, offset + categorical::kWordsWithout * (r * k + t), 0, 2 * m, wd, one);
        for (uint64_t i = 0; i < m; ++i)
          entries[t + i] =
              categorical::race_entry(w[t + i], static_cast<int64_t>(t + i), wd[2 * i], wd[2 * i + 1]);
      }
      std::partial_sort(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(num_samples), entries.end(),
                        categorical::before);
      for (uint64_t j = 0; j < num_samples; ++j) out[r * num_samples + j] = entries[j].index;
    }
  });
}

void Generator::multinomial(const double* weights, uint64_t rows, uint64_t k, uint64_t num_samples, bool replacement,
                            int64_t* out, const FillOptions& opt) {
  check_multinomial_shape(rows, k, num_samples, replacement, 0);
  const Range r = reserve_words(multinomial_words(rows, k, num_samples, replacement));
  try {
    xrng::multinomial(weights, rows, k, num_samples, replacement, r.key, r.offset, out, opt);
  } catch (...) {
    release(r);
    throw;
  }
}

}  // namespace xrng
