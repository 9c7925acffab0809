// CUDA fill: every Plan of the core (bits, uniform, normal, bernoulli, randint
// in all their dtypes, and permutations), evaluated by the core's own element
// functions (Group<Dist, DType>::eval, perm_at) compiled for the device.
#include "detail.cuh"
#include "xrng_cuda.h"

namespace xrng::cuda {
namespace {

// A grid-stride loop over the chunks of the draw (see launch.h); the chunk's
// work is detail::fill_chunk (chunk.h), so the launch decides only which
// thread computes a chunk, never what it holds.
template <Dist D, DType T>
__global__ void __launch_bounds__(detail::kMaxBlock)
    fill_kernel(const Plan p, const Stream s, const uint64_t offset, const uint64_t start, const uint64_t count,
                const uint64_t c_first, const uint64_t n_chunks, typename Group<D, T>::out_t* __restrict__ out,
                const bool vec) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n_chunks; i += stride)
    detail::fill_chunk<D, T>(p, s, offset, start, count, c_first + i, out, vec);
}

// Elements [start, start + count) of a permutation: one element per item.
template <class O>
__global__ void __launch_bounds__(detail::kMaxBlock)
    perm_fill_kernel(const PermKey k, const uint64_t start, const uint64_t count, O* __restrict__ out) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = static_cast<O>(perm_at(k, start + i));
}

template <Dist D, DType T>
void launch_fill(const Plan& p, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out,
                 cudaStream_t stream, const LaunchConfig& cfg) {
  using O = typename Group<D, T>::out_t;
  const detail::ChunkRange r = detail::fill_chunks(p, start, count);
  const detail::Dims d = detail::dims_for(r.count, cfg);
  fill_kernel<D, T><<<d.grid, d.block, 0, stream>>>(p, s, offset, start, count, r.first, r.count, static_cast<O*>(out),
                                                    detail::chunks_aligned<O>(out, start));
  detail::check(cudaGetLastError(), "fill kernel launch");
}

template <class O>
void launch_perm(const PermKey& k, uint64_t start, uint64_t count, void* out, cudaStream_t stream,
                 const LaunchConfig& cfg) {
  const detail::Dims d = detail::dims_for(count, cfg);
  perm_fill_kernel<O><<<d.grid, d.block, 0, stream>>>(k, start, count, static_cast<O*>(out));
  detail::check(cudaGetLastError(), "perm kernel launch");
}

}  // namespace

void fill(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
          cudaStream_t stream, LaunchConfig cfg) {
  detail::validate_fill(plan, offset, start, count, dev_out, cfg);
  if (count == 0) return;
  const Stream s = key.stream();
  if (plan.dist == Dist::perm) {
    // The permutation's key (its round keys are stream words) is derived once, here.
    const PermKey k = perm_key(s, offset, plan.n);
    switch (plan.dtype) {
      case DType::i64:
        return launch_perm<int64_t>(k, start, count, dev_out, stream, cfg);
      case DType::u64:
        return launch_perm<uint64_t>(k, start, count, dev_out, stream, cfg);
      case DType::i32:
        return launch_perm<int32_t>(k, start, count, dev_out, stream, cfg);
      case DType::u32:
        return launch_perm<uint32_t>(k, start, count, dev_out, stream, cfg);
      default:
        throw Error("perm: unsupported dtype");
    }
  }
  const bool ok = dispatch_group(
      plan, [&]<Dist D, DType T>() { launch_fill<D, T>(plan, s, offset, start, count, dev_out, stream, cfg); });
  if (!ok)
    throw Error(std::string("cuda fill: no element function for ") + dist_name(plan.dist) + "/" +
                dtype_name(plan.dtype));
}

}  // namespace xrng::cuda
