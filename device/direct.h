// Internal to xrng's own bindings (bindings/detail/paths.cpp): the entry
// points of xrng_cuda.h without their pointer query. xrng::cuda::fill and
// friends ask the driver (cudaPointerGetAttributes) whether each buffer is
// memory the device can access, so that pageable host memory is refused with
// a message instead of a fault; a caller that holds a CUDA tensor knows the
// answer, and a small draw should cost its launch, not a driver query. Every
// other check (the plan's kind, counters, null buffers) is the same.
// Not installed, not part of the API.
#pragma once

#include "xrng_cuda.h"

namespace xrng::cuda::detail {

// fill, for dev_out known to be device memory of the current device.
void fill_device(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
                 cudaStream_t stream, LaunchConfig cfg = {});
// transform, for dev_in and dev_out known to be device memory of the current device.
void transform_device(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                      const void* dev_in, void* dev_out, cudaStream_t stream, LaunchConfig cfg = {});
// perm_shard, for dev_out known to be device memory of the current device.
void perm_shard_device(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world,
                       uint64_t start, uint64_t count, void* dev_out, cudaStream_t stream, LaunchConfig cfg = {});

}  // namespace xrng::cuda::detail
