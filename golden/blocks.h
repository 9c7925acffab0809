// Golden block draws (tests/data/golden_blocks.txt): blocks of N-d global
// tensors (rng/block.h), in both stream versions, from the scalar reference.
// tools/make_golden.cpp --blocks writes the file from block_golden_text();
// tests/test_blocks.cpp checks that the committed file is that text, and that
// each case equals the slice of the full draw of its global tensor on every
// host backend. Regenerate (after a change of stream v2's values):
//   cmake --build build --target golden_blocks
//
// A line is a golden line (golden/format.h) with three more tokens after
// count=: shape=<d0>,<d1>,... block_start=<s0>,... block_size=<z0>,... (an
// empty list for a 0-d tensor); start is always 0 and count is the block's
// element count; out[j] is block element j (row-major over block_size) of
// the draw over the global tensor `shape`; op=dropout's in[j] is the input
// at that element, transform_input(dtype, global index).
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "golden/cases.h"
#include "host/xrng.h"
#include "rng/block.h"

namespace xrng::golden {

struct BlockCase {
  GoldenCase base;  // op, dist, dtype, stream, key, offset, parameters, in, out; start 0, count = block elements
  TensorBlock block;
  std::string name() const {
    return base.name() + " shape=" + detail::dims_text(block.shape) + " block_start=" +
           detail::dims_text(block.start) + " block_size=" + detail::dims_text(block.size);
  }
};

// The block's elements of the full draw over its global tensor, from the
// scalar reference (a range draw of every global element, one thread), as
// raw bytes; a transform's input is transform_input(dtype, global index).
struct BlockSlice {
  uint64_t count = 0;
  std::vector<unsigned char> in, out;  // count elements (+8 bytes, never empty)
};
inline BlockSlice block_slice_reference(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& b) {
  const BlockLayout L = check_block(plan, offset, b, 0, BlockLayout::make(b).count);
  const size_t es = dtype_size(plan.dtype);
  std::vector<unsigned char> full(L.global_count * es + 8), gin;
  const FillOptions ref{Backend::scalar, 1};
  if (plan.kind == Kind::transform) {
    gin.resize(L.global_count * es + 8);
    for (uint64_t g = 0; g < L.global_count; ++g) {
      const uint64_t x = internal::transform_input(plan.dtype, g);
      std::memcpy(gin.data() + g * es, &x, es);
    }
    transform(plan, key, offset, 0, L.global_count, gin.data(), full.data(), ref);
  } else {
    fill(plan, key, offset, 0, L.global_count, full.data(), ref);
  }
  BlockSlice s;
  s.count = L.count;
  s.out.resize(L.count * es + 8);
  if (plan.kind == Kind::transform) s.in.resize(L.count * es + 8);
  L.for_each_piece(0, L.count, [&](uint64_t j, uint64_t g, uint64_t m) {
    std::memcpy(s.out.data() + j * es, full.data() + g * es, m * es);
    if (!gin.empty()) std::memcpy(s.in.data() + j * es, gin.data() + g * es, m * es);
  });
  return s;
}

// A case's expected output computed as the slice of the full draw.
inline std::vector<uint64_t> block_case_from_full(const BlockCase& c) {
  const BlockSlice s = block_slice_reference(c.base.plan(), Key(c.base.seed, c.base.subseq), c.base.offset, c.block);
  return to_bits(c.base.dtype, s.out.data(), s.count);
}

// A case computed by the host block draw (fill_block / transform_block).
inline std::vector<uint64_t> run_block_host(const BlockCase& c, const FillOptions& opt) {
  const Plan plan = c.base.plan();
  const Key key(c.base.seed, c.base.subseq);
  std::vector<unsigned char> buf(c.base.count * dtype_size(c.base.dtype) + 8);
  if (c.base.op == "dropout") {
    const std::vector<unsigned char> in = from_bits(c.base.dtype, c.base.in);
    transform_block(plan, key, c.base.offset, c.block, in.data(), buf.data(), opt);
  } else {
    fill_block(plan, key, c.base.offset, c.block, buf.data(), opt);
  }
  return to_bits(c.base.dtype, buf.data(), c.base.count);
}

namespace internal {

struct BlockWhere {
  TensorBlock block;
  uint64_t seed, subseq, offset;  // offset kNearEnd: the global draw ends at word 2^64
};

// The blocks every row is drawn at: rank 1..4 and 0, odd starts, edges that
// split normal's pairs and multi-word elements, an empty block, a global
// draw that ends at the last word of the stream.
inline const std::vector<BlockWhere>& block_places() {
  static const std::vector<BlockWhere> w = {
      {{{11}, {5}, {5}}, 42, 0, 1000000007},                          // rank 1, odd start and end
      {{{4, 6}, {1, 2}, {2, 3}}, 0, 0, 3},                            // rank 2, the README's example
      {{{3, 5, 7}, {1, 0, 3}, {2, 5, 3}}, 0x123456789abcdef0ull, 7, 0},  // rank 3, middle dimension whole
      {{{2, 3, 4, 5}, {1, 1, 0, 1}, {1, 2, 4, 3}}, 77, 3, kNearEnd},  // rank 4, at the end of the stream
      {{{}, {}, {}}, 5, 5, 9},                                        // rank 0: one element
      {{{4, 4}, {2, 2}, {0, 2}}, 1, 1, 1},                            // empty block
  };
  return w;
}

inline BlockCase make_block_case(Dist d, DType t, const DrawParams& q0, int stream, const BlockWhere& w) {
  BlockCase c;
  c.block = w.block;
  const BlockLayout L = BlockLayout::make(c.block);
  DrawParams q = q0;
  if (dist_kind(d) == Kind::permutation) q.n = L.global_count;
  GoldenCase& g = c.base;
  g.op = dist_kind(d) == Kind::transform ? "dropout" : "fill";
  g.dist = d;
  g.dtype = t;
  g.params = q;
  g.stream = stream;
  g.seed = w.seed;
  g.subseq = w.subseq;
  g.start = 0;
  g.count = L.count;
  const Plan p = g.plan();
  g.offset = w.offset != kNearEnd ? w.offset : 0ull - block_words(p, L);
  if (g.op == "dropout") {
    L.for_each_piece(0, L.count, [&](uint64_t, uint64_t gi, uint64_t m) {
      for (uint64_t i = 0; i < m; ++i) g.in.push_back(transform_input(t, gi + i));
    });
  }
  return c;
}

}  // namespace internal

// Every request of the block file, without outputs: for stream 1 then stream
// 2, every (distribution, dtype) of the registry in that stream, with the
// distribution's first sample parameters, at every block_places().
inline std::vector<BlockCase> block_requests() {
  std::vector<BlockCase> cs;
  for (int stream = kOldestStreamVersion; stream <= kStreamVersion; ++stream)
    for (const DistInfo& d : kDists)
      for (DType t : dist_dtypes(d.id, stream))
        for (const internal::BlockWhere& w : internal::block_places())
          cs.push_back(internal::make_block_case(d.id, t, sample_params(d.id).front(), stream, w));
  return cs;
}

// A case as a line: the golden line with the block's tokens after count=
// (with its out= when with_out, else without in= and out=).
inline std::string format_block(const BlockCase& c, bool with_out = true) {
  GoldenCase g = c.base;
  if (!with_out) {
    g.in.clear();
    g.out.clear();
  }
  std::string s = format_golden(g);
  const std::string tokens = detail::block_tokens(c.block);
  const size_t at = s.find(" count=");
  const size_t end = s.find(' ', at + 1);
  s.insert(end == std::string::npos ? s.size() : end, tokens);
  if (!with_out) s = s.substr(0, s.find(" in=") != std::string::npos ? s.find(" in=") : s.find(" out="));
  return s;
}

// Parses one line: the block tokens, then the rest as a golden line.
inline BlockCase parse_block(const std::string& text, int line) {
  std::istringstream is(text);
  std::string tok, rest;
  BlockCase c;
  bool seen[3] = {};
  while (is >> tok) {
    const size_t eq = tok.find('=');
    const std::string k = tok.substr(0, eq == std::string::npos ? tok.size() : eq);
    std::vector<uint64_t>* dst = k == "shape" ? &c.block.shape
                                 : k == "block_start" ? &c.block.start
                                 : k == "block_size"  ? &c.block.size
                                                      : nullptr;
    if (dst == nullptr) {
      rest += (rest.empty() ? "" : " ") + tok;
      continue;
    }
    seen[k == "shape" ? 0 : k == "block_start" ? 1 : 2] = true;
    const std::string v = tok.substr(eq + 1);
    for (size_t p = 0; p < v.size();) {
      const size_t q = std::min(v.find(',', p), v.size());
      dst->push_back(internal::parse_u64(v.substr(p, q - p), 10, k, line));
      p = q + 1;
    }
  }
  if (!seen[0] || !seen[1] || !seen[2]) internal::fail(line, "a block line needs shape=, block_start= and block_size=");
  c.base = parse_golden(rest, line);
  const BlockLayout L = BlockLayout::make(c.block);
  if (c.base.start != 0 || c.base.count != L.count)
    internal::fail(line, "start must be 0 and count the block's element count " + std::to_string(L.count));
  return c;
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("golden: cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::vector<BlockCase> parse_block_text(const std::string& text) {
  return parse_lines<BlockCase>(text, parse_block);
}
inline std::vector<BlockCase> read_block_golden(const std::string& path) { return parse_block_text(read_text(path)); }

#if defined(XRNG_TEST_DATA_DIR)
inline std::string block_golden_path() { return std::string(XRNG_TEST_DATA_DIR) + "/golden_blocks.txt"; }
#endif

// The full text of tests/data/golden_blocks.txt.
inline std::string block_golden_text() {
  std::string s =
      "# xrng golden block draws: blocks of N-d global tensors, streams v1 and v2. Generated by\n"
      "# tools/make_golden.cpp --blocks from the scalar reference (the slice of the full draw); do not\n"
      "# edit by hand. Regenerate (after stream v2's values change; v1's lines never change):\n"
      "#   cmake --build build --target golden_blocks\n"
      "#\n"
      "# Each line is a golden line (golden/format.h; see golden_v1.txt's header) with three more tokens\n"
      "# after count=: shape=<global shape> block_start=<start per dimension> block_size=<size per\n"
      "# dimension> (comma-separated; empty for a 0-d tensor). start is 0, count the block's element count;\n"
      "# out[j] is block element j (row-major over block_size) of the draw over the whole global tensor\n"
      "# (global index row-major over shape; SPEC.md, \"Blocks of a global tensor\"); dropout's in[j] is\n"
      "# the input at that element. Reader and writer: golden/blocks.h.\n";
  for (BlockCase c : block_requests()) {
    c.base.out = block_case_from_full(c);
    s += format_block(c);
    s += '\n';
  }
  return s;
}

}  // namespace xrng::golden
