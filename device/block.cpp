// Block draws of a global tensor on the GPU (xrng_cuda.h fill_block,
// transform_block; rng/block.h): one launch of the range kernel per
// contiguous run of the block, at the run's global start index, into the
// run's place in the output. Every value is computed by the kernels of
// fill / transform; nothing here computes. Host code only (no kernels).
#include <limits>

#include "detail.cuh"
#include "direct.h"
#include "xrng_cuda.h"

namespace xrng::cuda {
using detail::DeviceBuffer;
using detail::bytes_of;
namespace {

char* at(void* p, uint64_t i, DType t) { return static_cast<char*>(p) + i * static_cast<uint64_t>(dtype_size(t)); }
const char* at(const void* p, uint64_t i, DType t) {
  return static_cast<const char*>(p) + i * static_cast<uint64_t>(dtype_size(t));
}

// The request checks of fill_block (before any CUDA call).
BlockLayout check_fill_block(const Plan& plan, uint64_t offset, const TensorBlock& block, uint64_t start,
                             uint64_t count, const void* out, const LaunchConfig& cfg) {
  if (detail::row_kind(plan) == Kind::transform)
    throw Error(std::string(dist_name(plan.dist)) +
                " transforms an input: use xrng::cuda::transform_block");
  const BlockLayout L = check_block(plan, offset, block, start, count);
  detail::require_buffer(out, count, "fill_block");
  detail::check_config(cfg);
  return L;
}
BlockLayout check_transform_block(const Plan& plan, uint64_t offset, const TensorBlock& block, uint64_t start,
                                  uint64_t count, const void* in, const void* out, const LaunchConfig& cfg) {
  if (detail::row_kind(plan) != Kind::transform)
    throw Error(std::string("transform_block: ") + dist_name(plan.dist) +
                " draws no input transform (use xrng::cuda::fill_block)");
  const BlockLayout L = check_block(plan, offset, block, start, count);
  detail::require_buffer(in, count, "transform_block input");
  detail::require_buffer(out, count, "transform_block output");
  detail::check_config(cfg);
  return L;
}


}  // namespace

void fill_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                uint64_t count, void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  const BlockLayout L = check_fill_block(plan, offset, block, start, count, dev_out, cfg);
  if (count == 0) return;
  detail::require_device_memory(dev_out, "fill_block output");
  L.for_each_piece(start, count, [&](uint64_t j, uint64_t g, uint64_t m) {
    detail::fill_device(plan, key, offset, g, m, at(dev_out, j - start, plan.dtype), stream, cfg);
  });
}

void transform_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                     uint64_t count, const void* dev_in, void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  const BlockLayout L = check_transform_block(plan, offset, block, start, count, dev_in, dev_out, cfg);
  if (count == 0) return;
  detail::require_device_memory(dev_in, "transform_block input");
  detail::require_device_memory(dev_out, "transform_block output");
  L.for_each_piece(start, count, [&](uint64_t j, uint64_t g, uint64_t m) {
    detail::transform_device(plan, key, offset, g, m, at(dev_in, j - start, plan.dtype),
                             at(dev_out, j - start, plan.dtype), stream, cfg);
  });
}

void fill_block_to_host(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                        uint64_t count, void* host_out, LaunchConfig cfg) {
  check_fill_block(plan, offset, block, start, count, host_out, cfg);
  if (count == 0) return;
  const uint64_t bytes = bytes_of(plan, count);
  DeviceBuffer out(bytes);
  fill_block(plan, key, offset, block, start, count, out.get(), 0, cfg);
  detail::check(cudaMemcpy(host_out, out.get(), static_cast<size_t>(bytes), cudaMemcpyDeviceToHost),
                "cudaMemcpy device to host");
}

void fill_block_to_host(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, void* host_out,
                        LaunchConfig cfg) {
  fill_block_to_host(plan, key, offset, block, 0, BlockLayout::make(block).count, host_out, cfg);
}

void transform_block_to_host(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block,
                             const void* host_in, void* host_out, LaunchConfig cfg) {
  const uint64_t count = BlockLayout::make(block).count;
  check_transform_block(plan, offset, block, 0, count, host_in, host_out, cfg);
  if (count == 0) return;
  const uint64_t bytes = bytes_of(plan, count);
  DeviceBuffer in(bytes), out(bytes);
  detail::check(cudaMemcpy(in.get(), host_in, static_cast<size_t>(bytes), cudaMemcpyHostToDevice),
                "cudaMemcpy host to device");
  transform_block(plan, key, offset, block, 0, count, in.get(), out.get(), 0, cfg);
  detail::check(cudaMemcpy(host_out, out.get(), static_cast<size_t>(bytes), cudaMemcpyDeviceToHost),
                "cudaMemcpy device to host");
}

}  // namespace xrng::cuda
