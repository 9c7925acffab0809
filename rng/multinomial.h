// Categorical sampling (multinomial) as xrng draws: the pure per-element
// functions, host and device (SPEC.md section 10). The backends
// (host/multinomial.cpp, device/multinomial.cu) are loops over these.
//
// A draw is multinomial(weights[rows, k], num_samples, replacement) ->
// int64 [rows, num_samples] at word `offset` of a stream:
//   with replacement:    sample (r, j) reads the 2 words offset + 2 (r ns + j)
//                        and is the first category i with u * T < c_i, where
//                        c is the row's left-to-right binary64 cumulative sum
//                        of its (possibly power-of-two-scaled) weights and
//                        T = c_{k-1};
//   without replacement: category (r, i) reads the 2 words offset + 2 (r k + i)
//                        and gets the key E_i / w_i (E_i = -ln u, xrng's
//                        binary64 log, SPEC 5.1); the row's samples are the
//                        num_samples smallest keys in increasing order, compared
//                        exactly (integer cross products, no rounding), ties by
//                        index, zero weights after every positive one.
// Every value is a pure function of (key, offset, row, sample or category
// index, the row's weights): no dependence on threads, launch or chunking.
#pragma once

#include <cstdint>
#include <string>

#include "config.h"
#include "detail/distributions.h"
#include "plan.h"
#include "registry.h"
#include "stream.h"

