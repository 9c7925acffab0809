// Host block draws (host/xrng.h, "blocks of a global tensor"): a block is a
// sequence of contiguous runs of global elements (rng/block.h), and each run
// is the host's range draw (xrng::fill / xrng::transform) at the run's global
// start index, on one thread. Nothing here computes a value: every element
// comes from the range draw of the backend asked for (scalar, AVX2, AVX-512),
// so a block equals those elements of the full draw by construction.
//
// Threads split the block's own elements [start, start + count) into equal
// parts (each a few runs, or part of one); values never depend on the split.
#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

#include "parallel.h"
#include "xrng.h"

namespace xrng {
namespace {

// Runs body(b, e) over a split of [0, count) on up to `threads` threads (0: all).
template <class Body>
void split(uint64_t count, int threads, Body body) {
  detail::parallel_ranges(count, threads, 1, body);
}

char* at(void* p, uint64_t i, DType t) { return static_cast<char*>(p) + i * static_cast<uint64_t>(dtype_size(t)); }
const char* at(const void* p, uint64_t i, DType t) {
  return static_cast<const char*>(p) + i * static_cast<uint64_t>(dtype_size(t));
}

void require_buffer(const void* p, uint64_t count, const char* what) {
  if (count != 0 && p == nullptr) throw Error(std::string(what) + ": null buffer");
}

// The checks of the range entry points that do not depend on the range, made
// once for the block (the per-run calls repeat them, cheaply).
void check_backend(const FillOptions& opt) {
  check_threads(opt.threads);
  if (opt.backend == Backend::simd && std::string(simd_isa()) == "none")
    throw Error("backend cpu-simd: this CPU has no AVX2+FMA (the scalar path is its only backend)");
}

}  // namespace

void fill_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                uint64_t count, void* out, const FillOptions& opt) {
  check_backend(opt);
  if (plan.kind == Kind::transform)
    throw Error(std::string(dist_name(plan.dist)) +
                " transforms an input: use xrng::transform_block (xrng::dropout_block)");
  const BlockLayout L = check_block(plan, offset, block, start, count);
  require_buffer(out, count, "fill_block");
  if (count == 0) return;
  FillOptions one = opt;
  one.threads = 1;
  split(count, opt.threads, [&](uint64_t b, uint64_t e) {
    L.for_each_piece(start + b, e - b, [&](uint64_t j, uint64_t g, uint64_t m) {
      fill(plan, key, offset, g, m, at(out, j - start, plan.dtype), one);
    });
  });
}

void fill_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, void* out,
                const FillOptions& opt) {
  const BlockLayout L = BlockLayout::make(block);
  fill_block(plan, key, offset, block, 0, L.count, out, opt);
}

void transform_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                     uint64_t count, const void* in, void* out, const FillOptions& opt) {
  check_backend(opt);
  if (plan.kind != Kind::transform)
    throw Error(std::string("transform_block: ") + dist_name(plan.dist) +
                " draws no input transform (use xrng::fill_block)");
  const BlockLayout L = check_block(plan, offset, block, start, count);
  require_buffer(in, count, "transform_block input");
  require_buffer(out, count, "transform_block output");
  if (count == 0) return;
  FillOptions one = opt;
  one.threads = 1;
  split(count, opt.threads, [&](uint64_t b, uint64_t e) {
    L.for_each_piece(start + b, e - b, [&](uint64_t j, uint64_t g, uint64_t m) {
      transform(plan, key, offset, g, m, at(in, j - start, plan.dtype), at(out, j - start, plan.dtype), one);
    });
  });
}

void transform_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, const void* in,
                     void* out, const FillOptions& opt) {
  const BlockLayout L = BlockLayout::make(block);
  transform_block(plan, key, offset, block, 0, L.count, in, out, opt);
}

void dropout_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, const void* in,
                   void* out, const FillOptions& opt) {
  if (plan.dist != Dist::dropout) throw Error("dropout_block: the plan must be made with Dist::dropout");
  transform_block(plan, key, offset, block, in, out, opt);
}

void Generator::draw_block(const Plan& plan, const TensorBlock& block, void* out, const FillOptions& opt) {
  // Validate the block and the global draw's counters at the current offset,
  // then reserve the GLOBAL tensor's words atomically (as draw() reserves
  // its own), so concurrent draws from this generator get disjoint ranges.
  const BlockLayout layout = BlockLayout::make(block);
  Range r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (plan.stream != stream_)
      throw Error("Generator.draw_block: the plan is of stream v" + std::to_string(plan.stream) +
                  ", the generator draws stream v" + std::to_string(stream_) +
                  " (build the plan with gen.plan(...) or make_plan(..., gen.stream()))");
    const BlockLayout L = check_block(plan, offset_, block, 0, layout.count);
    const uint64_t used = block_words(plan, L);
    if (used > ~offset_) throw Error("generator exhausted: the draw would wrap the 64-bit word offset");
    r = Range{key_, offset_, used};
    offset_ += used;
  }
  try {
    fill_block(plan, r.key, r.offset, block, 0, layout.count, out, opt);
  } catch (...) {
    release(r);  // fill_block checks before writing: nothing was written
    throw;
  }
}

}  // namespace xrng
