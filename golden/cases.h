// The requests of the golden files (tests/data/golden_v1.txt: stream 1,
// golden_v2.txt: stream 2) and how to evaluate a golden case on the host.
// tools/make_golden.cpp writes a file from golden_file_text(version);
// tests/test_golden.cpp re-runs golden_file_text() in memory and compares it
// with the committed files, so the program and the files cannot drift apart.
// Both files hold the same requests (golden_requests()); each evaluates them
// in its own stream, every row as that stream resolves it (registry.h,
// find_row), so golden_v2.txt covers the rows stream 2 redefines and the rows
// it keeps from stream 1.
//
// The expected values come from the scalar reference only
// (xrng::detail::fill_scalar; transforms, perm_shard and perm_inverse with
// Backend::scalar and one thread).
//
// The file is append-only. Its first kFrozenCases case lines (the cases of
// the distributions that existed when it was first written) are listed by
// hand in frozen_requests() and pinned by a SHA-256 in tests/test_golden.cpp;
// every row of the registry that they do not cover gets its cases from the
// registry (registry_requests(): the distribution's sample_params() and
// edge_params() at every place of places()), appended after them.
#pragma once

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "golden/format.h"
#include "golden/sample_params.h"
#include "host/xrng.h"

namespace xrng::golden {

// Evaluates a golden case with the host API and returns its bit patterns.
// Backend::scalar + fill goes through detail::fill_scalar (the reference).
inline std::vector<uint64_t> run_host(const GoldenCase& c, const FillOptions& opt) {
  const Plan plan = c.plan();
  const Key key(c.seed, c.subseq);
  std::vector<unsigned char> buf(c.count * dtype_size(c.dtype) + 8);
  if (c.op == "fill") {
    fill(plan, key, c.offset, c.start, c.count, buf.data(), opt);
  } else if (c.op == "dropout") {
    // op=dropout is the file's name for a transform draw (dropout was the
    // first); xrng::transform evaluates any transform row.
    const std::vector<unsigned char> in = from_bits(c.dtype, c.in);
    transform(plan, key, c.offset, c.start, c.count, in.data(), buf.data(), opt);
  } else if (c.op == "perm_shard") {
    perm_shard(plan, key, c.offset, c.rank, c.world, c.start, c.count, buf.data(), opt);
  } else if (c.op == "perm_inverse") {
    perm_inverse(plan, key, c.offset, c.start, c.count, buf.data(), opt);
  } else {
    throw std::runtime_error("golden: unknown op " + c.op);
  }
  return to_bits(c.dtype, buf.data(), c.count);
}

// The scalar reference: fill_scalar directly (after the API's validation).
inline std::vector<uint64_t> run_reference(const GoldenCase& c) {
  if (c.op != "fill") return run_host(c, FillOptions{Backend::scalar, 1});
  const Plan plan = c.plan();
  check_counters(plan, c.offset, c.start, c.count);
  std::vector<unsigned char> buf(c.count * dtype_size(c.dtype) + 8);
  detail::fill_scalar(plan, Key(c.seed, c.subseq).stream(), c.offset, c.start, c.count, buf.data());
  return to_bits(c.dtype, buf.data(), c.count);
}

// Parameter edge cases of a distribution, beyond its sample_params(): values
// where a transform saturates, overflows the output type or degenerates.
// The distributions of the frozen section have theirs written out in
// frozen_requests(); a new distribution states its own here (no default:
// the compiler asks, -Werror=switch).
inline std::vector<DrawParams> edge_params(Dist d) {
  switch (d) {
    case Dist::bits:
    case Dist::uniform:
    case Dist::normal:
    case Dist::bernoulli:
    case Dist::randint:
    case Dist::perm:
    case Dist::dropout:
      return {};  // in frozen_requests()
    case Dist::exponential:
      // Values near 1e30 (inf in f16) and near 1e-30 (0 or subnormal in f16 and bf16).
      return {DrawParams::with_rate(1e-30), DrawParams::with_rate(1e30)};
    case Dist::geometric:
      // p = 1: every value is 1. p = 1e-9: values around 1e9, about one in eight
      // saturating i32 (2^31 - 1), all of them inf in f16. p = 1e-300: every
      // value saturates i64 and i32 and is inf in every float type but f64.
      return {DrawParams::probability(1.0), DrawParams::probability(1e-9), DrawParams::probability(1e-300)};
    case Dist::log_normal:
      // exp(11 + z): overflows f16 (65504) about half the time; exp(89 + z):
      // overflows f32 and bf16 about half the time; exp(-100 + z): f32
      // subnormals, 0 in f16; std = 0: exp(mean) exactly rounded, every element.
      return {DrawParams::moments(11.0, 1.0), DrawParams::moments(89.0, 1.0), DrawParams::moments(-100.0, 1.0),
              DrawParams::moments(0.5, 0.0)};
    case Dist::cauchy:
      // sigma = 0: every value is the median. sigma = 1e4: |value| > 65504
      // (inf in f16) about one time in ten.
      return {DrawParams::location_scale(1.5, 0.0), DrawParams::location_scale(0.0, 1e4)};
  }
  return {};
}

namespace internal {

// Where in which stream a case draws. offset == kNearEnd means "as close to
// 2^64 as the draw allows" (minus `tail` spare words), computed per case.
struct Where {
  uint64_t seed, subseq, offset, start, count;
  uint64_t tail = 0;
};
constexpr uint64_t kNearEnd = ~0ull;

// The places every element draw is checked at.
inline const std::vector<Where>& places() {
  static const std::vector<Where> w = {
      {0, 0, 0, 0, 9},                                                      // the origin, odd count
      {42, 0, 3, 0, 7},                                                     // odd offset
      {0x123456789abcdef0ull, 7, 5, 5, 11},                                 // odd offset, start > 0
      {2024, 1, 1000000007, 3, 5},                                          // large odd offset
      {0xffffffffffffffffull, 0xffffffffffffffffull, kNearEnd, 0, 6, 0},  // the last words of a stream
      {77, 3, kNearEnd, 1, 5, 1},                                           // near the end, one spare word
  };
  return w;
}

inline uint64_t resolve_offset(const Plan& p, const Where& w) {
  if (w.offset != kNearEnd) return w.offset;
  uint64_t need;
  if (p.kind == Kind::permutation) {
    need = p.words;
  } else {
    const uint64_t end = w.start + w.count;
    need = p.words * ((end + p.group - 1) / p.group);
  }
  return 0ull - need - w.tail;  // 2^64 - need - tail
}

inline GoldenCase make_case(const std::string& op, Dist d, DType t, const DrawParams& q, const Where& w) {
  GoldenCase c;
  c.op = op;
  c.dist = d;
  c.dtype = t;
  c.params = q;
  c.seed = w.seed;
  c.subseq = w.subseq;
  c.start = w.start;
  c.count = w.count;
  c.offset = resolve_offset(c.plan(), w);
  return c;
}

// Transform input element i (a deterministic mix of signs, magnitudes, zero,
// a tiny value and one near the f16 maximum, so scaling can overflow f16).
inline uint64_t transform_input(DType t, uint64_t i) {
  static const double v[] = {1.0, -2.5, 0.1, 60000.0, -0.0, 3e-5, 7.25, -1e-3, 0.75, 123.456, -42.0};
  const double x = v[i % (sizeof v / sizeof v[0])] * (1.0 + static_cast<double>(i / 11));
  switch (t) {
    case DType::f64: return math::as_u64(x);
    case DType::f32: return math::as_u32(static_cast<float>(x));
    case DType::f16: return math::f32_to_f16_bits(static_cast<float>(x));
    case DType::bf16: return math::f32_to_bf16_bits(static_cast<float>(x));
    default: throw std::runtime_error("golden: transform input of dtype " + std::string(dtype_name(t)));
  }
}

// Every case of distribution d, dtype t, parameters q, at every place: a fill
// for element draws, a transform of transform_input() for transform draws.
inline void at_all_places(std::vector<GoldenCase>& cs, Dist d, DType t, const DrawParams& q) {
  for (const Where& w : places()) {
    if (dist_kind(d) == Kind::transform) {
      GoldenCase c = make_case("dropout", d, t, q, w);
      for (uint64_t i = 0; i < c.count; ++i) c.in.push_back(transform_input(t, c.start + i));
      cs.push_back(c);
    } else {
      cs.push_back(make_case("fill", d, t, q, w));
    }
  }
}

}  // namespace internal

// The cases of the distributions that existed when the file was first written
// (bits .. dropout), in the file's order. Frozen: tests/test_golden.cpp pins
// the SHA-256 of their lines, so nothing here may change; new cases go to
// registry_requests().
inline std::vector<GoldenCase> frozen_requests() {
  using namespace internal;
  std::vector<GoldenCase> cs;
  auto all_places = [&](Dist d, DType t, const DrawParams& q) { at_all_places(cs, d, t, q); };
  all_places(Dist::bits, DType::u32, {});
  all_places(Dist::bits, DType::u64, {});

  // uniform: default, negative, mixed-sign, tiny (a few representable values
  // of the type, so `high` is hit by rounding) and huge ranges.
  struct Tiny {
    DType t;
    double tiny_hi, huge;
  };
  for (const Tiny& u : {Tiny{DType::f32, 1.0 + 0x1p-20, 1e38}, Tiny{DType::f64, 1.0 + 0x1p-50, 1e307},
                        Tiny{DType::f16, 1.0 + 0x1p-8, 6e4}, Tiny{DType::bf16, 1.0 + 0x1p-5, 1e38}}) {
    all_places(Dist::uniform, u.t, DrawParams::range(0.0, 1.0));
    all_places(Dist::uniform, u.t, DrawParams::range(-2.5, -0.5));
    all_places(Dist::uniform, u.t, DrawParams::range(-3.0, 5.0));
    all_places(Dist::uniform, u.t, DrawParams::range(1.0, u.tiny_hi));
    all_places(Dist::uniform, u.t, DrawParams::range(-u.huge, u.huge));
  }
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    all_places(Dist::normal, t, DrawParams::moments(0.0, 1.0));
    all_places(Dist::normal, t, DrawParams::moments(-3.5, 0.25));
    all_places(Dist::normal, t, DrawParams::moments(1.5, 0.0));
  }
  for (double p : {0.0, 1.0, 0.3, 1e-9, 0.5}) all_places(Dist::bernoulli, DType::u8, DrawParams::probability(p));
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16})
    for (double p : {0.3, 0.0, 1.0}) all_places(Dist::dropout, t, DrawParams::probability(p));
  const int64_t i64min = std::numeric_limits<int64_t>::min(), i64max = std::numeric_limits<int64_t>::max();
  const int64_t i32min = std::numeric_limits<int32_t>::min(), i32max = std::numeric_limits<int32_t>::max();
  for (DType t : {DType::i32, DType::i64}) {
    all_places(Dist::randint, t, DrawParams::int_range(0, 10));
    all_places(Dist::randint, t, DrawParams::int_range(-5, 3));
    all_places(Dist::randint, t, DrawParams::int_range(-1000000007, -999));
    all_places(Dist::randint, t, DrawParams::int_range(7, 8));                         // a single value
    all_places(Dist::randint, t, DrawParams::int_range(i32min, i32max + int64_t{1}));  // full i32
  }
  all_places(Dist::randint, DType::i64, DrawParams::int_range(i64min, i64max));  // full i64 (range 2^64 - 1)
  all_places(Dist::randint, DType::i64, DrawParams::int_range(-(int64_t{1} << 62), (int64_t{1} << 62) + 3));

  // permutations: whole small ones, slices of huge ones, shards, inverses.
  const std::vector<Where> pw = {{0, 0, 0, 0, 0}, {42, 5, 3, 0, 0}, {0xdeadbeefcafef00dull, 1, kNearEnd, 0, 0}};
  auto perm = [&](const std::string& op, DType t, uint64_t n, uint64_t start, uint64_t count, uint64_t rank = 0,
                  uint64_t world = 0) {
    for (Where w : pw) {
      w.start = start;
      w.count = count;
      GoldenCase c = make_case(op, Dist::perm, t, DrawParams::perm_size(n), w);
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

// The number of case lines frozen_requests() writes (pinned in tests/test_golden.cpp).
inline constexpr size_t kFrozenCases = 444;

// The cases of every registry row that frozen_requests() does not cover, in
// registry order: each of the distribution's sample_params() and then its
// edge_params(), at every place. Appending a row to the registry appends its
// cases here, and the golden test then fails until the file is regenerated.
// A row of a later stream version that redefines a (dist, dtype) adds no
// cases: the (dist, dtype) has them already, and each file evaluates them in
// its own stream.
// Permutation rows get no cases here: their shards and inverses need cases of
// their own (frozen_requests() has them for perm), which a new permutation
// distribution must add by hand.
inline std::vector<GoldenCase> registry_requests(const std::vector<GoldenCase>& frozen) {
  std::set<std::pair<Dist, DType>> covered;
  for (const GoldenCase& c : frozen) covered.insert({c.dist, c.dtype});
  std::vector<GoldenCase> cs;
  for (const RowInfo& r : kRows) {
    if (!covered.insert({r.dist, r.dtype}).second || dist_kind(r.dist) == Kind::permutation) continue;
    for (const DrawParams& q : sample_params(r.dist)) internal::at_all_places(cs, r.dist, r.dtype, q);
    for (const DrawParams& q : edge_params(r.dist)) internal::at_all_places(cs, r.dist, r.dtype, q);
  }
  return cs;
}

// Every request of the golden file of stream `version`, without outputs: the
// frozen cases, then the registry's; the same requests for every version.
inline std::vector<GoldenCase> golden_requests(int version = 1) {
  check_stream_version(version, "golden_requests");
  std::vector<GoldenCase> cs = frozen_requests();
  const std::vector<GoldenCase> more = registry_requests(cs);
  cs.insert(cs.end(), more.begin(), more.end());
  for (GoldenCase& c : cs) c.stream = version;
  return cs;
}

// The header comment of the golden file of stream `version`: how to
// regenerate it and the format, with each distribution's parameter tokens
// listed from the registry. Stream 1's text is frozen with its file (every
// byte of golden_v1.txt is pinned).
inline std::string golden_file_header(int version = 1) {
  std::string s;
  if (version == 1) {
    s = "# xrng golden vectors, stream v1 (xrng::kStreamVersion = 1). Generated by tools/make_golden.cpp\n"
        "# from the scalar reference; do not edit by hand. Regenerate: build target xrng_make_golden and run\n"
        "#   xrng_make_golden tests/data/golden_v1.txt\n"
        "# A changed line is a changed stream: see SPEC.md on stream versions. The file is append-only:\n"
        "# tests/test_golden.cpp pins the SHA-256 of its first " +
        std::to_string(kFrozenCases) +
        " case lines.\n"
        "#\n"
        "# One case per line, whitespace-separated key=value tokens in this order:\n"
        "#   op=<fill|dropout|perm_shard|perm_inverse> dist=<name> dtype=<name>\n";
  } else {
    s = "# xrng golden vectors, stream v" + std::to_string(version) +
        ": every row as stream " + std::to_string(version) +
        " resolves it. Generated by tools/make_golden.cpp\n"
        "# from the scalar reference; do not edit by hand. Regenerate (writes this file and its SHA-256 pin\n"
        "# in tests/test_golden.cpp; SPEC.md section 7):\n"
        "#   cmake --build build --target golden_v" + std::to_string(version) + "\n"
        "# A changed line is a changed stream: see SPEC.md on stream versions.\n"
        "#\n"
        "# One case per line, whitespace-separated key=value tokens in this order:\n"
        "#   op=<fill|dropout|perm_shard|perm_inverse> dist=<name> dtype=<name> stream=" + std::to_string(version) +
        "\n";
  }
  s +=
      "#   seed=<hex> subseq=<hex> offset=<hex word offset> start=<dec> count=<dec>\n"
      "#   then exactly the parameters the distribution reads, in this order (registry.h):\n";
  for (const DistInfo& d : kDists) {
    std::string line = "#     " + std::string(d.name) + ":";
    line.resize(std::max<size_t>(line.size() + 1, 20), ' ');
    std::string toks;
    for (const ParamInfo& p : kParams)
      if (dist_has_param(d.id, p.id)) toks += std::string(toks.empty() ? "" : " ") + p.name + "=";
    if (toks.empty()) toks = "(none)";
    toks.resize(std::max<size_t>(toks.size() + 1, 18), ' ');
    s += line + toks + d.doc + "\n";
  }
  for (ParamKind k : {ParamKind::real, ParamKind::integer, ParamKind::count}) {
    std::string names;
    for (const ParamInfo& p : kParams)
      if (p.kind == k) names += std::string(names.empty() ? "" : ", ") + p.name;
    s += std::string("#   as ") + param_kind_format(k) + "s: " + names + "\n";
  }
  s +=
      "#   then rank= world= (perm_shard); in=<hex>,... (op=dropout, a transform draw: input bit patterns);\n"
      "#   out=<hex>,... (expected output bit patterns).\n"
      "# Bit patterns are lower-case hex, 2 * sizeof(dtype) digits (f16/bf16: their 16-bit patterns).\n"
      "# out[i] is element start+i of the draw on Key(seed, subseq) at word `offset`; for perm_shard\n"
      "# element start+i of shard `rank` of `world`; for perm_inverse the position of value start+i.\n"
      "# Reader and writer: golden/format.h (read_golden, format_golden); the cases: golden/cases.h.\n";
  return s;
}

// The full text of the golden file of stream `version`: the header and every
// case with its scalar-reference output.
inline std::string golden_file_text(int version = 1) {
  std::string s = golden_file_header(version);
  for (GoldenCase c : golden_requests(version)) {
    c.out = run_reference(c);
    s += format_golden(c);
    s += '\n';
  }
  return s;
}

}  // namespace xrng::golden
