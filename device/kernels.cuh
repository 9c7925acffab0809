// The three kernel templates of the CUDA backend, one per kind of registry
// row (registry.h, Kind), and their launches. The .cu files instantiate them
// through visit_row, so every row of XRNG_ROWS gets its kernel without a CUDA
// edit: a kernel is a grid-stride loop over slots (element and transform rows,
// one 16-byte output vector per lane, launch.h) or chunks (permutations),
// the work is a body of chunk.h, and the values come from the row's element
// function.
#pragma once

#include <cassert>
#include <cstdio>

#include "chunk.h"
#include "detail.cuh"
#include "position.h"

// The device side of assert(), which <cassert> declares only without NDEBUG
// (torch declares it the same way for CUDA_KERNEL_ASSERT).
#if defined(NDEBUG)
extern "C" __host__ __device__ void __assert_fail(const char* assertion, const char* file, unsigned int line,
                                                  const char* function) noexcept;
#endif

namespace xrng::cuda::detail {

// Chunk index i of the permutation kernels' grid-stride loop: which thread
// takes which chunk is all that the launch configuration decides.
#define XRNG_GRID_STRIDE(i, n)                                                                       \
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);          \
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x)

// The warp-uniform grid-stride loop of the slot kernels: every lane of a
// warp runs every step (lanes past the last slot compute their blocks for
// the shuffle and store nothing), so the block exchange always has its
// partner. A block of any size works: its last warp may have fewer than 32
// lanes, and `last` is then its last lane.
struct WarpLanes {
  unsigned lane, mask;
  bool last;
  uint64_t first, stride;  // the warp's first slot index (relative) and the grid's step
};
__device__ __forceinline__ WarpLanes warp_lanes() {
  WarpLanes w;
  w.lane = threadIdx.x & 31u;
  const unsigned warp0 = threadIdx.x - w.lane;
  const unsigned lanes = blockDim.x - warp0 < 32u ? blockDim.x - warp0 : 32u;
  w.mask = lanes == 32u ? 0xffffffffu : (1u << lanes) - 1u;
  w.last = w.lane == lanes - 1u;
  w.first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + warp0;
  w.stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  return w;
}

// Steps 1 and 2 of a slot (chunk.h): own blocks, then the extra blocks, the
// first ones from the next lane by shuffle (the last lane computes its own).
template <class R>
__device__ __forceinline__ void slot_raw(const Layout& L, const Stream& s, uint64_t q, const WarpLanes& w,
                                         SlotRaw<R>& raw) {
  constexpr uint32_t B = TileShape<R>::kBlocks;
  own_blocks<R>(L, s, q, raw);
  if (L.blocks > B) {  // uniform across the grid
    const uint32_t x = extra_from_next<R>(L);
    uint32_t next[4 * B];
#pragma unroll
    for (uint32_t t = 0; t < 4 * B; ++t)
      if (t < 4 * x) next[t] = __shfl_down_sync(w.mask, raw[t], 1);
    extra_blocks<R>(L, s, q, next, !w.last, raw);
  }
}

// A launch given a position pointer (position.h; nullptr: none) draws at
// the key and offset the position holds when the kernel runs, which a CUDA
// graph replay reads afresh: every thread reads the 4 words and checks them
// (launch.h, place_at / perm_key_at). A position the launch cannot draw at
// is a device-side error, never a draw at the wrong words: the values are
// printed, then a device-side assertion fails (torch's CUDA_KERNEL_ASSERT
// mechanism: the launch fails with "device-side assert triggered", the
// message is reported, the context is lost).
inline __device__ __noinline__ void device_error(const char* msg) {
  __assert_fail(msg, __FILE__, __LINE__, "xrng");  // what device assert() calls (torch: CUDA_KERNEL_ASSERT)
  __trap();  // not reached
}
inline __device__ __noinline__ void position_error(PositionStatus st, const RunPosition& r, const Plan& p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    if (st == PositionStatus::stream)
      printf("xrng: the position holds stream version %lld, the draw was planned for stream %d\n",
             static_cast<long long>(r.stream), static_cast<int>(p.stream));
    else
      printf("xrng: the draw needs stream words beyond 2^64 (position offset %llu)\n",
             static_cast<unsigned long long>(r.offset));
  }
  device_error(st == PositionStatus::stream
                   ? "xrng: the position holds another stream version than the draw was planned for"
                   : "xrng: counter overflow: the draw needs stream words beyond 2^64");
}
template <class R>
__device__ __forceinline__ void place_or_fail(const int64_t* pos, const Plan& p, Stream& s, Layout& L) {
  RunPosition r;
  const PositionStatus st = place_at<R>(pos, p, s, L, r);
  if (st != PositionStatus::ok) position_error(st, r, p);
}

