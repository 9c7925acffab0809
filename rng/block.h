// Draws over a rectangular block of an N-d global tensor: the elements a
// shard of a sharded tensor holds, computed at their global indices, so that
// the shards of any sharding put together equal the unsharded draw bit for
// bit (SPEC.md, "Blocks of a global tensor").
//
// A TensorBlock names a global shape and, per dimension, a start and a size
// into it. The global element index of a position (i_0, ..., i_{N-1}) of the
// global tensor is row-major over the global shape:
//   g = sum_d i_d * stride_d,  stride_d = shape_{d+1} * ... * shape_{N-1}
// and element g of a draw is element g of the unsharded draw of
// prod(shape) elements (the same words, the same element function). The
// block's own elements are numbered row-major over its sizes (element 0 is
// the block's first corner); a backend writes block element j to out[j].
//
// A block is a sequence of contiguous runs of global elements: the innermost
// dimensions that the block covers whole merge with the first dimension it
// does not, so a run is size_k * shape_{k+1} * ... * shape_{N-1} elements
// and there are size_0 * ... * size_{k-1} runs. Every backend evaluates a
// block as range draws over its runs (host/xrng.h fill, device/xrng_cuda.h
// fill): no new arithmetic, the values of the range draw at a start index.
//
// Validation is the core's, once for every backend (BlockLayout::make,
// check_block): one-line xrng::Error messages, raised before anything is
// written. The counters are checked for the whole global draw, so a block is
// refused exactly when the unsharded draw would be, on every rank alike.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "plan.h"

namespace xrng {

// A rectangular block of a global tensor (see above). shape, start and size
// have one entry per dimension (rank 0, all empty: a 0-d tensor of one
// element, the block being that element). Needs, per dimension d,
// start[d] + size[d] <= shape[d].
struct TensorBlock {
  std::vector<uint64_t> shape;  // the global tensor's shape
  std::vector<uint64_t> start;  // the block's first index per dimension
  std::vector<uint64_t> size;   // the block's extent per dimension

  // The whole tensor as one block (start 0, size = shape).
  static TensorBlock whole(std::vector<uint64_t> shape) {
    TensorBlock b;
    b.start.assign(shape.size(), 0);
    b.size = shape;
    b.shape = std::move(shape);
    return b;
  }
};

namespace detail {
inline std::string dims_text(const std::vector<uint64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
// " shape=4,6 block_start=1,2 block_size=2,3": the tokens of a block in the
// golden files' and the CLI's text (golden/blocks.h, tools/xrng_cli.cpp).
inline std::string block_tokens(const TensorBlock& b) {
  auto list = [](const std::vector<uint64_t>& v) {
    std::string t;
    for (size_t i = 0; i < v.size(); ++i) t += (i ? "," : "") + std::to_string(v[i]);
    return t;
  };
  return " shape=" + list(b.shape) + " block_start=" + list(b.start) + " block_size=" + list(b.size);
}
}  // namespace detail

// A validated block, as the backends walk it: `runs` runs of `run` elements,
// run r holding block elements [r * run, (r + 1) * run) at global elements
// [run_start(r), run_start(r) + run).
struct BlockLayout {
  uint64_t global_count = 0;  // elements of the global tensor: prod(shape)
  uint64_t count = 0;         // elements of the block: prod(size)
  uint64_t run = 0;           // elements per run (0 when count is 0)
  uint64_t runs = 0;          // count / run
  uint64_t base = 0;          // global index of the block's first element
  // The outer dimensions (those before the run's), innermost last: run r's
  // multi-index over outer_size, times outer_stride, plus base, is its start.
  std::vector<uint64_t> outer_size, outer_stride;

