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
// Consecutive units read consecutive word pairs: two share a Philox block, so
// the block of the previous pair is kept (the words are the stream's, so the
// values are those of stream_words).
class PairReader {
 public:
  explicit PairReader(const Stream& s) : s_(s) {}
  void read(uint64_t w, uint32_t* out) {
    for (int j = 0; j < 2; ++j) {
      const uint64_t b = (w + j) >> 2;
      if (!valid_ || b != block_) {
        blk_ = stream_block(s_, b);
        block_ = b;
        valid_ = true;
      }
      out[j] = blk_.v[(w + j) & 3];
    }
  }

 private:
  Stream s_;
  u32x4 blk_{};
  uint64_t block_ = 0;
  bool valid_ = false;
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
  const Stream s = key.stream();
  if (replacement) {
    std::vector<double> c(rows * k);
    detail::parallel_ranges(rows, opt.threads, 1, [&](uint64_t b, uint64_t e) {
      for (uint64_t r = b; r < e; ++r) categorical::cumulative(weights + r * k, k, scale[r], c.data() + r * k);
    });
    // samples, row-major: element e = r ns + j reads words offset + 2e, 2e + 1
    detail::parallel_ranges(rows * num_samples, opt.threads, 1, [&](uint64_t b, uint64_t e) {
      PairReader words(s);
      for (uint64_t i = b; i < e; ++i) {
        const uint64_t r = i / num_samples;
        uint32_t w[2];
        words.read(offset + categorical::kWordsWith * i, w);
        out[i] = categorical::sample_with(c.data() + r * k, k, total[r], w[0], w[1]);
      }
    });
    return;
  }
  // without replacement: per row, the race entries of its k categories, then
  // the num_samples first in the exact order (a strict total order, so any
  // selection algorithm gives the same result; the CUDA kernel inserts).
  detail::parallel_ranges(rows, opt.threads, 1, [&](uint64_t b, uint64_t e) {
    std::vector<categorical::RaceEntry> entries(k);
    PairReader words(s);
    for (uint64_t r = b; r < e; ++r) {
      const double* w = weights + r * k;
      for (uint64_t i = 0; i < k; ++i) {
        uint32_t wd[2];
        words.read(offset + categorical::kWordsWithout * (r * k + i), wd);
        entries[i] = categorical::race_entry(w[i], static_cast<int64_t>(i), wd[0], wd[1]);
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
