// The three kernel templates of the CUDA backend, one per kind of registry
// row (registry.h, Kind), and their launches. The .cu files instantiate them
// through visit_row, so every row of XRNG_ROWS gets its kernel without a CUDA
// edit: a kernel is a grid-stride loop over chunks, the chunk's work is a
// body of chunk.h, and the values come from the row's element function.
#pragma once

#include "chunk.h"
#include "detail.cuh"

namespace xrng::cuda::detail {

// Chunk index i of the grid-stride loop: which thread takes which chunk is
// all that the launch configuration decides.
#define XRNG_GRID_STRIDE(i, n)                                                                       \
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);          \
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x)

// Element rows: chunks c_first .. c_first + n_chunks - 1 of the draw.
template <class R>
__global__ void __launch_bounds__(kMaxBlock)
    fill_kernel(const Plan p, const Stream s, const uint64_t offset, const uint64_t start, const uint64_t count,
                const uint64_t c_first, const uint64_t n_chunks, typename R::out_t* __restrict__ out,
                const bool vec) {
  XRNG_GRID_STRIDE(i, n_chunks) fill_chunk<R>(p, s, offset, start, count, c_first + i, out, vec);
}

// Transform rows. in may equal out (no __restrict__).
template <class R>
__global__ void __launch_bounds__(kMaxBlock)
    transform_kernel(const Plan p, const Stream s, const uint64_t offset, const uint64_t start, const uint64_t count,
                     const uint64_t c_first, const uint64_t n_chunks, const typename R::out_t* in,
                     typename R::out_t* out, const bool vec) {
  XRNG_GRID_STRIDE(i, n_chunks) transform_chunk<R>(p, s, offset, start, count, c_first + i, in, out, vec);
}

// Permutation rows: materialise (at), inverse (position) or shard.
template <class R, PermOp Op>
__global__ void __launch_bounds__(kMaxBlock)
    perm_kernel(const PermKey k, const PermArgs a, const uint64_t n_chunks, typename R::out_t* __restrict__ out) {
  XRNG_GRID_STRIDE(i, n_chunks) perm_chunk<R, Op>(k, a, i, out);
}

#undef XRNG_GRID_STRIDE

// ---- launches (the request is validated, count >= 1, buffers are device memory) ----------
template <class R>
void launch_fill(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out,
                 cudaStream_t stream, const LaunchConfig& cfg) {
  using O = typename R::out_t;
  const ChunkRange r = chunk_range<R>(start, count);
  const Dims d = dims_for(r.count, cfg);
  fill_kernel<R><<<d.grid, d.block, 0, stream>>>(p, s, offset, start, count, r.first, r.count, static_cast<O*>(out),
                                                 vector_chunks<R>(out, start));
  check(cudaGetLastError(), "fill kernel launch");
}

template <class R>
void launch_transform(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
                      const void* in, void* out, cudaStream_t stream, const LaunchConfig& cfg) {
  using V = typename R::out_t;
  const ChunkRange r = chunk_range<R>(start, count);
  const Dims d = dims_for(r.count, cfg);
  const bool vec = vector_chunks<R>(in, start) && vector_chunks<R>(out, start);
  transform_kernel<R><<<d.grid, d.block, 0, stream>>>(p, s, offset, start, count, r.first, r.count,
                                                      static_cast<const V*>(in), static_cast<V*>(out), vec);
  check(cudaGetLastError(), "transform kernel launch");
}

template <class R, PermOp Op>
void launch_perm(const PermKey& k, const PermArgs& a, void* out, cudaStream_t stream, const LaunchConfig& cfg) {
  const ChunkRange r = perm_chunk_range(Op, a.count);
  const Dims d = dims_for(r.count, cfg);
  perm_kernel<R, Op><<<d.grid, d.block, 0, stream>>>(k, a, r.count, static_cast<typename R::out_t*>(out));
  check(cudaGetLastError(), "permutation kernel launch");
}

}  // namespace xrng::cuda::detail
