// Reader (and writer) of tests/data/golden_v1.txt, the golden vectors of
// stream v1 that every backend (scalar, SIMD, CUDA) is checked against.
//
// File format (one case per line; '#' starts a comment line; blank lines are
// ignored). A line is whitespace-separated key=value tokens, in this order:
//
//   op=<fill|dropout|perm_shard|perm_inverse> dist=<name> dtype=<name>
//   seed=<hex> subseq=<hex> offset=<hex> start=<dec> count=<dec>
//   [low=<%a> high=<%a>]            uniform            (C99 hex floats: exact)
//   [mean=<%a> std=<%a>]            normal
//   [p=<%a>]                        bernoulli, dropout
//   [ilow=<dec> ihigh=<dec>]        randint, [ilow, ihigh), signed decimal
//   [n=<dec>]                       perm (all perm ops)
//   [rank=<dec> world=<dec>]        perm_shard
//   [in=<hex>,<hex>,...]            dropout: input element bit patterns
//   out=<hex>,<hex>,...             expected output bit patterns
//
// Bit patterns are lower-case hex without 0x, exactly 2 * dtype_size digits
// (f16/bf16 are their 16-bit patterns, u8 two digits). out[i] is element
// start + i of the draw (perm_shard: element j = start + i of the shard;
// perm_inverse: the position of value start + i). The stream is Key(seed,
// subseq) at word `offset`. Unknown keys are an error, so the format cannot
// drift silently.
//
// The header only needs rng/plan.h, so it builds in host, SIMD and CUDA tests.
#pragma once

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "rng/plan.h"

namespace xrng_test {

struct GoldenCase {
  int line = 0;                // line number in the file (1-based), for messages
  std::string op = "fill";     // fill, dropout, perm_shard, perm_inverse
  xrng::Dist dist = xrng::Dist::bits;
  xrng::DType dtype = xrng::DType::u32;
  uint64_t seed = 0, subseq = 0, offset = 0;
  uint64_t start = 0, count = 0;
  xrng::DrawParams params;     // only the fields of `dist` are meaningful
  uint64_t rank = 0, world = 0;  // perm_shard
  std::vector<uint64_t> in;    // dropout input, bit patterns
  std::vector<uint64_t> out;   // expected output, bit patterns

  xrng::Plan plan() const { return xrng::make_plan(dist, dtype, params); }
  // A short description for failure messages.
  std::string name() const {
    return "line " + std::to_string(line) + ": " + op + " " + xrng::dist_name(dist) + "/" + xrng::dtype_name(dtype) +
           " seed=" + std::to_string(seed) + " subseq=" + std::to_string(subseq) + " offset=" +
           std::to_string(offset) + " start=" + std::to_string(start) + " count=" + std::to_string(count);
  }
};

// ---- bit patterns <-> raw buffers -------------------------------------------------------
// Unpacks `count` elements of dtype t from a buffer into zero-extended patterns.
inline std::vector<uint64_t> to_bits(xrng::DType t, const void* buf, uint64_t count) {
  const int sz = xrng::dtype_size(t);
  std::vector<uint64_t> v(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t x = 0;
    std::memcpy(&x, static_cast<const char*>(buf) + i * sz, sz);  // little-endian host
    v[i] = x;
  }
  return v;
}
// Packs bit patterns into a byte buffer of dtype t.
inline std::vector<unsigned char> from_bits(xrng::DType t, const std::vector<uint64_t>& bits) {
  const int sz = xrng::dtype_size(t);
  std::vector<unsigned char> b(bits.size() * sz + 8);  // +8: never a zero-sized buffer
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(b.data() + i * sz, &bits[i], sz);
  return b;
}

// ---- writing ------------------------------------------------------------------------------
inline std::string hex_float(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", x);
  return b;
}
inline std::string hex_list(xrng::DType t, const std::vector<uint64_t>& v) {
  const int digits = 2 * xrng::dtype_size(t);
  std::string s;
  char b[32];
  for (size_t i = 0; i < v.size(); ++i) {
    std::snprintf(b, sizeof b, "%0*" PRIx64, digits, v[i]);
    if (i) s += ',';
    s += b;
  }
  return s;
}
inline std::string format_golden(const GoldenCase& c) {
  using xrng::Dist;
  char b[256];
  std::snprintf(b, sizeof b, "op=%s dist=%s dtype=%s seed=0x%" PRIx64 " subseq=0x%" PRIx64 " offset=0x%" PRIx64
                " start=%" PRIu64 " count=%" PRIu64,
                c.op.c_str(), xrng::dist_name(c.dist), xrng::dtype_name(c.dtype), c.seed, c.subseq, c.offset, c.start,
                c.count);
  std::string s = b;
  const xrng::DrawParams& q = c.params;
  switch (c.dist) {
    case Dist::uniform: s += " low=" + hex_float(q.low) + " high=" + hex_float(q.high); break;
    case Dist::normal: s += " mean=" + hex_float(q.mean) + " std=" + hex_float(q.std); break;
    case Dist::bernoulli:
    case Dist::dropout: s += " p=" + hex_float(q.p); break;
    case Dist::randint: s += " ilow=" + std::to_string(q.ilow) + " ihigh=" + std::to_string(q.ihigh); break;
    case Dist::perm: s += " n=" + std::to_string(q.n); break;
    default: break;
  }
  if (c.op == "perm_shard") s += " rank=" + std::to_string(c.rank) + " world=" + std::to_string(c.world);
  if (c.op == "dropout") s += " in=" + hex_list(c.dtype, c.in);
  s += " out=" + hex_list(c.dtype, c.out);
  return s;
}

// ---- reading ------------------------------------------------------------------------------
namespace detail {
inline uint64_t parse_u64(const std::string& v, int base, const std::string& what) {
  if (v.empty()) throw std::runtime_error("golden: empty value for " + what);
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v.c_str(), &end, base);
  if (errno != 0 || *end != '\0' || v[0] == '-') throw std::runtime_error("golden: bad number '" + v + "' for " + what);
  return x;
}
inline int64_t parse_i64(const std::string& v, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || errno != 0 || *end != '\0') throw std::runtime_error("golden: bad number '" + v + "' for " + what);
  return x;
}
inline double parse_f64(const std::string& v, const std::string& what) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') throw std::runtime_error("golden: bad float '" + v + "' for " + what);
  return x;
}
inline std::vector<uint64_t> parse_list(const std::string& v, const std::string& what) {
  std::vector<uint64_t> out;
  if (v.empty()) return out;
  size_t p = 0;
  while (p <= v.size()) {
    const size_t q = v.find(',', p);
    const std::string item = v.substr(p, q == std::string::npos ? std::string::npos : q - p);
    out.push_back(parse_u64(item, 16, what));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return out;
}
}  // namespace detail

