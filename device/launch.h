// CUDA-free host logic of the CUDA backend: request validation and launch
// arithmetic. Kept apart from the kernels so that the CPU-only tests check it
// on machines without a GPU, and so that every check runs before any CUDA call.
//
// Work layout (the reason values never depend on the launch): a draw is cut
// into chunks by absolute group index. Chunk c of a fill holds groups
// c*C .. c*C + C - 1, C = kChunkWords / K, i.e. exactly the stream words
// offset + kChunkWords*c .. + kChunkWords - 1; a thread evaluates whole chunks
// through the core's Group<Dist, DType>::eval and writes the elements that
// fall in [start, start + count). Threads take chunks in a grid-stride loop,
// so grid size, block size and SM count only change who computes a chunk,
// never what it holds.
#pragma once

#include <cstdint>
#include <string>

#include "../rng/plan.h"

namespace xrng::cuda {

// 0 = automatic. Tests vary it to prove that no value depends on it.
struct LaunchConfig {
  int grid = 0;
  int block = 0;
};

namespace detail {

// Stream words per fill chunk: four Philox blocks. With an offset that is not
// a multiple of 4 a chunk needs a fifth block, so the overhead of unaligned
// offsets is at most 1/4 of the Philox work.
constexpr uint32_t kChunkWords = 16;
// Dropout: one word per element, so a chunk is 16 elements.
constexpr uint32_t kDropoutChunk = kChunkWords;
// perm_shard: positions per thread chunk (one exact modular reduction each,
// then steps of world mod n, as the host does).
constexpr uint32_t kShardChunk = 8;

constexpr int kDefaultBlock = 256;
constexpr int kMaxBlock = 1024;
constexpr int kBlocksPerSm = 16;  // automatic grids stop growing here; the grid-stride loop does the rest
constexpr int kMaxGrid = 0x7fffffff;

struct Dims {
  unsigned grid = 1;
  unsigned block = 1;
};

inline void check_config(const LaunchConfig& cfg) {
  if (cfg.grid < 0 || cfg.block < 0 || cfg.block > kMaxBlock)
    throw Error("LaunchConfig: needs grid >= 0 and 0 <= block <= " + std::to_string(kMaxBlock) + " (got grid " +
                std::to_string(cfg.grid) + ", block " + std::to_string(cfg.block) + ")");
}

// Grid and block for `items` work items (chunks or elements, items >= 1).
// Automatic: blocks of 256, as many blocks as the items need, at most
// kBlocksPerSm per multiprocessor. sm_count is only read when cfg.grid == 0.
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

// The chunks a fill of elements [start, start + count) touches (count >= 1):
// first chunk and number of chunks. Groups of G elements, C groups a chunk.
struct ChunkRange {
  uint64_t first = 0;
  uint64_t count = 0;
};
inline ChunkRange fill_chunks(const Plan& p, uint64_t start, uint64_t count) {
  const uint64_t per = static_cast<uint64_t>(kChunkWords / p.words) * p.group;  // elements per chunk
  const uint64_t last = start + (count - 1);  // no overflow: validated draws end at or below 2^64
  ChunkRange r;
  r.first = start / per;
  r.count = last / per - r.first + 1;
  return r;
}
inline ChunkRange dropout_chunks(uint64_t start, uint64_t count) {
  const uint64_t last = start + (count - 1);
  ChunkRange r;
  r.first = start / kDropoutChunk;
  r.count = last / kDropoutChunk - r.first + 1;
  return r;
}

inline void require_buffer(const void* p, uint64_t count, const char* what) {
  if (count != 0 && p == nullptr) throw Error(std::string("cuda ") + what + ": null buffer");
}

// ---- request validation: the host API's rules (host/fill.cpp), before any CUDA call ----
struct GroupProbe {
  template <Dist D, DType T>
  XRNG_HD void operator()() const {}
};
inline bool fill_supported(const Plan& p) {
  if (p.dist == Dist::perm) return dtype_supported(Dist::perm, p.dtype);
  // dispatch_group is the list of element functions; a hand-made plan outside it is refused.
  return dispatch_group(p, GroupProbe{});
}

inline void validate_fill(const Plan& p, uint64_t offset, uint64_t start, uint64_t count, const void* out,
                          const LaunchConfig& cfg) {
  if (p.dist == Dist::dropout) throw Error("dropout needs an input buffer: use xrng::cuda::dropout");
  if (!fill_supported(p))
    throw Error(std::string("cuda fill: no element function for ") + dist_name(p.dist) + "/" + dtype_name(p.dtype));
  if (p.dist != Dist::perm && (p.words == 0 || kChunkWords % p.words != 0 || p.group == 0))
    throw Error("cuda fill: malformed plan (words/group)");
  check_counters(p, offset, start, count);
  require_buffer(out, count, "fill");
  check_config(cfg);
}

inline void validate_dropout(const Plan& p, uint64_t offset, uint64_t start, uint64_t count, const void* in,
                             const void* out, const LaunchConfig& cfg) {
  if (p.dist != Dist::dropout) throw Error("dropout: the plan must be made with Dist::dropout");
  if (!dtype_supported(Dist::dropout, p.dtype))
    throw Error(std::string("dropout: unsupported dtype ") + dtype_name(p.dtype));
  Plan mask = p;
  mask.dist = Dist::bernoulli;
  mask.group = 1;
  mask.words = 1;
  check_counters(mask, offset, start, count);
  require_buffer(in, count, "dropout input");
  require_buffer(out, count, "dropout output");
  check_config(cfg);
}

inline void validate_perm_shard(const Plan& p, uint64_t offset, uint64_t rank, uint64_t world, uint64_t count,
                                const void* out, const LaunchConfig& cfg) {
  if (p.dist != Dist::perm) throw Error("perm_shard: the plan must be a permutation");
  if (!dtype_supported(Dist::perm, p.dtype)) throw Error(std::string("perm: unsupported dtype ") + dtype_name(p.dtype));
  if (world == 0 || rank >= world)
    throw Error("perm_shard: need 0 <= rank < world (got rank " + std::to_string(rank) + ", world " +
                std::to_string(world) + ")");
  check_counters(p, offset, 0, 0);
  require_buffer(out, count, "perm_shard");
  check_config(cfg);
}

inline void validate_perm_inverse(const Plan& p, uint64_t offset, uint64_t start, uint64_t count, const void* out,
                                  const LaunchConfig& cfg) {
  if (p.dist != Dist::perm) throw Error("perm_inverse: the plan must be a permutation");
  if (!dtype_supported(Dist::perm, p.dtype)) throw Error(std::string("perm: unsupported dtype ") + dtype_name(p.dtype));
  check_counters(p, offset, start, count);
  require_buffer(out, count, "perm_inverse");
  check_config(cfg);
}

}  // namespace detail
}  // namespace xrng::cuda
