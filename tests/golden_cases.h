// The requests of tests/data/golden_v1.txt and how to evaluate a golden case
// on the host. tools/make_golden.cpp writes the file from golden_file_text();
// tests/test_golden.cpp re-runs golden_file_text() in memory and compares it
// with the committed file, so the program and the file cannot drift apart.
//
// The expected values come from the scalar reference only
// (xrng::detail::fill_scalar; dropout, perm_shard and perm_inverse with
// Backend::scalar and one thread).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "golden.h"
#include "host/xrng.h"

namespace xrng_test {

// Evaluates a golden case with the host API and returns its bit patterns.
// Backend::scalar + fill goes through detail::fill_scalar (the reference).
inline std::vector<uint64_t> run_host(const GoldenCase& c, const xrng::FillOptions& opt) {
  const xrng::Plan plan = c.plan();
  const xrng::Key key(c.seed, c.subseq);
  std::vector<unsigned char> buf(c.count * xrng::dtype_size(c.dtype) + 8);
  if (c.op == "fill") {
    xrng::fill(plan, key, c.offset, c.start, c.count, buf.data(), opt);
  } else if (c.op == "dropout") {
    const std::vector<unsigned char> in = from_bits(c.dtype, c.in);
    xrng::dropout(plan, key, c.offset, c.start, c.count, in.data(), buf.data(), opt);
  } else if (c.op == "perm_shard") {
    xrng::perm_shard(plan, key, c.offset, c.rank, c.world, c.start, c.count, buf.data(), opt);
  } else if (c.op == "perm_inverse") {
    xrng::perm_inverse(plan, key, c.offset, c.start, c.count, buf.data(), opt);
  } else {
    throw std::runtime_error("golden: unknown op " + c.op);
  }
  return to_bits(c.dtype, buf.data(), c.count);
}

// The scalar reference: fill_scalar directly (after the API's validation).
inline std::vector<uint64_t> run_reference(const GoldenCase& c) {
  if (c.op != "fill") return run_host(c, xrng::FillOptions{xrng::Backend::scalar, 1});
  const xrng::Plan plan = c.plan();
  xrng::check_counters(plan, c.offset, c.start, c.count);
  std::vector<unsigned char> buf(c.count * xrng::dtype_size(c.dtype) + 8);
  xrng::detail::fill_scalar(plan, xrng::Key(c.seed, c.subseq).stream(), c.offset, c.start, c.count, buf.data());
  return to_bits(c.dtype, buf.data(), c.count);
}

namespace golden_detail {

using xrng::Dist;
using xrng::DType;

// Where in which stream a case draws. offset == kNearEnd means "as close to
// 2^64 as the draw allows" (minus `tail` spare words), computed per case.
struct Where {
  uint64_t seed, subseq, offset, start, count;
  uint64_t tail = 0;
};
constexpr uint64_t kNearEnd = ~0ull;

inline const std::vector<Where>& places() {
  static const std::vector<Where> w = {
      {0, 0, 0, 0, 9},                                           // the origin, odd count
      {42, 0, 3, 0, 7},                                          // odd offset
      {0x123456789abcdef0ull, 7, 5, 5, 11},                      // odd offset, start > 0
      {2024, 1, 1000000007, 3, 5},                               // large odd offset
      {0xffffffffffffffffull, 0xffffffffffffffffull, kNearEnd, 0, 6, 0},  // the last words of a stream
      {77, 3, kNearEnd, 1, 5, 1},                                // near the end, one spare word
  };
  return w;
}

inline uint64_t resolve_offset(const xrng::Plan& p, const Where& w) {
  if (w.offset != kNearEnd) return w.offset;
  uint64_t need;
  if (p.dist == Dist::perm) {
    need = p.words;
  } else {
    const uint64_t end = w.start + w.count;
    need = p.words * ((end + p.group - 1) / p.group);
  }
  return 0ull - need - w.tail;  // 2^64 - need - tail
}

inline GoldenCase make_case(const std::string& op, Dist d, DType t, const xrng::DrawParams& q, const Where& w) {
  GoldenCase c;
  c.op = op;
  c.dist = d;
  c.dtype = t;
  c.params = q;
  c.seed = w.seed;
  c.subseq = w.subseq;
  c.start = w.start;
  c.count = w.count;
  xrng::Plan p = c.plan();
  if (d == Dist::dropout) p.dist = Dist::bernoulli;  // dropout consumes the words of a bernoulli mask
  c.offset = resolve_offset(p, w);
  return c;
}

inline xrng::DrawParams uni(double lo, double hi) {
  xrng::DrawParams q;
  q.low = lo;
  q.high = hi;
  return q;
}
inline xrng::DrawParams nor(double m, double s) {
  xrng::DrawParams q;
  q.mean = m;
  q.std = s;
  return q;
}
inline xrng::DrawParams prob(double p) {
  xrng::DrawParams q;
  q.p = p;
  return q;
}
inline xrng::DrawParams irange(int64_t lo, int64_t hi) {
  xrng::DrawParams q;
  q.ilow = lo;
  q.ihigh = hi;
  return q;
}
inline xrng::DrawParams size(uint64_t n) {
  xrng::DrawParams q;
  q.n = n;
  return q;
}

// Dropout input element i (a deterministic mix of signs, magnitudes, zero,
// a tiny value and one near the f16 maximum, so scaling can overflow f16).
inline uint64_t dropout_input(DType t, uint64_t i) {
  static const double v[] = {1.0, -2.5, 0.1, 60000.0, -0.0, 3e-5, 7.25, -1e-3, 0.75, 123.456, -42.0};
  const double x = v[i % (sizeof v / sizeof v[0])] * (1.0 + static_cast<double>(i / 11));
  switch (t) {
    case DType::f64: return xrng::math::as_u64(x);
    case DType::f32: return xrng::math::as_u32(static_cast<float>(x));
    case DType::f16: return xrng::math::f32_to_f16_bits(static_cast<float>(x));
    case DType::bf16: return xrng::math::f32_to_bf16_bits(static_cast<float>(x));
    default: throw std::runtime_error("dropout_input: dtype");
  }
}

}  // namespace golden_detail

// Every request of the golden file, without outputs.
inline std::vector<GoldenCase> golden_requests() {
  using namespace golden_detail;
  std::vector<GoldenCase> cs;
  auto all_places = [&](const std::string& op, Dist d, DType t, const xrng::DrawParams& q) {
    for (const Where& w : places()) cs.push_back(make_case(op, d, t, q, w));
  };
  all_places("fill", Dist::bits, DType::u32, {});
  all_places("fill", Dist::bits, DType::u64, {});

  // uniform: default, negative, mixed-sign, tiny (a few representable values
  // of the type, so `high` is hit by rounding) and huge ranges.
  struct Tiny {
    DType t;
    double tiny_hi, huge;
  };
  for (const Tiny& u : {Tiny{DType::f32, 1.0 + 0x1p-20, 1e38}, Tiny{DType::f64, 1.0 + 0x1p-50, 1e307},
                        Tiny{DType::f16, 1.0 + 0x1p-8, 6e4}, Tiny{DType::bf16, 1.0 + 0x1p-5, 1e38}}) {
    all_places("fill", Dist::uniform, u.t, uni(0.0, 1.0));
    all_places("fill", Dist::uniform, u.t, uni(-2.5, -0.5));
    all_places("fill", Dist::uniform, u.t, uni(-3.0, 5.0));
    all_places("fill", Dist::uniform, u.t, uni(1.0, u.tiny_hi));
    all_places("fill", Dist::uniform, u.t, uni(-u.huge, u.huge));
  }
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    all_places("fill", Dist::normal, t, nor(0.0, 1.0));
    all_places("fill", Dist::normal, t, nor(-3.5, 0.25));
    all_places("fill", Dist::normal, t, nor(1.5, 0.0));
  }
  for (double p : {0.0, 1.0, 0.3, 1e-9, 0.5}) all_places("fill", Dist::bernoulli, DType::u8, prob(p));
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    for (double p : {0.3, 0.0, 1.0}) {
      for (const Where& w : places()) {
        GoldenCase c = make_case("dropout", Dist::dropout, t, prob(p), w);
        for (uint64_t i = 0; i < c.count; ++i) c.in.push_back(dropout_input(t, c.start + i));
        cs.push_back(c);
      }
    }
  }
  const int64_t i64min = std::numeric_limits<int64_t>::min(), i64max = std::numeric_limits<int64_t>::max();
  const int64_t i32min = std::numeric_limits<int32_t>::min(), i32max = std::numeric_limits<int32_t>::max();
  for (DType t : {DType::i32, DType::i64}) {
    all_places("fill", Dist::randint, t, irange(0, 10));
    all_places("fill", Dist::randint, t, irange(-5, 3));
    all_places("fill", Dist::randint, t, irange(-1000000007, -999));
    all_places("fill", Dist::randint, t, irange(7, 8));  // a single value
    all_places("fill", Dist::randint, t, irange(i32min, i32max + int64_t{1}));  // full i32
  }
  all_places("fill", Dist::randint, DType::i64, irange(i64min, i64max));  // full i64 (range 2^64 - 1)
  all_places("fill", Dist::randint, DType::i64, irange(-(int64_t{1} << 62), (int64_t{1} << 62) + 3));

  // permutations: whole small ones, slices of huge ones, shards, inverses.
  const std::vector<Where> pw = {{0, 0, 0, 0, 0}, {42, 5, 3, 0, 0}, {0xdeadbeefcafef00dull, 1, kNearEnd, 0, 0}};
  auto perm = [&](const std::string& op, DType t, uint64_t n, uint64_t start, uint64_t count, uint64_t rank = 0,
                  uint64_t world = 0) {
    for (Where w : pw) {
      w.start = start;
      w.count = count;
      GoldenCase c = make_case(op, Dist::perm, t, size(n), w);
      c.rank = rank;
      c.world = world;
      cs.push_back(c);
    }
  };
  const uint64_t n40 = 1ull << 40, n63 = 1ull << 63;
  for (uint64_t n : {1ull, 2ull, 3ull, 10ull, 1000ull}) perm("fill", DType::i64, n, 0, n);
  perm("fill", DType::i32, 10, 0, 10);
  perm("fill", DType::u32, 1000, 500, 17);
  perm("fill", DType::i64, 1000, 997, 3);
  perm("fill", DType::i64, n40, 12345, 10);
  perm("fill", DType::i64, n40, n40 - 5, 5);
  perm("fill", DType::i64, n63, 0, 8);
  perm("fill", DType::u64, n63, n63 - 3, 3);
  for (uint64_t r = 0; r < 3; ++r) perm("perm_shard", DType::i64, 10, 0, 4, r, 3);  // 10 = 3*4 - 2: padded
  perm("perm_shard", DType::i64, 1000, 0, 125, 5, 8);
  perm("perm_shard", DType::i64, n40, 1ull << 30, 6, 3, 1000);
  perm("perm_shard", DType::i64, n63, 1ull << 60, 4, 6, 7);
  perm("perm_inverse", DType::i64, 10, 0, 10);
  perm("perm_inverse", DType::i64, 1000, 990, 10);
  perm("perm_inverse", DType::i64, n40, 1ull << 39, 5);
  perm("perm_inverse", DType::u64, n63, n63 - 4, 4);
  return cs;
}

