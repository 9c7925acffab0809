// Categorical sampling on the host (SPEC.md section 10): a loop over the
// element functions of rng/multinomial.h, rows (with replacement: samples)
// split across threads. Values never depend on the split.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../rng/multinomial.h"
#include "parallel.h"
#include "simd/params_api.h"
#include "xrng.h"

namespace xrng {

namespace {
// Row sums are serial chains of additions (left to right, SPEC 10.2): one
// row's chain is latency bound, so rows are summed kRowsTogether at a time,
// their chains interleaved, each the very sequence of operations of
// categorical::check_row / cumulative (so the same values).
constexpr uint64_t kRowsTogether = 4;

// check_row for rows [b, e): statuses, scales and totals. A row with a bad
// value, a zero, infinite or tiny sum is re-checked by check_row itself (its
// status and rescaled total); the others' sums are check_row's.
void check_rows(const double* weights, uint64_t k, uint64_t b, uint64_t e, double* scale, double* total,
                categorical::RowStatus* status) {
  uint64_t r = b;
  for (; r + kRowsTogether <= e; r += kRowsTogether) {
    double s[kRowsTogether] = {};
    bool bad[kRowsTogether] = {};
    const double* w[kRowsTogether];
    for (uint64_t j = 0; j < kRowsTogether; ++j) w[j] = weights + (r + j) * k;
    for (uint64_t i = 0; i < k; ++i)
      for (uint64_t j = 0; j < kRowsTogether; ++j) {
        const double x = w[j][i];
        bad[j] |= !(x >= 0.0) || x > 1.7976931348623157e308;
        s[j] = s[j] + x;
      }
    for (uint64_t j = 0; j < kRowsTogether; ++j) {
      if (bad[j] || s[j] == 0.0 || s[j] > 1.7976931348623157e308 || s[j] < categorical::kTinyTotal) {
        status[r + j] = categorical::check_row(w[j], k, &scale[r + j], &total[r + j]);
      } else {
        status[r + j] = categorical::RowStatus::ok;
        scale[r + j] = 1.0;
        total[r + j] = s[j];
      }
    }
  }
  for (; r < e; ++r) status[r] = categorical::check_row(weights + r * k, k, &scale[r], &total[r]);
}

// categorical::cumulative of rows [b, e) (at most kRowsTogether) into c (row b first).
void cumulative_rows(const double* weights, uint64_t k, uint64_t b, uint64_t e, const double* scale, double* c) {
  if (e - b != kRowsTogether) {
    for (uint64_t r = b; r < e; ++r) categorical::cumulative(weights + r * k, k, scale[r], c + (r - b) * k);
    return;
  }
  double s[kRowsTogether] = {};
  for (uint64_t i = 0; i < k; ++i)
    for (uint64_t j = 0; j < kRowsTogether; ++j) {
      s[j] = s[j] + weights[(b + j) * k + i] * scale[b + j];
      c[j * k + i] = s[j];
    }
}

// Rows of few categories: the first i with x < c[i] is the number of
// c[j] <= x among j < k - 1 (c is non-decreasing, so those j are a prefix;
// j = k - 1 left out gives sample_with's k - 1 at its edge): a branch-free
// count instead of a search.
constexpr uint64_t kCountMaxK = 32;
int64_t sample_count(const double* c, uint64_t k, double total, uint32_t w0, uint32_t w1) {
  const double x = categorical::unit52(w0, w1) * total;  // sample_with's x
  // four sums a step (a one-sum loop ran at the speed of where the linker
  // happened to place it: 6.2 or 8.0 ns a sample at k = 10)
  int64_t n = 0;
  uint64_t j = 0;
  for (; j + 4 < k; j += 4)
    n += static_cast<int64_t>(c[j] <= x) + static_cast<int64_t>(c[j + 1] <= x) + static_cast<int64_t>(c[j + 2] <= x) +
         static_cast<int64_t>(c[j + 3] <= x);
  for (; j + 1 < k; ++j) n += c[j] <= x ? 1 : 0;
  return n;
}

// A guide table over a row's cumulative sums (Chen and Asau): bucket j of m
// holds the first i with c[i] > j T / m (approximately: the bucket bounds are
// rounded), so a sample binary-searches only between its bucket's entry and
// the next one's, then walks to the first i with x < c[i] (down while
// x < c[i - 1], up while x >= c[i]). The walk ends at that index from any
// start (c is non-decreasing), which is categorical::sample_with's (its binary
// search's) answer, also at its edge (x >= T: i = k - 1): the table only saves
// steps, never changes a category. Built once per row of a thread's range with
// about 2 buckets per sample, used when a row has enough samples to repay it.
constexpr uint64_t kGuideMinSamples = 16;
struct GuideTable {
  std::vector<uint64_t> g;
  double inv = 0.0;  // m / T
  void build(const double* c, uint64_t k, double total, uint64_t ns) {
    const uint64_t m = std::max<uint64_t>(1, std::min<uint64_t>({k, 2 * ns, uint64_t{1} << 20}));
    g.resize(m + 1);
    inv = static_cast<double>(m) / total;
    const double step = total / static_cast<double>(m);
    uint64_t i = 0;
    for (uint64_t j = 0; j < m; ++j) {
      const double x = static_cast<double>(j) * step;
      while (i < k - 1 && !(x < c[i])) ++i;
      g[j] = i;
    }
    g[m] = k - 1;
    span = 0;
  }
  // Rows of many categories per bucket (the one pass, k >= 64 ns): bucket j
  // holds the first index of the block of kCoarse sums where a walk over the
  // blocks' last sums stops, about k / kCoarse steps instead of k; a sample
  // searches that block through the next bucket's (span = kCoarse - 1 more).
  static constexpr uint64_t kCoarse = 64;
  void build_coarse(const double* c, uint64_t k, double total, uint64_t ns) {
    const uint64_t m = std::max<uint64_t>(1, std::min<uint64_t>({k, 2 * ns, uint64_t{1} << 20}));
    g.resize(m + 1);
    inv = static_cast<double>(m) / total;
    const double step = total / static_cast<double>(m);
    uint64_t t = 0;  // the block [t, t + kCoarse) (its last index capped at k - 1)
    for (uint64_t j = 0; j < m; ++j) {
      const double x = static_cast<double>(j) * step;
      while (t + kCoarse < k && !(x < c[t + kCoarse - 1])) t += kCoarse;
      g[j] = t;
    }
    g[m] = k - 1;
    span = kCoarse - 1;
  }
  uint64_t span = 0;
  // The index range [*lo, *hi] of the bucket of x (sample_with's x).
  void range(double x, uint64_t k, uint64_t* lo, uint64_t* hi) const {
    const double jd = x * inv;
    const uint64_t m = g.size() - 1;
    const uint64_t j = jd < static_cast<double>(m) ? static_cast<uint64_t>(jd) : m - 1;
    *lo = g[j];
    *hi = std::min(k - 1, std::max(g[j], g[j + 1]) + span);
  }
  // The first i with x < c[i] (or k - 1), searched in [lo, hi]: the bucket's
  // range may miss the answer by rounding of x * inv; the walks settle it.
  static int64_t settle(const double* c, uint64_t k, double x, uint64_t lo, uint64_t hi) {
    uint64_t i = categorical::first_above(c, x, lo, hi);
    while (i > 0 && x < c[i - 1]) --i;
    while (i < k - 1 && !(x < c[i])) ++i;
    return static_cast<int64_t>(i);
  }
  int64_t sample(const double* c, uint64_t k, double total, uint32_t w0, uint32_t w1) const {
    const double x = categorical::unit52(w0, w1) * total;  // sample_with's x
    uint64_t lo, hi;
    range(x, k, &lo, &hi);
    return settle(c, k, x, lo, hi);
  }
};

// Rows of many categories for their samples (k >= kOnePassRatio ns, as
// k = 10^5 categories with 1000 samples): one pass over the weights instead
// of two (check_rows', then cumulative_rows'), the weights' reads being most
// of the time there. check_rows' sum of a row is its cumulative sum at scale
// 1 (x * 1.0 = x exactly: the very chain of categorical::cumulative), so the
// pass keeps those sums as the row's c and samples a good row at once into
// `tmp`; a row check_rows would hand to check_row (a bad value, a zero,
// infinite or tiny sum) is handed to it here too, and a tiny row's scaled
// sums recomputed by categorical::cumulative. The caller copies tmp to the
// output only after every row passed (nothing is written before the checks).
// The same sums, totals and words as the two passes: the same samples.
constexpr uint64_t kOnePassRatio = 8;
// Rows [b, e) in one pass (above): statuses, scales and totals as check_rows
// gives them, and each good row's samples at tmp + r ns.
void one_pass_rows(const double* weights, uint64_t k, uint64_t ns, uint64_t b, uint64_t e, const Key& key,
                   uint64_t offset, const FillOptions& one, double* scale, double* total,
                   categorical::RowStatus* status, int64_t* tmp) {
  const Plan bits = make_plan(Dist::bits, DType::u32, DrawParams{});
  constexpr uint64_t kTile = 1024;  // samples per tile of words
  uint32_t w[2 * kTile];
  double xs[kTile];
  uint64_t lo[kTile], hi[kTile];
  std::vector<double> c(kRowsTogether * k);
  GuideTable guide;
  const bool use_count = k <= kCountMaxK;
  const bool use_guide = !use_count && ns >= kGuideMinSamples;
  for (uint64_t r = b; r < e; r += kRowsTogether) {
    const uint64_t n = std::min(kRowsTogether, e - r);
    // per row: the sum and the smallest weight (a NaN leaves the minimum as
    // it is but makes the sum NaN; an infinity makes it infinite or NaN)
    double s[kRowsTogether] = {}, lo_w[kRowsTogether];
    for (uint64_t j = 0; j < kRowsTogether; ++j) lo_w[j] = 0.0;
    const double* wr[kRowsTogether] = {};
    for (uint64_t j = 0; j < n; ++j) wr[j] = weights + (r + j) * k;
    if (n == kRowsTogether) {  // the chains of check_rows, interleaved, each sum kept
      for (uint64_t i = 0; i < k; ++i)
        for (uint64_t j = 0; j < kRowsTogether; ++j) {
          const double x = wr[j][i];
          lo_w[j] = x < lo_w[j] ? x : lo_w[j];
          s[j] = s[j] + x;
          c[j * k + i] = s[j];
        }
    } else {
      for (uint64_t j = 0; j < n; ++j)
        for (uint64_t i = 0; i < k; ++i) {
          const double x = wr[j][i];
          lo_w[j] = x < lo_w[j] ? x : lo_w[j];
          s[j] = s[j] + x;
          c[j * k + i] = s[j];
        }
    }
    for (uint64_t j = 0; j < n; ++j) {
      const uint64_t row = r + j;
      double* cr = c.data() + j * k;
      // check_row's own checks where a weight is negative, NaN or infinite
      // (the sum then NaN or infinite) or the sum zero, infinite or tiny
      if (!(lo_w[j] >= 0.0) || !(s[j] >= categorical::kTinyTotal && s[j] <= 1.7976931348623157e308)) {
        status[row] = categorical::check_row(wr[j], k, &scale[row], &total[row]);
        if (status[row] != categorical::RowStatus::ok) continue;
        categorical::cumulative(wr[j], k, scale[row], cr);  // a tiny row, scaled
      } else {
        status[row] = categorical::RowStatus::ok;
        scale[row] = 1.0;
        total[row] = s[j];
      }
      if (use_guide) {
        if (k / GuideTable::kCoarse >= ns)
          guide.build_coarse(cr, k, total[row], ns);
        else
          guide.build(cr, k, total[row], ns);
      }
      for (uint64_t t = 0; t < ns; t += kTile) {
        const uint64_t m = std::min(kTile, ns - t);
        fill(bits, key, offset + categorical::kWordsWith * (row * ns + t), 0, 2 * m, w, one);
        int64_t* o = tmp + row * ns + t;
        if (use_guide && guide.span != 0) {
          // The coarse table: the sums of a row this long are out of the near
          // caches, and a search is a chain of loads. Each sample's x and
          // range first, then the searches, with the range of the sample
          // kAhead later fetched meanwhile (prefetches: the same loads).
          constexpr uint64_t kAhead = 16;
          for (uint64_t i = 0; i < m; ++i) {
            xs[i] = categorical::unit52(w[2 * i], w[2 * i + 1]) * total[row];  // sample_with's x
            guide.range(xs[i], k, &lo[i], &hi[i]);
          }
          auto fetch = [&](uint64_t i) {
            for (uint64_t a = lo[i]; a <= hi[i]; a += 8) __builtin_prefetch(cr + a);
            __builtin_prefetch(cr + hi[i]);
          };
          for (uint64_t i = 0; i < std::min(kAhead, m); ++i) fetch(i);
          for (uint64_t i = 0; i < m; ++i) {
            if (i + kAhead < m) fetch(i + kAhead);
            o[i] = GuideTable::settle(cr, k, xs[i], lo[i], hi[i]);
          }
          continue;
        }
        for (uint64_t i = 0; i < m; ++i)
          o[i] = use_count   ? sample_count(cr, k, total[row], w[2 * i], w[2 * i + 1])
                 : use_guide ? guide.sample(cr, k, total[row], w[2 * i], w[2 * i + 1])
                             : categorical::sample_with(cr, k, total[row], w[2 * i], w[2 * i + 1]);
      }
    }
  }
}

// A category of the race as its index and its key E / w rounded once (q), for
// a quick decision: if both keys are normal doubles in [2^-1000, 2^1000] (so
// neither quotient nor the product below under- or overflows) and
// q_a < q_b (1 - 2^-50) in binary64, then E_a / w_a < E_b / w_b exactly: each
// quotient is within 2^-53 of its exact value and the product within 2^-53 of
// its own, and (1 + 2^-53)^2 / (1 - 2^-53) < 1 / (1 - 2^-50). Likewise the
// other way. categorical::before (exact) decides everything else (q = -1 marks
// a key outside that range, or a zero weight), so the order is before's, a
// strict total order, and any selection of the first ns gives the samples of
// the reference (race_row_insertion).
struct Keyed {
  double q;
  int64_t index;
};
struct KeyedOrder {
  const double* E;  // the row's race times
  const double* w;  // the row's weights
  bool operator()(const Keyed& a, const Keyed& b) const {
    if (a.q > 0.0 && b.q > 0.0) {
      if (a.q < b.q * (1.0 - 0x1p-50)) return true;
      if (b.q < a.q * (1.0 - 0x1p-50)) return false;
    }
    const auto ia = static_cast<size_t>(a.index), ib = static_cast<size_t>(b.index);
    return categorical::before(
        categorical::RaceEntry{categorical::exact_of(E[ia]), categorical::exact_of(w[ia]), a.index},
        categorical::RaceEntry{categorical::exact_of(E[ib]), categorical::exact_of(w[ib]), b.index});
  }
};
Keyed keyed(double weight, int64_t index, double E) {  // E: categorical::race_time of the category's words
  if (weight > 0.0) {
    const double q = E / weight;
    if (q >= 0x1p-1000 && q <= 0x1p1000) return Keyed{q, index};
  }
  return Keyed{-1.0, index};
}

// The first ns categories of a row in KeyedOrder's order, mostly by plain
// comparisons of the rounded keys q: when every positive weight has a quick
// key, the positive ones are ordered by (q, index) (nth_element, sort), then
// every run of neighbours that q cannot tell apart (a.q >= b.q (1 - 2^-50))
// is re-sorted with the exact order. Neighbours outside a run are in the exact
// order (KeyedOrder's quick case), and so, by the margin's transitivity, is
// every pair from two different runs; so the result is the exact order. When
// ns < the positives, the ns-th key must also be told apart from every key
// left out (its smallest); otherwise, and when some positive weight has no
// quick key, returns false (the caller orders the row exactly). Zero weights
// come after every positive one, by index (categorical::before).
bool select_quick(const std::vector<Keyed>& entries, const double* w, uint64_t ns, const KeyedOrder& order,
                  std::vector<Keyed>& pos, int64_t* out) {
  constexpr double kMargin = 1.0 - 0x1p-50;
  pos.clear();
  for (const Keyed& e : entries) {
    if (e.q > 0.0)
      pos.push_back(e);
    else if (w[e.index] != 0.0)
      return false;  // a positive weight without a quick key
  }
  const uint64_t P = pos.size();
  auto plain = [](const Keyed& a, const Keyed& b) { return a.q < b.q || (a.q == b.q && a.index < b.index); };
  const uint64_t sel = std::min(ns, P);
  const auto mid = pos.begin() + static_cast<std::ptrdiff_t>(sel);
  if (sel < P) {
    std::nth_element(pos.begin(), mid, pos.end(), plain);
    double rest = mid->q;  // the smallest key left out
    for (auto it = mid; it != pos.end(); ++it) rest = std::min(rest, it->q);
    std::sort(pos.begin(), mid, plain);
    if (sel > 0 && !(pos[sel - 1].q < rest * kMargin)) return false;
  } else {
    std::sort(pos.begin(), pos.end(), plain);
  }
  for (uint64_t i = 0; i < sel;) {
    uint64_t j = i;
    while (j + 1 < sel && !(pos[j].q < pos[j + 1].q * kMargin)) ++j;
    if (j > i) std::sort(pos.begin() + static_cast<std::ptrdiff_t>(i), pos.begin() + static_cast<std::ptrdiff_t>(j + 1), order);
    i = j + 1;
  }
  for (uint64_t j = 0; j < sel; ++j) out[j] = pos[j].index;
  uint64_t j = sel;
  for (uint64_t i = 0; j < ns; ++i)  // zero weights, by index
    if (w[entries[i].index] == 0.0) out[j++] = entries[i].index;
  return true;
}

// select_quick for a row of few samples among many categories (ns small next
// to k), the same answer without the k entries and nth_element over them: one
// pass over the categories keeps a buffer of at most 2 (ns + 1) candidates
// that always holds the ns + 1 smallest positive entries under select_quick's
// plain (q, index) order (a category enters only with a key q below the
// largest kept at the last cut: the indices rise, so an equal q loses), the
// keys computed as keyed computes them. plain is a strict total order, so those
// ns + 1 are select_quick's first sel positives and its smallest key left out
// (rest: the (ns + 1)-th, as plain orders by q first); the same check, the same
// re-sorting of runs, the same zero weights by index follow. Returns false
// wherever select_quick would (a positive weight without a quick key, a check
// that fails): the caller then takes the full path.
bool select_quick_few(const double* w, const double* E, uint64_t k, uint64_t ns, const KeyedOrder& order,
                      std::vector<Keyed>& cand, int64_t* out) {
  constexpr double kMargin = 1.0 - 0x1p-50;
  auto plain = [](const Keyed& a, const Keyed& b) { return a.q < b.q || (a.q == b.q && a.index < b.index); };
  const uint64_t cap = ns + 1;
  cand.clear();
  uint64_t P = 0;  // positive weights
  // cand: candidates, always holding the cap smallest seen so far; when it
  // reaches 2 cap it is cut to those cap (nth_element) and top becomes the
  // largest key kept (a later category enters only with a key below it).
  double top = 2.0 * 0x1p1000;  // above every quick key
  for (uint64_t i = 0; i < k; ++i) {
    const double wi = w[i];
    if (wi == 0.0) continue;
    const Keyed e = keyed(wi, static_cast<int64_t>(i), E[i]);
    if (!(e.q > 0.0)) return false;
    ++P;
    if (e.q < top) {
      cand.push_back(e);
      if (cand.size() == 2 * cap) {
        std::nth_element(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(cap - 1), cand.end(), plain);
        cand.resize(cap);
        top = cand[cap - 1].q;
      }
    }
  }
  if (cand.size() > cap) {
    std::nth_element(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(cap - 1), cand.end(), plain);
    cand.resize(cap);
  }
  std::sort(cand.begin(), cand.end(), plain);
  const uint64_t sel = std::min(ns, P);
  if (sel < P) {
    const double rest = cand[sel].q;  // the smallest key left out
    if (sel > 0 && !(cand[sel - 1].q < rest * kMargin)) return false;
  }
  for (uint64_t a = 0; a < sel;) {
    uint64_t j = a;
    while (j + 1 < sel && !(cand[j].q < cand[j + 1].q * kMargin)) ++j;
    if (j > a) std::sort(cand.begin() + static_cast<std::ptrdiff_t>(a), cand.begin() + static_cast<std::ptrdiff_t>(j + 1), order);
    a = j + 1;
  }
  for (uint64_t j = 0; j < sel; ++j) out[j] = cand[j].index;
  uint64_t j = sel;
  for (uint64_t c = 0; j < ns; ++c)  // zero weights, by index
    if (w[c] == 0.0) out[j++] = static_cast<int64_t>(c);
  return true;
}
// Rows with at most k / kFewRatio samples take select_quick_few.
constexpr uint64_t kFewRatio = 16;
}  // namespace

void multinomial(const double* weights, uint64_t rows, uint64_t k, uint64_t num_samples, bool replacement,
                 const Key& key, uint64_t offset, int64_t* out, const FillOptions& opt) {
  check_threads(opt.threads);
  check_multinomial_shape(rows, k, num_samples, replacement, offset);
  if (rows == 0) return;
  if (weights == nullptr || out == nullptr) throw Error("multinomial: null buffer");
  // Every row is checked before anything is written (rows split across
  // threads; the first failing row is reported, as a sequential check would).
  // The words come from fill's bits row on opt.backend; its backend check
  // (Backend::simd without a vector ISA) is raised after the rows' errors.
  const Plan bits = make_plan(Dist::bits, DType::u32, DrawParams{});
  const FillOptions one{opt.backend, 1};
  bool backend_ok = true;
  try {
    uint32_t probe_word;
    fill(bits, key, offset, 0, 1, &probe_word, one);
  } catch (const Error&) {
    backend_ok = false;
  }
  // Rows are split across threads by their weights (rows * k of them, whole
  // rows per thread): a few rows of many categories still use every thread.
  const bool by_weights = rows <= UINT64_MAX / k;
  auto rows_parallel = [&](auto body) {
    if (by_weights)
      detail::parallel_ranges(rows * k, opt.threads, k, [&](uint64_t b, uint64_t e) { body(b / k, e / k); });
    else
      detail::parallel_ranges(rows, opt.threads, 1, body);
  };
  std::vector<double> scale(rows), total(rows);
  std::vector<categorical::RowStatus> status(rows);
  const bool one_pass = replacement && backend_ok && k / kOnePassRatio >= num_samples;
  std::unique_ptr<int64_t[]> tmp(one_pass ? new int64_t[rows * num_samples] : nullptr);
  if (one_pass) {
    rows_parallel([&](uint64_t b, uint64_t e) {
      one_pass_rows(weights, k, num_samples, b, e, key, offset, one, scale.data(), total.data(), status.data(),
                    tmp.get());
    });
  } else {
    rows_parallel([&](uint64_t b, uint64_t e) { check_rows(weights, k, b, e, scale.data(), total.data(), status.data()); });
  }
  for (uint64_t r = 0; r < rows; ++r)
    if (status[r] != categorical::RowStatus::ok) throw Error(multinomial_row_error(status[r], r));
  if (!backend_ok) {
    uint32_t probe_word;
    fill(bits, key, offset, 0, 1, &probe_word, one);  // throws the backend's error
  }
  if (one_pass) {
    std::memcpy(out, tmp.get(), rows * num_samples * sizeof(int64_t));
    return;
  }
  const Stream st = key.stream();
  if (replacement) {
    // samples, row-major: element e = r ns + j reads words offset + 2e, 2e + 1,
    // taken from the vector Philox a tile at a time (fill of the bits row:
    // the stream's words, so the values are those of stream_words). A thread
    // forms the cumulative sums (and guide table) of each row it reaches.
    detail::parallel_ranges(rows * num_samples, opt.threads, 1, [&](uint64_t b, uint64_t e) {
      constexpr uint64_t kTile = 1024;  // samples per tile
      uint32_t w[2 * kTile];
      std::vector<double> c(kRowsTogether * k);
      uint64_t c_first = ~uint64_t{0} - kRowsTogether;  // c holds the sums of rows c_first ..
      const double* cr = c.data();
      GuideTable guide;
      const bool use_count = k <= kCountMaxK;
      const bool use_guide = !use_count && num_samples >= kGuideMinSamples;
      uint64_t row = ~uint64_t{0};
      for (uint64_t t = b; t < e; t += kTile) {
        const uint64_t m = std::min(kTile, e - t);
        fill(bits, key, offset + categorical::kWordsWith * t, 0, 2 * m, w, one);
        for (uint64_t i = 0; i < m; ++i) {
          const uint64_t r = (t + i) / num_samples;
          if (r != row) {
            if (r < c_first || r >= c_first + kRowsTogether) {  // the next rows' sums, together
              c_first = r;
              const uint64_t last_row = (e - 1) / num_samples;
              cumulative_rows(weights, k, r, std::min(last_row + 1, r + kRowsTogether), scale.data(), c.data());
            }
            cr = c.data() + (r - c_first) * k;
            if (use_guide) guide.build(cr, k, total[r], num_samples);
            row = r;
          }
          out[t + i] = use_count   ? sample_count(cr, k, total[r], w[2 * i], w[2 * i + 1])
                       : use_guide ? guide.sample(cr, k, total[r], w[2 * i], w[2 * i + 1])
                                   : categorical::sample_with(cr, k, total[r], w[2 * i], w[2 * i + 1]);
        }
      }
    });
    return;
  }
  // without replacement: per row, the race entries of its k categories, then
  // the num_samples first in the exact order (a strict total order, so any
  // selection algorithm gives the same result; the CUDA kernel inserts).
  rows_parallel([&](uint64_t b, uint64_t e) {
    constexpr uint64_t kTile = 1024;  // categories per tile of words (the vector Philox's)
    // rows' categories are consecutive in the stream: small rows are taken
    // rb at a time (their race times in one pass)
    const uint64_t rb = std::max<uint64_t>(1, kTile / k);
    std::vector<Keyed> entries(k), pos;
    const bool few = num_samples <= k / kFewRatio;
    std::vector<double> E(rb * k);
    uint32_t wd[2 * kTile];
    uint8_t done[kTile];
    for (uint64_t r0 = b; r0 < e; r0 += rb) {
      const uint64_t r1 = std::min(e, r0 + rb);
      const uint64_t n = (r1 - r0) * k;  // the categories of rows [r0, r1)
      for (uint64_t t = 0; t < n; t += kTile) {
        const uint64_t m = std::min(kTile, n - t);
        const uint64_t w0 = offset + categorical::kWordsWithout * (r0 * k + t);
        // E of each category: the vector form of the backend's ISA
        // (host/simd/params.h, race_time), or the scalar function on words
        // from fill's bits row; the same values.
        double* Et = E.data() + t;
        if (!detail::simd_params(opt.backend, detail::ParamDraw::race_time, nullptr, nullptr, m, st, w0, Et, done)) {
          fill(bits, key, w0, 0, 2 * m, wd, one);
          for (uint64_t i = 0; i < m; ++i) Et[i] = categorical::race_time(wd[2 * i], wd[2 * i + 1]);
        }
      }
      for (uint64_t r = r0; r < r1; ++r) {
        const double* w = weights + r * k;
        const double* Er = E.data() + (r - r0) * k;
        const KeyedOrder order{Er, w};
        if (few && select_quick_few(w, Er, k, num_samples, order, pos, out + r * num_samples)) continue;
        for (uint64_t i = 0; i < k; ++i) entries[i] = keyed(w[i], static_cast<int64_t>(i), Er[i]);
        if (select_quick(entries, w, num_samples, order, pos, out + r * num_samples)) continue;
        const auto mid = entries.begin() + static_cast<std::ptrdiff_t>(num_samples);
        if (num_samples < k) std::nth_element(entries.begin(), mid, entries.end(), order);
        std::sort(entries.begin(), mid, order);
        for (uint64_t j = 0; j < num_samples; ++j) out[r * num_samples + j] = entries[j].index;
      }
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