namespace xrng {
namespace categorical {

// Words per unit (a sample with replacement, a category without): the
// registry's XRNG_TENSOR_DRAWS rows.
constexpr uint32_t kWordsWith = tensor_draw_info(TensorDraw::multinomial_replacement).words;
constexpr uint32_t kWordsWithout = tensor_draw_info(TensorDraw::multinomial).words;

// The words a draw consumes (a stateful generator advances by this many):
// 2 rows ns with replacement, 2 rows k without. Returns false if the count
// does not fit 64 bits.
XRNG_HD XRNG_INLINE bool words_of(uint64_t rows, uint64_t k, uint64_t ns, bool replacement, uint64_t* words) {
  const uint64_t per = replacement ? ns : k;
  const uint32_t w = replacement ? kWordsWith : kWordsWithout;
  if (per != 0 && rows > UINT64_MAX / per) return false;
  const uint64_t units = rows * per;
  if (units > UINT64_MAX / w) return false;
  *words = units * w;
  return true;
}

// ---- a row's weights -------------------------------------------------------------------
// The result of checking a row (the order of the checks is the order here).
enum class RowStatus : uint8_t {
  ok = 0,
  bad_value,  // a NaN, an infinity or a negative weight
  zero_sum,   // every weight is 0
  overflow,   // the binary64 sum of the (finite) weights is infinite
};

// Rows whose plain sum is below this are scaled by 2^kTinyScaleExp before
// the cumulative sum (exact: a power of two, and every weight is <= the sum,
// so none overflows): every cumulative sum and product of the sampling step
// is then a normal number, so u * T < T holds (the proof in SPEC 10.2).
constexpr double kTinyTotal = 0x1p-900;
constexpr double kTinyScale = 0x1p1000;

// Checks weights w[0..k) (binary64, exact conversions of the input dtype)
// and returns the row's scale (1 or kTinyScale) through *scale and the
// sequential sum of the scaled weights through *total.
XRNG_HD XRNG_INLINE RowStatus check_row(const double* w, uint64_t k, double* scale, double* total) {
  double s = 0.0;
  for (uint64_t i = 0; i < k; ++i) {
    const double x = w[i];
    if (!(x >= 0.0) || x > 1.7976931348623157e308) return RowStatus::bad_value;  // NaN fails x >= 0
    s = s + x;
  }
  if (s == 0.0) return RowStatus::zero_sum;
  if (s > 1.7976931348623157e308) return RowStatus::overflow;
  *scale = 1.0;
  if (s < kTinyTotal) {
    *scale = kTinyScale;
    s = 0.0;
    for (uint64_t i = 0; i < k; ++i) s = s + w[i] * kTinyScale;
  }
  *total = s;
  return RowStatus::ok;
}

// The row's cumulative sums c[i] = c[i-1] + w[i] * scale (c[-1] = 0), left to
// right in binary64; c[k-1] is check_row's total.
XRNG_HD XRNG_INLINE void cumulative(const double* w, uint64_t k, double scale, double* c) {
  double s = 0.0;
  for (uint64_t i = 0; i < k; ++i) {
    s = s + w[i] * scale;
    c[i] = s;
  }
}

// ---- with replacement ------------------------------------------------------------------
// u = (m + 1/2) 2^-52, m the top 52 bits of w0 + 2^32 w1 (SPEC 4.8, the f64 u).
XRNG_HD XRNG_INLINE double unit52(uint32_t w0, uint32_t w1) {
  return math::unit_open<52, double, uint64_t>(dist::bits_u64(w0, w1) >> 12);
}

// The first i in [lo, hi] with x < c[i], for a non-decreasing c with
// x < c[hi] (a binary search; the host's guided search narrows [lo, hi] first).
XRNG_HD XRNG_INLINE uint64_t first_above(const double* c, double x, uint64_t lo, uint64_t hi) {
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (x < c[mid])
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// The category of one sample: the first i with x < c[i], x = u * total
// (rounded once). c is non-decreasing, so a binary search finds it; x < total
// = c[k-1] always (SPEC 10.2), so i <= k-1 and w[i] > 0.
XRNG_HD XRNG_INLINE int64_t sample_with(const double* c, uint64_t k, double total, uint32_t w0, uint32_t w1) {
  return static_cast<int64_t>(first_above(c, unit52(w0, w1) * total, 0, k - 1));
}

// ---- without replacement: the exponential race, compared exactly -------------------------
// E = -ln u, u = (m + 1/2) 2^-52 from the category's two words: xrng's
// exponential f64 value at rate 1 (SPEC 4.9), in [2^-53, 36.74], never 0.
XRNG_HD XRNG_INLINE double race_time(uint32_t w0, uint32_t w1) {
  return math::neg_log_unit<52, double, uint64_t>(dist::bits_u64(w0, w1) >> 12);
}

// A finite double >= 0 as m 2^e (m < 2^53 an integer, exact).
struct Exact {
  uint64_t m = 0;
  int e = 0;
};
XRNG_HD XRNG_INLINE Exact exact_of(double x) {
  const uint64_t b = math::as_u64(x);
  const uint64_t f = b & ((1ull << 52) - 1);
  const int ex = static_cast<int>((b >> 52) & 0x7ff);
  if (ex == 0) return Exact{f, -1074};
  return Exact{f | (1ull << 52), ex - 1075};
}

XRNG_HD XRNG_INLINE int bit_length64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return 64 - __clzll(static_cast<long long>(x));
#else
  return x == 0 ? 0 : 64 - __builtin_clzll(x);
#endif
}

// Compares a = ma 2^ea with b = mb 2^eb exactly, where ma, mb are products of
// two 53-bit integers held as (hi, lo) 64-bit halves; -1, 0 or 1.
XRNG_HD XRNG_INLINE int compare_products(const Exact& x1, const Exact& y1, const Exact& x2, const Exact& y2) {
  uint64_t ah = dist::mulhi64(x1.m, y1.m), al = x1.m * y1.m;
  uint64_t bh = dist::mulhi64(x2.m, y2.m), bl = x2.m * y2.m;
  const int la = ah ? 64 + bit_length64(ah) : bit_length64(al);
  const int lb = bh ? 64 + bit_length64(bh) : bit_length64(bl);
  if (la == 0 || lb == 0) return la == lb ? 0 : (la == 0 ? -1 : 1);
  const int ma = la + x1.e + y1.e, mb = lb + x2.e + y2.e;  // floor(log2) + 1 of each value
  if (ma != mb) return ma < mb ? -1 : 1;
  // Same binary magnitude: align the shorter product (both stay below 2^106).
  int s = la - lb;
  if (s < 0) {
    s = -s;
    if (s >= 64) {
      ah = al << (s - 64);
      al = 0;
    } else if (s > 0) {
      ah = (ah << s) | (al >> (64 - s));
      al <<= s;
    }
  } else if (s > 0) {
    if (s >= 64) {
      bh = bl << (s - 64);
      bl = 0;
    } else {
      bh = (bh << s) | (bl >> (64 - s));
      bl <<= s;
    }
  }
  if (ah != bh) return ah < bh ? -1 : 1;
  if (al != bl) return al < bl ? -1 : 1;
  return 0;
}

// One category of the race: its index, E and w as exact values.
struct RaceEntry {
  Exact time;    // E
  Exact weight;  // w (0: the category goes after every positive one)
  int64_t index = 0;
};
XRNG_HD XRNG_INLINE RaceEntry race_entry(double weight, int64_t index, uint32_t w0, uint32_t w1) {
  return RaceEntry{exact_of(race_time(w0, w1)), exact_of(weight), index};
}
// Whether a is drawn before b: E_a / w_a < E_b / w_b, i.e. E_a w_b < E_b w_a
// exactly (both weights positive); a positive weight before a zero one; equal
// keys (and two zero weights) by index.
XRNG_HD XRNG_INLINE bool before(const RaceEntry& a, const RaceEntry& b) {
  const bool za = a.weight.m == 0, zb = b.weight.m == 0;
  if (za != zb) return zb;
  if (!za) {
    const int c = compare_products(a.time, b.weight, b.time, a.weight);
    if (c != 0) return c < 0;
  }
  return a.index < b.index;
}

// One row of the race without allocation: the first ns categories of the row
// whose weights are w[0..k) and whose category i reads the words word0 + 2i,
// by insertion into the sorted list L (room for ns entries), written to
// out[0..ns). O(k ns): the CUDA kernel's algorithm (one thread per row); the
// host sorts partially instead, which selects the same (a strict total order),
// and tests/test_multinomial.cpp checks this function against it.
XRNG_HD XRNG_INLINE void race_row_insertion(const double* w, uint64_t k, uint64_t ns, const Stream& s,
                                            uint64_t word0, RaceEntry* L, int64_t* out) {
  uint64_t n = 0;
  for (uint64_t i = 0; i < k; ++i) {
    uint32_t wd[2];
    stream_words(s, word0 + kWordsWithout * i, 2, wd);
    const RaceEntry e = race_entry(w[i], static_cast<int64_t>(i), wd[0], wd[1]);
    if (n == ns && !before(e, L[ns - 1])) continue;
    uint64_t pos = n < ns ? n : ns - 1;  // full: the last entry drops out
    while (pos > 0 && before(e, L[pos - 1])) {
      L[pos] = L[pos - 1];
      --pos;
    }
    L[pos] = e;
    if (n < ns) ++n;
  }
  for (uint64_t j = 0; j < ns; ++j) out[j] = L[j].index;
}

}  // namespace categorical

// ---- host-side checks (every backend's, before anything is written) -----------------------
// The words a draw consumes: 2 rows num_samples with replacement, 2 rows k
// without; xrng::Error if beyond 2^64.
inline uint64_t multinomial_words(uint64_t rows, uint64_t k, uint64_t num_samples, bool replacement) {
  uint64_t words = 0;
  if (!categorical::words_of(rows, k, num_samples, replacement, &words))
    throw Error("multinomial: the draw needs more than 2^64 stream words");
  return words;
}

inline void check_multinomial_shape(uint64_t rows, uint64_t k, uint64_t num_samples, bool replacement, uint64_t offset) {
  if (k == 0) throw Error("multinomial: the weights have no categories (k = 0)");
  if (num_samples == 0) throw Error("multinomial: cannot sample num_samples <= 0 samples");
  if (!replacement && num_samples > k)
    throw Error("multinomial: cannot sample num_samples = " + std::to_string(num_samples) + " > " +
                std::to_string(k) + " categories without replacement");
  const uint64_t words = multinomial_words(rows, k, num_samples, replacement);
  if (words > ~offset)
    throw Error("counter overflow: the draw needs stream words beyond 2^64 (offset " + std::to_string(offset) + ")");
}

inline std::string multinomial_row_error(categorical::RowStatus st, uint64_t row) {
  const std::string where = "multinomial: row " + std::to_string(row) + ": ";
  switch (st) {
    case categorical::RowStatus::ok: return {};
    case categorical::RowStatus::bad_value:
      return where + "probability tensor contains either inf, nan or element < 0";
    case categorical::RowStatus::zero_sum: return where + "invalid multinomial distribution (sum of probabilities <= 0)";
    case categorical::RowStatus::overflow:
      return where + "the sum of the weights overflows binary64 (largest finite 1.7976931348623157e+308)";
  }
  return where + "?";
}

}  // namespace xrng
