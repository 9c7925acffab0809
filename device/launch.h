// CUDA-free host logic of the CUDA backend: the work layout of each kind of
// registry row, launch sizing, and the request checks that are the backend's
// own. Kept apart from the kernels so that the CPU-only test
// (tests/gpu/test_cuda_host.cpp) checks it on machines without a GPU, and so
// that every check runs before any CUDA call.
//
// Work layout (the reason values never depend on the launch): a draw is cut
// into chunks by absolute element index, never by thread index.
//   element and transform rows: slots of 16 bytes of output, one per lane
//                     (TileShape, Layout below);
//   permutation rows: chunk i holds elements i*E .. i*E + E - 1 of the
//                     request (E = perm_chunk_elems(op)); at / position: one
//                     element per lane, consecutive lanes consecutive elements.
// A thread evaluates its slots through the row's element function
// (rng/detail/rows.h) and writes the elements that fall in [start, start +
// count). Threads take slots in a grid-stride loop, so grid size, block size
// and SM count only change who computes a slot, never what it holds.
//
// Validation: what a request may be is decided by the core (make_plan,
// check_counters in rng/plan.h) with the host API's messages; this file adds
// only what is particular to launching: which entry point takes which kind
// of row, non-null buffers, and the launch configuration.
#pragma once

#include <cstdint>
#include <string>

#include "../rng/detail/rows.h"
#include "../rng/permutation.h"
#include "position.h"
#include "xrng_cuda_host.h"