  // Checks the block's description (ranks, bounds, a global element count
  // that fits 64 bits) and lays it out. Throws xrng::Error.
  static BlockLayout make(const TensorBlock& b) {
    const size_t n = b.shape.size();
    if (b.start.size() != n || b.size.size() != n)
      throw Error("block: shape, start and size need one entry per dimension (got " + std::to_string(n) + ", " +
                  std::to_string(b.start.size()) + " and " + std::to_string(b.size.size()) + ")");
    BlockLayout L;
    // prod(shape), 0 if any dimension is 0 (then nothing can overflow)
    bool zero = false;
    for (uint64_t e : b.shape) zero = zero || e == 0;
    uint64_t g = 1;
    for (size_t d = 0; d < n && !zero; ++d) {
      if (b.shape[d] > UINT64_MAX / g)
        throw Error("block: the global shape " + detail::dims_text(b.shape) + " has 2^64 elements or more");
      g *= b.shape[d];
    }
    L.global_count = zero ? 0 : g;
    for (size_t d = 0; d < n; ++d)
      if (b.start[d] > b.shape[d] || b.size[d] > b.shape[d] - b.start[d])
        throw Error("block: dimension " + std::to_string(d) + ": start " + std::to_string(b.start[d]) + " + size " +
                    std::to_string(b.size[d]) + " exceeds the global extent " + std::to_string(b.shape[d]) +
                    " (shape " + detail::dims_text(b.shape) + ")");
    uint64_t c = 1;
    for (uint64_t e : b.size) c *= e;  // <= global_count: no overflow
    L.count = c;
    if (c == 0) return L;
    // k: the innermost dimension the block does not cover whole (0 if it covers all)
    size_t k = n;
    while (k > 0 && b.start[k - 1] == 0 && b.size[k - 1] == b.shape[k - 1]) --k;
    k = k == 0 ? 0 : k - 1;
    uint64_t stride = 1;  // of dimension d, walking inwards-out
    std::vector<uint64_t> strides(n);
    for (size_t d = n; d-- > 0;) {
      strides[d] = stride;
      stride *= b.shape[d];  // products of a suffix of shape: <= global_count
    }
    L.run = n == 0 ? 1 : b.size[k] * strides[k];
    L.runs = c / L.run;
    for (size_t d = 0; d < n; ++d) L.base += b.start[d] * strides[d];
    for (size_t d = 0; d < k; ++d) {
      L.outer_size.push_back(b.size[d]);
      L.outer_stride.push_back(strides[d]);
    }
    return L;
  }

  // Global index of the first element of run r (r < runs).
  uint64_t run_start(uint64_t r) const {
    uint64_t g = base;
    for (size_t d = outer_size.size(); d-- > 0;) {
      g += (r % outer_size[d]) * outer_stride[d];
      r /= outer_size[d];
    }
    return g;
  }

  // Calls f(j, g, m) for each contiguous piece of block elements [start,
  // start + n): block elements [j, j + m) are global elements [g, g + m).
  // Needs start + n <= count. Pieces come in order, one per run touched.
  template <class F>
  void for_each_piece(uint64_t start, uint64_t n, F&& f) const {
    if (n == 0) return;
    uint64_t r = start / run, j = start;
    const uint64_t end = start + n;
    while (j < end) {
      const uint64_t in_run = j - r * run;
      const uint64_t m = std::min(run - in_run, end - j);
      f(j, run_start(r) + in_run, m);
      j += m;
      ++r;
    }
  }
};

// Validates a block draw of `plan` at word `offset`: the block (BlockLayout::
// make), block elements [start, start + count) within it, the plan's kind (a
// permutation's global tensor holds exactly its n elements) and the counters
// of the whole global draw (check_counters over prod(shape) elements).
// Returns the layout; plan_words(plan, L.global_count) (a permutation:
// plan.words) is what a stateful generator advances by.
inline BlockLayout check_block(const Plan& plan, uint64_t offset, const TensorBlock& b, uint64_t start,
                               uint64_t count) {
  BlockLayout L = BlockLayout::make(b);
  if (start > L.count || count > L.count - start)
    throw Error("block: elements [" + std::to_string(start) + ", " + std::to_string(start) + "+" +
                std::to_string(count) + ") exceed the block's " + std::to_string(L.count) + " elements");
  if (plan.kind == Kind::permutation) {
    if (L.global_count != plan.n)
      throw Error("perm: the global shape " + detail::dims_text(b.shape) + " has " + std::to_string(L.global_count) +
                  " elements, the permutation n = " + std::to_string(plan.n));
    check_counters(plan, offset, 0, 0);
  } else {
    check_counters(plan, offset, 0, L.global_count);
  }
  return L;
}

// Words a stateful generator advances by for a block draw: those of the
// whole global tensor (every rank of a sharded draw advances alike).
inline uint64_t block_words(const Plan& plan, const BlockLayout& L) {
  return plan.kind == Kind::permutation ? plan.words : plan_words(plan, L.global_count);
}

}  // namespace xrng
