// The golden-vector file format (tests/data/golden_v1.txt, golden_v2.txt):
// one case per line, its reader and its writer. A golden file is a frozen
// stream version that every backend (scalar, SIMD, CUDA) and `xrng verify`
// are checked against: golden_v1.txt stream 1, golden_v2.txt stream 2.
//
// One case per line; '#' starts a comment line; blank lines are ignored. A
// line is whitespace-separated key=value tokens, in this order:
//
//   op=<fill|dropout|perm_shard|perm_inverse> dist=<name> dtype=<name>
//   [stream=<dec>]             the stream version of the case; absent: 1
//                              (so the lines of golden_v1.txt have none)
//   seed=<hex> subseq=<hex> offset=<hex> start=<dec> count=<dec>
//   <param>=<value> ...        the parameters the distribution reads
//                              (registry.h: XRNG_DISTS' mask), in XRNG_PARAMS
//                              order; real: C99 hex float (%a, exact),
//                              integer: signed decimal, count: decimal
//   [rank=<dec> world=<dec>]   perm_shard
//   [in=<hex>,<hex>,...]       dropout (a transform draw): the input bit patterns
//   out=<hex>,<hex>,...        the expected output bit patterns
//
// The parameter tokens are not listed here: they are XRNG_PARAMS' names, so a
// parameter added to the registry is readable and writable without touching
// this file. A line must carry exactly the parameters its distribution reads;
// any other key is an error, so the format cannot drift silently.
//
// Bit patterns are lower-case hex without 0x, exactly 2 * dtype_size digits
// (f16/bf16 are their 16-bit patterns, u8 two digits). out[i] is element
// start + i of the draw (perm_shard: element j = start + i of the shard;
// perm_inverse: the position of value start + i). The stream is Key(seed,
// subseq) at word `offset`.
//
// This header needs only rng/plan.h, so it builds in host, SIMD and CUDA
// (nvcc) translation units alike.
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

namespace xrng::golden {

struct GoldenCase {
  int line = 0;                  // line number in the file (1-based), for messages
  std::string op = "fill";       // fill, dropout, perm_shard, perm_inverse
  Dist dist = Dist::bits;
  DType dtype = DType::u32;
  int stream = 1;                // the stream version the case is drawn in
  uint64_t seed = 0, subseq = 0, offset = 0;
  uint64_t start = 0, count = 0;
  DrawParams params;             // only the parameters `dist` reads are meaningful
  uint64_t rank = 0, world = 0;  // perm_shard
  std::vector<uint64_t> in;      // dropout input, bit patterns
  std::vector<uint64_t> out;     // expected output, bit patterns

