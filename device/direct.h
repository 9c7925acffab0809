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

// The same draws at a position in device memory (position.h): dev_pos
// points to 4 int64 [seed, subseq, offset, stream] on the current device,
// read by the kernel when it runs, so a captured CUDA graph draws at what
// the position holds on each replay. The host checks what does not depend
// on the position (the plan, the buffers, the draw's words from offset 0);
// the kernel checks the position (the plan's stream version, the words
// below 2^64) and fails the launch (a device-side error) if it cannot draw
// there.
void fill_at(const Plan& plan, const int64_t* dev_pos, uint64_t start, uint64_t count, void* dev_out,
             cudaStream_t stream, LaunchConfig cfg = {});
void transform_at(const Plan& plan, const int64_t* dev_pos, uint64_t start, uint64_t count, const void* dev_in,
                  void* dev_out, cudaStream_t stream, LaunchConfig cfg = {});
void perm_shard_at(const Plan& plan, const int64_t* dev_pos, uint64_t rank, uint64_t world, uint64_t start,
                   uint64_t count, void* dev_out, cudaStream_t stream, LaunchConfig cfg = {});
// A generator state in device memory advanced by `words` on `stream`
// (position.h, take_words, in a one-thread kernel): dev_before receives the
// state before. A state of another stream version than `stream_version`, or
// one the words would exhaust, fails the launch (a device-side error).
void take_at(int64_t* dev_state, int64_t* dev_before, int stream_version, uint64_t words, cudaStream_t stream);

}  // namespace xrng::cuda::detail
