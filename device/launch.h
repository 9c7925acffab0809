// CUDA-free host logic of the CUDA backend: the work layout of each kind of
// registry row, launch sizing, and the request checks that are the backend's
// own. Kept apart from the kernels so that the CPU-only test
// (tests/gpu/test_cuda_host.cpp) checks it on machines without a GPU, and so
// that every check runs before any CUDA call.
//
// Work layout (the reason values never depend on the launch): a draw is cut
// into chunks by absolute element index, never by thread index.
//   element rows:     chunk c holds groups c*C .. c*C + C - 1 (C = W / K), i.e.
//                     exactly the stream words offset + W*c .. + W - 1, where
//                     W = chunk_words(K) is a multiple of 4 (all chunks start
//                     at the same lane of a Philox block) and of K;
//   transform rows:   the same with one element per group (G = 1);
//   permutation rows: chunk i holds elements i*E .. i*E + E - 1 of the
//                     request (E = perm_chunk_elems(op)).
// A thread evaluates whole chunks through the row's element function
// (rng/detail/rows.h) and writes the elements that fall in [start, start +
// count). Threads take chunks in a grid-stride loop, so grid size, block size
// and SM count only change who computes a chunk, never what it holds.
//
// Validation: what a request may be is decided by the core (make_plan,
// check_counters in rng/plan.h) with the host API's messages; this file adds
// only what is particular to launching: which entry point takes which kind
// of row, non-null buffers, and the launch configuration.
#pragma once

#include <cstdint>
#include <string>

#include "../rng/detail/rows.h"
#include "xrng_cuda_host.h"