// Parses one non-comment line. Throws std::runtime_error on malformed input.
inline GoldenCase parse_golden(const std::string& text, int line = 0) {
  GoldenCase c;
  c.line = line;
  std::istringstream is(text);
  std::string tok;
  bool have_out = false;
  while (is >> tok) {
    const size_t eq = tok.find('=');
    if (eq == std::string::npos) throw std::runtime_error("golden line " + std::to_string(line) + ": token '" + tok + "'");
    const std::string k = tok.substr(0, eq), v = tok.substr(eq + 1);
    if (k == "op") {
      if (v != "fill" && v != "dropout" && v != "perm_shard" && v != "perm_inverse")
        throw std::runtime_error("golden line " + std::to_string(line) + ": unknown op '" + v + "'");
      c.op = v;
    } else if (k == "dist") c.dist = xrng::parse_dist(v);
    else if (k == "dtype") c.dtype = xrng::parse_dtype(v);
    else if (k == "seed") c.seed = detail::parse_u64(v, 0, k);
    else if (k == "subseq") c.subseq = detail::parse_u64(v, 0, k);
    else if (k == "offset") c.offset = detail::parse_u64(v, 0, k);
    else if (k == "start") c.start = detail::parse_u64(v, 10, k);
    else if (k == "count") c.count = detail::parse_u64(v, 10, k);
    else if (k == "low") c.params.low = detail::parse_f64(v, k);
    else if (k == "high") c.params.high = detail::parse_f64(v, k);
    else if (k == "mean") c.params.mean = detail::parse_f64(v, k);
    else if (k == "std") c.params.std = detail::parse_f64(v, k);
    else if (k == "p") c.params.p = detail::parse_f64(v, k);
    else if (k == "ilow") c.params.ilow = detail::parse_i64(v, k);
    else if (k == "ihigh") c.params.ihigh = detail::parse_i64(v, k);
    else if (k == "n") c.params.n = detail::parse_u64(v, 10, k);
    else if (k == "rank") c.rank = detail::parse_u64(v, 10, k);
    else if (k == "world") c.world = detail::parse_u64(v, 10, k);
    else if (k == "in") c.in = detail::parse_list(v, k);
    else if (k == "out") {
      c.out = detail::parse_list(v, k);
      have_out = true;
    } else
      throw std::runtime_error("golden line " + std::to_string(line) + ": unknown key '" + k + "'");
  }
  if (!have_out || c.out.size() != c.count)
    throw std::runtime_error("golden line " + std::to_string(line) + ": out has " + std::to_string(c.out.size()) +
                             " values, count is " + std::to_string(c.count));
  if (c.op == "dropout" && c.in.size() != c.count)
    throw std::runtime_error("golden line " + std::to_string(line) + ": in has the wrong length");
  return c;
}

// Reads every case of a golden file. Throws std::runtime_error if the file is
// missing or malformed (a missing file must fail a test, never skip it).
inline std::vector<GoldenCase> read_golden(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("golden: cannot open " + path);
  std::vector<GoldenCase> cases;
  std::string s;
  int line = 0;
  while (std::getline(f, s)) {
    ++line;
    const size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos || s[b] == '#') continue;
    cases.push_back(parse_golden(s, line));
  }
  return cases;
}

#if defined(XRNG_TEST_DATA_DIR)
// tests/data of the source tree (set by tests/CMakeLists.txt).
inline std::string golden_path() { return std::string(XRNG_TEST_DATA_DIR) + "/golden_v1.txt"; }
#endif

}  // namespace xrng_test