namespace xrng::cuda::detail {

// ---- work layout ------------------------------------------------------------------------
// Element and transform rows are cut into tiles and slots:
//   tile q:  B whole Philox blocks, W = 4B words, C = W / K groups, E = C * G
//            elements (groups q*C .. q*C + C - 1). B is the fewest blocks
//            that make whole groups and, where the row allows it, a multiple
//            of 16 bytes of output (TileShape): bits u32, uniform f32,
//            normal f32 (G = K = 2), bits u64, uniform f64, normal f64
//            (K = 4): one block; f16 / bf16 and randint i32 / i64 (K = 2, 4):
//            two blocks; bernoulli u8: four blocks; each 16 bytes.
//   slot q:  the E elements of the 16-byte output vector number q. With the
//            buffer's (virtual) element 0 of the draw r elements past a
//            16-byte boundary (r = 0 for an aligned tensor drawn from element
//            0), slot q is elements q*E - r .. q*E - r + E - 1: the last r of
//            tile q - 1 and the first E - r of tile q. r = 0 when the row's
//            tile is not a multiple of 16 bytes (then stores are per element).
// Thread t of the grid-stride loop takes slot first + t (+ the grid's size
// per step): consecutive lanes of a warp own consecutive slots, so one
// 16-byte store per lane makes one contiguous 512-byte span per warp store
// instruction. A slot fully inside [start, start + count) is one vector
// store; the first and last slots of a request store element by element.
// A slot reads the words from offset + K * (its first group) on; when that
// word is not the first of a Philox block (a word offset not a multiple of
// 4, or a shift r of part of a group's words), the slot reads one block more
// than its own B: the first block of the next lane's slot, taken with a warp
// shuffle (the warp's last lane computes it). Values never depend on the
// launch: a slot's elements, words and stores are functions of q alone.
template <class R>
struct TileShape {
  static_assert(R::kind == Kind::element || R::kind == Kind::transform, "permutations are not tiled by words");
  using out_t = typename R::out_t;
  static constexpr uint32_t K = R::kWords;
  static constexpr uint32_t G = R::kGroup;
  static constexpr uint32_t kMaxTileBlocks = 16;
  static constexpr uint32_t pick_blocks() {
    uint32_t whole = 0;  // fewest blocks that are whole groups
    for (uint32_t b = 1; b <= kMaxTileBlocks * K; ++b) {
      if ((4 * b) % K != 0) continue;
      if (whole == 0) whole = b;
      if (b <= kMaxTileBlocks && ((4 * b) / K * G * sizeof(out_t)) % 16 == 0) return b;
    }
    return whole;
  }
  static constexpr uint32_t kBlocks = pick_blocks();
  static constexpr uint32_t kWords = 4 * kBlocks;
  static constexpr uint32_t kGroups = kWords / K;
  static constexpr uint32_t kElems = kGroups * G;
  static constexpr uint32_t kBytes = kElems * sizeof(out_t);
  static constexpr bool kVector = kBytes % 16 == 0;
  // Groups a slot evaluates at most: one more when it starts inside a group (G > 1).
  static constexpr uint32_t kSlotGroups = kGroups + (G > 1 ? 1 : 0);
  // Blocks a slot reads at most: a phase of up to 3 words, then its groups' words.
  static constexpr uint32_t kSlotBlocks = (3 + K * kSlotGroups + 3) / 4;
};

// Block indices are taken modulo 2^62 (words modulo 2^64): the slot before
// element 0 of a draw reads words "before word 0", which only elements that
// are never stored use.
constexpr uint64_t kBlockMask = (uint64_t{1} << 62) - 1;

// The uniform layout of one launch of an element or transform row: which
// slots, how they sit on the stream, and whether whole slots are vector
// stores (and, for transforms, loads). Computed on the host (make_layout),
// passed by value to the kernel; the CPU test runs the same chunk bodies.
struct Layout {
  uint64_t first = 0;   // first slot
  uint64_t count = 0;   // slots
  uint64_t start = 0;   // the request: elements [start, start + elems)
  uint64_t elems = 0;
  uint64_t block0 = 0;  // block of slot 0's first word, modulo 2^62
  uint32_t phase = 0;   // lane of that word in its block (the same for every slot)
  uint32_t shift = 0;   // r, in elements (0 .. E - 1)
  uint32_t skip = 0;    // elements of a slot's first group that precede the slot (0 .. G - 1)
  uint32_t blocks = 0;  // blocks a slot reads: its own B, or more
  bool vec = false;     // 16-byte stores of whole slots
  bool vec_in = false;  // transforms: 16-byte loads of whole slots
};

// r for a buffer whose element `start` is at p: how many elements past a
// 16-byte boundary element 0 of the draw would sit. False (and r = 0) when
// the row's tile is not 16 bytes or p is not aligned to its element size.
template <class R>
inline bool slot_shift(const void* p, uint64_t start, uint32_t* r) {
  using S = TileShape<R>;
  constexpr uint64_t es = sizeof(typename S::out_t);
  *r = 0;
  if constexpr (!S::kVector) {
    return false;
  } else {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (a % es != 0) return false;
    *r = static_cast<uint32_t>(((a - static_cast<uintptr_t>(start * es)) & 15u) / es);
    return true;
  }
}

// The fields of a layout that depend on the word offset (block0, phase,
// blocks); the others depend on the request and the buffers only. The host
// calls it from make_layout; a kernel given a position pointer
// (position.h) calls it with the offset it reads when it runs, on the
// layout the host made at any offset, so a captured launch replays at a
// new offset with the same grid.
template <class R>
XRNG_HD XRNG_INLINE void place_layout(Layout& L, uint64_t offset) {
  using S = TileShape<R>;
  const uint32_t sg = (L.shift + S::G - 1) / S::G;   // whole groups before tile q's first group
  const uint64_t w0 = offset - uint64_t{S::K} * sg;  // slot 0's first word, modulo 2^64
  L.block0 = (w0 >> 2) & kBlockMask;
  L.phase = static_cast<uint32_t>(w0 & 3u);
  L.blocks = (L.phase + S::K * (S::kGroups + (L.skip != 0 ? 1u : 0u)) + 3) / 4;
}

// What a launch given a position pointer (position.h) does when it runs,
// before its first slot: reads the position, checks it for the launch's
// plan (its stream version, the words of elements [0, L.start + L.elems)
// below 2^64; L.elems >= 1, and the host checked that these words alone
// fit in 2^64, so plan_words - 1 is exact modulo 2^64) and, when it can draw there, sets the stream and places the
// layout at the position's offset. The kernels (kernels.cuh) run it on the
// device; the CPU test runs it on a buffer.
template <class R>
XRNG_HD XRNG_INLINE PositionStatus place_at(const int64_t* pos, const Plan& p, Stream& s, Layout& L,
                                            RunPosition& r) {
  r = load_position(pos);
  const PositionStatus st = check_position(r, p.stream, plan_words(p, L.start + L.elems) - 1);
  if (st != PositionStatus::ok) return st;
  s = r.key.stream();
  place_layout<R>(L, r.offset);
  return st;
}
// The same for a permutation launch: its key from the position's words.
XRNG_HD XRNG_INLINE PositionStatus perm_key_at(const int64_t* pos, const Plan& p, PermKey& k, RunPosition& r) {
  r = load_position(pos);
  const PositionStatus st = check_position(r, p.stream, plan_words(p, p.n) - 1);
  if (st == PositionStatus::ok) k = perm_key(r.key.stream(), r.offset, p.n);
  return st;
}

// The layout of a request of elements [start, start + count) (count >= 1)
// at word `offset`, into out (and from in for transforms, else nullptr).
template <class R>
inline Layout make_layout(uint64_t offset, uint64_t start, uint64_t count, const void* out, const void* in) {
  using S = TileShape<R>;
  Layout L;
  uint32_t r = 0;
  L.vec = slot_shift<R>(out, start, &r);
  if (in != nullptr) {
    uint32_t r_in = 0;
    L.vec_in = slot_shift<R>(in, start, &r_in) && L.vec && r_in == r;
  }
  L.shift = r;
  L.start = start;
  L.elems = count;
  const uint64_t E = S::kElems;
  const uint64_t last = start + (count - 1);  // no overflow: validated draws end at or below element 2^64
  L.first = start / E + (start % E + r) / E;
  L.count = last / E + (last % E + r) / E - L.first + 1;
  const uint32_t sg = (r + S::G - 1) / S::G;  // whole groups before tile q's first group
  L.skip = sg * S::G - r;
  place_layout<R>(L, offset);
  return L;
}

// The permutation operations of one kernel template (chunk.h, perm_chunk).
enum class PermOp : uint8_t { at, position, shard };
// Elements of the request per chunk. A shard chunk starts with one exact
// modular reduction (a 64-step loop, perm_shard_range) and then steps by
// world mod n, so it takes several elements; at / position cost the same
// for every element, and one element per thread keeps the stores coalesced.
XRNG_HD constexpr uint32_t perm_chunk_elems(PermOp op) { return op == PermOp::shard ? 8u : 1u; }

// The chunks of a permutation request.
struct ChunkRange {
  uint64_t first = 0;
  uint64_t count = 0;
};
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