// The golden file's full text: the format description and every case with
// its scalar-reference output.
inline std::string golden_file_text() {
  std::string s =
      "# xrng golden vectors, stream v1 (xrng::kStreamVersion = 1). Generated by tools/make_golden.cpp\n"
      "# from the scalar reference; do not edit by hand. Regenerate: build target xrng_make_golden and run\n"
      "#   xrng_make_golden tests/data/golden_v1.txt\n"
      "# A changed line is a changed stream: see SPEC.md on stream versions.\n"
      "#\n"
      "# One case per line, whitespace-separated key=value tokens in this order:\n"
      "#   op=<fill|dropout|perm_shard|perm_inverse> dist=<name> dtype=<name>\n"
      "#   seed=<hex> subseq=<hex> offset=<hex word offset> start=<dec> count=<dec>\n"
      "#   then the parameters of the distribution: low= high= (uniform), mean= std= (normal),\n"
      "#   p= (bernoulli, dropout) as C99 hex floats; ilow= ihigh= (randint [ilow, ihigh), decimal);\n"
      "#   n= (perm, decimal); rank= world= (perm_shard);\n"
      "#   in=<hex>,... (dropout input bit patterns); out=<hex>,... (expected output bit patterns).\n"
      "# Bit patterns are lower-case hex, 2 * sizeof(dtype) digits (f16/bf16: their 16-bit patterns).\n"
      "# out[i] is element start+i of the draw on Key(seed, subseq) at word `offset`; for perm_shard\n"
      "# element start+i of shard `rank` of `world`; for perm_inverse the position of value start+i.\n"
      "# Reader: tests/golden.h (read_golden).\n";
  for (GoldenCase c : golden_requests()) {
    c.out = run_reference(c);
    s += format_golden(c);
    s += '\n';
  }
  return s;
}

}  // namespace xrng_test