  Plan plan() const { return make_plan(dist, dtype, params, stream); }
  // A short description for failure messages.
  std::string name() const {
    return "line " + std::to_string(line) + ": " + op + " " + dist_name(dist) + "/" + dtype_name(dtype) +
           " stream=" + std::to_string(stream) + " seed=" + std::to_string(seed) + " subseq=" + std::to_string(subseq) + " offset=" +
           std::to_string(offset) + " start=" + std::to_string(start) + " count=" + std::to_string(count);
  }
};

// ---- bit patterns <-> raw buffers -------------------------------------------------------
// Unpacks `count` elements of dtype t from a buffer into zero-extended patterns.
inline std::vector<uint64_t> to_bits(DType t, const void* buf, uint64_t count) {
  const int sz = dtype_size(t);
  std::vector<uint64_t> v(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t x = 0;
    std::memcpy(&x, static_cast<const char*>(buf) + i * sz, sz);  // little-endian host
    v[i] = x;
  }
  return v;
}
// Packs bit patterns into a byte buffer of dtype t.
inline std::vector<unsigned char> from_bits(DType t, const std::vector<uint64_t>& bits) {
  const int sz = dtype_size(t);
  std::vector<unsigned char> b(bits.size() * sz + 8);  // +8: never a zero-sized buffer
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(b.data() + i * sz, &bits[i], sz);
  return b;
}

// ---- parameters as tokens ----------------------------------------------------------------
// A parameter's value as the file writes it: reals as C99 hex floats (exact,
// locale-free), integers and counts in decimal.
inline std::string param_token(const DrawParams& q, const ParamInfo& info) {
  char b[64];
  switch (info.kind) {
    case ParamKind::real: std::snprintf(b, sizeof b, "%a", q.real(info.id)); break;
    case ParamKind::integer: std::snprintf(b, sizeof b, "%" PRId64, q.integer(info.id)); break;
    case ParamKind::count: std::snprintf(b, sizeof b, "%" PRIu64, q.count(info.id)); break;
  }
  return b;
}
// The kind of a parameter as the file header describes it.
inline const char* param_kind_format(ParamKind k) {
  switch (k) {
    case ParamKind::real: return "C99 hex float";
    case ParamKind::integer: return "signed decimal";
    case ParamKind::count: return "unsigned decimal";
  }
  return "?";
}

// ---- writing ------------------------------------------------------------------------------
inline std::string hex_list(DType t, const std::vector<uint64_t>& v) {
  const int digits = 2 * dtype_size(t);
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
  char b[256];
  std::snprintf(b, sizeof b, "op=%s dist=%s dtype=%s", c.op.c_str(), dist_name(c.dist), dtype_name(c.dtype));
  std::string s = b;
  if (c.stream != 1) s += " stream=" + std::to_string(c.stream);  // the lines of stream 1 carry none
  std::snprintf(b, sizeof b,
                " seed=0x%" PRIx64 " subseq=0x%" PRIx64 " offset=0x%" PRIx64 " start=%" PRIu64 " count=%" PRIu64,
                c.seed, c.subseq, c.offset, c.start, c.count);
  s += b;
  for (const ParamInfo& info : kParams)
    if (dist_has_param(c.dist, info.id)) s += std::string(" ") + info.name + "=" + param_token(c.params, info);
  if (c.op == "perm_shard") s += " rank=" + std::to_string(c.rank) + " world=" + std::to_string(c.world);
  if (c.op == "dropout") s += " in=" + hex_list(c.dtype, c.in);
  s += " out=" + hex_list(c.dtype, c.out);
  return s;
}

// ---- reading ------------------------------------------------------------------------------
namespace internal {
[[noreturn]] inline void fail(int line, const std::string& what) {
  throw std::runtime_error("golden line " + std::to_string(line) + ": " + what);
}
inline uint64_t parse_u64(const std::string& v, int base, const std::string& what, int line) {
  if (v.empty()) fail(line, "empty value for " + what);
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v.c_str(), &end, base);
  if (errno != 0 || *end != '\0' || v[0] == '-' || v[0] == '+') fail(line, "bad number '" + v + "' for " + what);
  return x;
}
inline int64_t parse_i64(const std::string& v, const std::string& what, int line) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || errno != 0 || *end != '\0') fail(line, "bad number '" + v + "' for " + what);
  return x;
}
inline double parse_f64(const std::string& v, const std::string& what, int line) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') fail(line, "bad float '" + v + "' for " + what);
  return x;
}
inline std::vector<uint64_t> parse_list(const std::string& v, const std::string& what, int line) {
  std::vector<uint64_t> out;
  if (v.empty()) return out;
  size_t p = 0;
  while (p <= v.size()) {
    const size_t q = v.find(',', p);
    const std::string item = v.substr(p, q == std::string::npos ? std::string::npos : q - p);
    out.push_back(parse_u64(item, 16, what, line));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return out;
}
inline const ParamInfo* find_param(const std::string& name) {
  for (const ParamInfo& info : kParams)
    if (name == info.name) return &info;
  return nullptr;
}
}  // namespace internal

