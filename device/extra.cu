// CUDA dropout and permutation shards / inverses, through the core's element
// functions (dist::dropout_*, perm_at, perm_inverse, perm_shard_position).
#include "detail.cuh"
#include "xrng_cuda.h"

namespace xrng::cuda {
namespace {

template <DType T>
using DropoutV = typename detail::DropoutOp<T>::V;

// Grid-stride loops over chunks; the chunk bodies are in chunk.h.
template <DType T>
__global__ void __launch_bounds__(detail::kMaxBlock)
    dropout_kernel(const BernoulliParams p, const Stream s, const uint64_t offset, const uint64_t start,
                   const uint64_t count, const uint64_t c_first, const uint64_t n_chunks, const DropoutV<T>* in,
                   DropoutV<T>* out, const bool vec) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_chunks; i += stride)
    detail::dropout_chunk<T>(p, s, offset, start, count, c_first + i, in, out, vec);
}

template <class O>
__global__ void __launch_bounds__(detail::kMaxBlock)
    perm_shard_kernel(const PermKey k, const uint64_t world, const uint64_t p0, const uint64_t count,
                      const uint64_t n_chunks, O* __restrict__ out) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_chunks; i += stride)
    detail::shard_chunk<O>(k, world, p0, count, i, out);
}

template <class O>
__global__ void __launch_bounds__(detail::kMaxBlock)
    perm_inverse_kernel(const PermKey k, const uint64_t start, const uint64_t count, O* __restrict__ out) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = static_cast<O>(perm_inverse(k, start + i));
}

template <DType T>
void launch_dropout(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, const void* in,
                    void* out, cudaStream_t stream, const LaunchConfig& cfg) {
  using V = DropoutV<T>;
  const detail::ChunkRange r = detail::dropout_chunks(start, count);
  const detail::Dims d = detail::dims_for(r.count, cfg);
  const bool vec = detail::chunks_aligned<V>(in, start) && detail::chunks_aligned<V>(out, start);
  dropout_kernel<T><<<d.grid, d.block, 0, stream>>>(p.bernoulli, s, offset, start, count, r.first, r.count,
                                                    static_cast<const V*>(in), static_cast<V*>(out), vec);
  detail::check(cudaGetLastError(), "dropout kernel launch");
}

template <class O>
void launch_shard(const PermKey& k, uint64_t world, uint64_t p0, uint64_t count, void* out, cudaStream_t stream,
                  const LaunchConfig& cfg) {
  const uint64_t chunks = (count + detail::kShardChunk - 1) / detail::kShardChunk;
  const detail::Dims d = detail::dims_for(chunks, cfg);
  perm_shard_kernel<O><<<d.grid, d.block, 0, stream>>>(k, world, p0, count, chunks, static_cast<O*>(out));
  detail::check(cudaGetLastError(), "perm_shard kernel launch");
}

template <class O>
void launch_inverse(const PermKey& k, uint64_t start, uint64_t count, void* out, cudaStream_t stream,
                    const LaunchConfig& cfg) {
  const detail::Dims d = detail::dims_for(count, cfg);
  perm_inverse_kernel<O><<<d.grid, d.block, 0, stream>>>(k, start, count, static_cast<O*>(out));
  detail::check(cudaGetLastError(), "perm_inverse kernel launch");
}

}  // namespace

void dropout(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* dev_in,
             void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::validate_dropout(plan, offset, start, count, dev_in, dev_out, cfg);
  if (count == 0) return;
  const Stream s = key.stream();
  switch (plan.dtype) {
    case DType::f32:
      return launch_dropout<DType::f32>(plan, s, offset, start, count, dev_in, dev_out, stream, cfg);
    case DType::f64:
      return launch_dropout<DType::f64>(plan, s, offset, start, count, dev_in, dev_out, stream, cfg);
    case DType::f16:
      return launch_dropout<DType::f16>(plan, s, offset, start, count, dev_in, dev_out, stream, cfg);
    case DType::bf16:
      return launch_dropout<DType::bf16>(plan, s, offset, start, count, dev_in, dev_out, stream, cfg);
    default:
      throw Error("dropout: unsupported dtype");
  }
}

void perm_shard(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world, uint64_t start,
                uint64_t count, void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::validate_perm_shard(plan, offset, rank, world, count, dev_out, cfg);
  if (count == 0) return;
  const PermKey k = perm_key(key.stream(), offset, plan.n);
  const uint64_t p0 = perm_shard_position(k.n, rank, world, start);
  switch (plan.dtype) {
    case DType::i64:
      return launch_shard<int64_t>(k, world, p0, count, dev_out, stream, cfg);
    case DType::u64:
      return launch_shard<uint64_t>(k, world, p0, count, dev_out, stream, cfg);
    case DType::i32:
      return launch_shard<int32_t>(k, world, p0, count, dev_out, stream, cfg);
    case DType::u32:
      return launch_shard<uint32_t>(k, world, p0, count, dev_out, stream, cfg);
    default:
      throw Error("perm: unsupported dtype");
  }
}

void perm_inverse(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
                  cudaStream_t stream, LaunchConfig cfg) {
  detail::validate_perm_inverse(plan, offset, start, count, dev_out, cfg);
  if (count == 0) return;
  const PermKey k = perm_key(key.stream(), offset, plan.n);
  switch (plan.dtype) {
    case DType::i64:
      return launch_inverse<int64_t>(k, start, count, dev_out, stream, cfg);
    case DType::u64:
      return launch_inverse<uint64_t>(k, start, count, dev_out, stream, cfg);
    case DType::i32:
      return launch_inverse<int32_t>(k, start, count, dev_out, stream, cfg);
    case DType::u32:
      return launch_inverse<uint32_t>(k, start, count, dev_out, stream, cfg);
    default:
      throw Error("perm: unsupported dtype");
  }
}

}  // namespace xrng::cuda