// Element rows: slots L.first .. L.first + L.count - 1.
template <class R>
__global__ void __launch_bounds__(kMaxBlock)
    fill_kernel(const Plan p, Stream s, Layout L, typename R::out_t* __restrict__ out, const int64_t* pos) {
  if (pos != nullptr) place_or_fail<R>(pos, p, s, L);
  const WarpLanes w = warp_lanes();
  for (uint64_t base = w.first; base < L.count; base += w.stride) {
    const uint64_t i = base + w.lane;
    SlotRaw<R> raw;
    slot_raw<R>(L, s, L.first + i, w, raw);
    if (i < L.count) fill_slot<R>(p, L, L.first + i, raw, out);
  }
}

// Transform rows. in may equal out (no __restrict__).
template <class R>
__global__ void __launch_bounds__(kMaxBlock)
    transform_kernel(const Plan p, Stream s, Layout L, const typename R::out_t* in, typename R::out_t* out,
                     const int64_t* pos) {
  if (pos != nullptr) place_or_fail<R>(pos, p, s, L);
  const WarpLanes w = warp_lanes();
  for (uint64_t base = w.first; base < L.count; base += w.stride) {
    const uint64_t i = base + w.lane;
    SlotRaw<R> raw;
    slot_raw<R>(L, s, L.first + i, w, raw);
    if (i < L.count) transform_slot<R>(p, L, L.first + i, raw, in, out);
  }
}

// Permutation rows: materialise (at), inverse (position) or shard.
template <class R, PermOp Op>
__global__ void __launch_bounds__(kMaxBlock)
    perm_kernel(const Plan p, PermKey k, const PermArgs a, const uint64_t n_chunks,
                typename R::out_t* __restrict__ out, const int64_t* pos) {
  if (pos != nullptr) {  // the round keys from the position's words (each thread derives them)
    RunPosition r;
    const PositionStatus st = perm_key_at(pos, p, k, r);
    if (st != PositionStatus::ok) position_error(st, r, p);
  }
  XRNG_GRID_STRIDE(i, n_chunks) perm_chunk<R, Op>(k, a, i, out);
}

#undef XRNG_GRID_STRIDE

// ---- launches (the request is validated, count >= 1, buffers are device memory) ----------
template <class R>
void launch_fill(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out,
                 cudaStream_t stream, const LaunchConfig& cfg, const int64_t* pos = nullptr) {
  const Layout L = make_layout<R>(offset, start, count, out, nullptr);
  const Dims d = dims_for(L.count, cfg);
  fill_kernel<R><<<d.grid, d.block, 0, stream>>>(p, s, L, static_cast<typename R::out_t*>(out), pos);
  check(cudaGetLastError(), "fill kernel launch");
}

template <class R>
void launch_transform(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
                      const void* in, void* out, cudaStream_t stream, const LaunchConfig& cfg,
                      const int64_t* pos = nullptr) {
  using V = typename R::out_t;
  const Layout L = make_layout<R>(offset, start, count, out, in);
  const Dims d = dims_for(L.count, cfg);
  transform_kernel<R><<<d.grid, d.block, 0, stream>>>(p, s, L, static_cast<const V*>(in), static_cast<V*>(out),
                                                      pos);
  check(cudaGetLastError(), "transform kernel launch");
}

template <class R, PermOp Op>
void launch_perm(const Plan& p, const PermKey& k, const PermArgs& a, void* out, cudaStream_t stream,
                 const LaunchConfig& cfg, const int64_t* pos = nullptr) {
  const ChunkRange r = perm_chunk_range(Op, a.count);
  const Dims d = dims_for(r.count, cfg);
  perm_kernel<R, Op><<<d.grid, d.block, 0, stream>>>(p, k, a, r.count, static_cast<typename R::out_t*>(out), pos);
  check(cudaGetLastError(), "permutation kernel launch");
}

}  // namespace xrng::cuda::detail