// Parses one non-comment line. Throws std::runtime_error on malformed input:
// an unknown key, a parameter the distribution does not read or one it reads
// but the line lacks, a bad number, or out/in of the wrong length.
inline GoldenCase parse_golden(const std::string& text, int line = 0) {
  GoldenCase c;
  c.line = line;
  std::istringstream is(text);
  std::string tok;
  bool have_out = false;
  uint32_t params_seen = 0;  // param_bit() of each parameter token read
  while (is >> tok) {
    const size_t eq = tok.find('=');
    if (eq == std::string::npos) internal::fail(line, "token '" + tok + "' is not key=value");
    const std::string k = tok.substr(0, eq), v = tok.substr(eq + 1);
    if (k == "op") {
      if (v != "fill" && v != "dropout" && v != "perm_shard" && v != "perm_inverse")
        internal::fail(line, "unknown op '" + v + "'");
      c.op = v;
    } else if (k == "dist") c.dist = parse_dist(v);
    else if (k == "dtype") c.dtype = parse_dtype(v);
    else if (k == "stream") {
      const uint64_t v2 = internal::parse_u64(v, 10, k, line);
      if (v2 < static_cast<uint64_t>(kOldestStreamVersion) || v2 > static_cast<uint64_t>(kStreamVersion))
        internal::fail(line, "stream version " + v + " does not exist");
      c.stream = static_cast<int>(v2);
    } else if (k == "seed") c.seed = internal::parse_u64(v, 0, k, line);
    else if (k == "subseq") c.subseq = internal::parse_u64(v, 0, k, line);
    else if (k == "offset") c.offset = internal::parse_u64(v, 0, k, line);
    else if (k == "start") c.start = internal::parse_u64(v, 10, k, line);
    else if (k == "count") c.count = internal::parse_u64(v, 10, k, line);
    else if (k == "rank") c.rank = internal::parse_u64(v, 10, k, line);
    else if (k == "world") c.world = internal::parse_u64(v, 10, k, line);
    else if (k == "in") c.in = internal::parse_list(v, k, line);
    else if (k == "out") {
      c.out = internal::parse_list(v, k, line);
      have_out = true;
    } else if (const ParamInfo* info = internal::find_param(k)) {
      if (params_seen & param_bit(info->id)) internal::fail(line, "parameter '" + k + "' given twice");
      params_seen |= param_bit(info->id);
      switch (info->kind) {
        case ParamKind::real: c.params.set_real(info->id, internal::parse_f64(v, k, line)); break;
        case ParamKind::integer: c.params.set_integer(info->id, internal::parse_i64(v, k, line)); break;
        case ParamKind::count: c.params.set_count(info->id, internal::parse_u64(v, 10, k, line)); break;
      }
    } else {
      internal::fail(line, "unknown key '" + k + "'");
    }
  }
  // The parameter tokens must be exactly those the distribution reads: a
  // missing one would silently take DrawParams' default.
  for (const ParamInfo& info : kParams) {
    const bool reads = dist_has_param(c.dist, info.id), given = (params_seen & param_bit(info.id)) != 0;
    if (reads && !given) internal::fail(line, std::string("dist ") + dist_name(c.dist) + " needs " + info.name + "=");
    if (!reads && given)
      internal::fail(line, std::string("dist ") + dist_name(c.dist) + " does not read " + info.name + "=");
  }
  if (!have_out || c.out.size() != c.count)
    internal::fail(line, "out has " + std::to_string(c.out.size()) + " values, count is " + std::to_string(c.count));
  if (c.op == "dropout" && c.in.size() != c.count) internal::fail(line, "in has the wrong length");
  return c;
}

// Every case of a golden-style text, parse(line, line_number) per line
// (comment and blank lines skipped; line numbers count every line).
template <class Case, class Parse>
inline std::vector<Case> parse_lines(const std::string& text, Parse parse) {
  std::vector<Case> cases;
  std::istringstream in(text);
  std::string s;
  int line = 0;
  while (std::getline(in, s)) {
    ++line;
    const size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos || s[b] == '#') continue;
    cases.push_back(parse(s, line));
  }
  return cases;
}

// Every case of a golden file's text. Throws std::runtime_error if malformed.
inline std::vector<GoldenCase> parse_golden_text(const std::string& text) {
  return parse_lines<GoldenCase>(text, parse_golden);
}

// Reads every case of a golden file. Throws std::runtime_error if the file is
// missing or malformed (a missing file must fail a test, never skip it).
inline std::vector<GoldenCase> read_golden(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("golden: cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_golden_text(ss.str());
}

// The name of the golden file of stream `version`: golden_v<version>.txt.
inline std::string golden_file_name(int version) { return "golden_v" + std::to_string(version) + ".txt"; }

#if defined(XRNG_TEST_DATA_DIR)
// tests/data/golden_v<version>.txt of the source tree, for tests
// (tests/CMakeLists.txt defines XRNG_TEST_DATA_DIR); stream 1 by default (the
// frozen v1 file, whose cases every backend test replays). Programs that ship
// use the embedded copies (golden/embedded.h) instead, which never depend on
// a source tree.
inline std::string golden_path(int version = 1) {
  return std::string(XRNG_TEST_DATA_DIR) + "/" + golden_file_name(version);
}
#endif

}  // namespace xrng::golden