namespace xrng::cuda::detail {

// ---- work layout ------------------------------------------------------------------------
// Stream words per chunk of a row of K words per group: the least common
// multiple of 16 and K. 16 words are four Philox blocks, so an unaligned
// offset (a fifth block) costs at most 1/4 more Philox work.
XRNG_HD constexpr uint32_t chunk_words(uint32_t k) {
  uint32_t w = 16;
  while (w % k != 0) w += 16;
  return w;
}

// Element and transform rows: words, groups and elements of one chunk.
template <class R>
struct ChunkShape {
  static_assert(R::kind == Kind::element || R::kind == Kind::transform, "permutations are not chunked by words");
  static constexpr uint32_t kWords = chunk_words(R::kWords);
  static constexpr uint32_t kGroups = kWords / R::kWords;
  static constexpr uint32_t kElems = kGroups * R::kGroup;
};

// The permutation operations of one kernel template (chunk.h, perm_chunk).
enum class PermOp : uint8_t { at, position, shard };
// Elements of the request per chunk. A shard chunk starts with one exact
// modular reduction (a 64-step loop, perm_shard_range) and then steps by
// world mod n, so it takes several elements; at / position cost the same
// for every element, and one element per thread keeps the stores coalesced.
XRNG_HD constexpr uint32_t perm_chunk_elems(PermOp op) { return op == PermOp::shard ? 8u : 1u; }

// The chunks a request of elements [start, start + count) touches (count >= 1).
struct ChunkRange {
  uint64_t first = 0;
  uint64_t count = 0;
};
// Element / transform rows: chunks by absolute element index.
template <class R>
inline ChunkRange chunk_range(uint64_t start, uint64_t count) {
  constexpr uint64_t per = ChunkShape<R>::kElems;
  const uint64_t last = start + (count - 1);  // no overflow: validated draws end at or below element 2^64
  ChunkRange r;
  r.first = start / per;
  r.count = last / per - r.first + 1;
  return r;
}
// Permutation requests: chunks by index into the request, from 0.
inline ChunkRange perm_chunk_range(PermOp op, uint64_t count) {
  const uint64_t per = perm_chunk_elems(op);
  return ChunkRange{0, count / per + (count % per != 0 ? 1u : 0u)};
}

// ---- launch sizing -------------------------------------------------------------------------
constexpr int kDefaultBlock = 256;
constexpr int kMaxBlock = 1024;
constexpr int kBlocksPerSm = 16;  // automatic grids stop growing here; the grid-stride loop does the rest

struct Dims {
  unsigned grid = 1;
  unsigned block = 1;
};

inline void check_config(const LaunchConfig& cfg) {
  if (cfg.grid < 0 || cfg.block < 0 || cfg.block > kMaxBlock)
    throw Error("LaunchConfig: needs grid >= 0 and 0 <= block <= " + std::to_string(kMaxBlock) + " (got grid " +
                std::to_string(cfg.grid) + ", block " + std::to_string(cfg.block) + ")");
}

// Grid and block for `items` work items (chunks, items >= 1). Automatic:
// blocks of 256, as many blocks as the items need, at most kBlocksPerSm per
// multiprocessor. sm_count is only read when cfg.grid == 0.
inline Dims launch_dims(uint64_t items, const LaunchConfig& cfg, int sm_count) {
  check_config(cfg);
  Dims d;
  d.block = static_cast<unsigned>(cfg.block > 0 ? cfg.block : kDefaultBlock);
  if (cfg.grid > 0) {
    d.grid = static_cast<unsigned>(cfg.grid);
    return d;
  }
  const uint64_t need = (items + d.block - 1) / d.block;
  const uint64_t cap = static_cast<uint64_t>(sm_count > 0 ? sm_count : 1) * kBlocksPerSm;
  uint64_t g = need < cap ? need : cap;
  if (g < 1) g = 1;
  d.grid = static_cast<unsigned>(g);
  return d;
}

// ---- request checks (before any CUDA call) ----------------------------------------------------
inline void require_buffer(const void* p, uint64_t count, const char* what) {
  if (count != 0 && p == nullptr) throw Error(std::string("cuda ") + what + ": null buffer");
}

// The kind of the plan's registry row, which picks the kernel. A plan that
// names no row can only be hand-made (make_plan never builds one): the
// kernels are instantiated per row, so there is nothing to run.
struct RowKind {
  Kind* kind;
  template <class R>
  XRNG_HD void operator()() const {
    *kind = R::kind;
  }
};
inline Kind row_kind(const Plan& p) {
  Kind k = Kind::element;
  if (!visit_row(p, RowKind{&k}))
    throw Error(std::string("no registry row for ") + dist_name(p.dist) + "/" + dtype_name(p.dtype) +
                " in stream v" + std::to_string(p.version) + " (build plans with xrng::make_plan)");
  return k;
}

// fill: element and permutation rows.
inline void check_fill(const Plan& p, uint64_t offset, uint64_t start, uint64_t count, const void* out,
                       const LaunchConfig& cfg) {
  if (row_kind(p) == Kind::transform)
    throw Error(std::string(dist_name(p.dist)) + " transforms an input: use xrng::cuda::transform (xrng::cuda::dropout)");
  check_counters(p, offset, start, count);
  require_buffer(out, count, "fill");
  check_config(cfg);
}

// transform: transform rows (dropout).
inline void check_transform(const Plan& p, uint64_t offset, uint64_t start, uint64_t count, const void* in,
                            const void* out, const LaunchConfig& cfg) {
  if (row_kind(p) != Kind::transform)
    throw Error(std::string("transform: ") + dist_name(p.dist) + " draws no input transform (use xrng::cuda::fill)");
  check_counters(p, offset, start, count);
  require_buffer(in, count, "transform input");
  require_buffer(out, count, "transform output");
  check_config(cfg);
}

// perm_shard / perm_inverse: permutation rows.
inline void check_perm(const Plan& p, const char* op) {
  if (row_kind(p) != Kind::permutation) throw Error(std::string(op) + ": the plan must be a permutation");
}
// rank and world are the only arguments of a shard the core does not check
// (the host API checks them the same way).
inline void check_shard(const Plan& p, uint64_t offset, uint64_t rank, uint64_t world, uint64_t count,
                        const void* out, const LaunchConfig& cfg) {
  check_perm(p, "perm_shard");
  if (world == 0 || rank >= world)
    throw Error("perm_shard: need 0 <= rank < world (got rank " + std::to_string(rank) + ", world " +
                std::to_string(world) + ")");
  check_counters(p, offset, 0, 0);
  require_buffer(out, count, "perm_shard");
  check_config(cfg);
}
inline void check_inverse(const Plan& p, uint64_t offset, uint64_t start, uint64_t count, const void* out,
                          const LaunchConfig& cfg) {
  check_perm(p, "perm_inverse");
  check_counters(p, offset, start, count);
  require_buffer(out, count, "perm_inverse");
  check_config(cfg);
}

}  // namespace xrng::cuda::detail
