// xrng CUDA backend: fill device buffers with the values of the CPU backends,
// bit for bit.
//
// Every function is asynchronous on `stream`, takes its parameters by value
// (the offset too, so a captured CUDA graph replays with the offset it was
// captured with; capture a new graph, or use a kernel parameter update, for a
// new offset) and computes elements [start, start + count) of the draw at
// word `offset` of Key `key`'s stream; dev_out[0] receives element `start`.
// Invalid requests throw xrng::Error before any CUDA call (the rules are the
// host API's: make_plan / check_counters); a failed launch throws xrng::Error
// with CUDA's message. count == 0 launches nothing.
#pragma once

#include <cuda_runtime_api.h>

#include "launch.h"
#include "xrng_cuda_host.h"

namespace xrng::cuda {

// Any plan of make_plan except dropout: bits, uniform, normal, bernoulli,
// randint (every dtype) and perm (elements [start, start+count) of the
// permutation).
void fill(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
          cudaStream_t stream = 0, LaunchConfig cfg = {});

// Dropout (plan from make_plan(Dist::dropout, dtype, {.p = p})): dev_out[i] is
// +0 where element start+i is dropped, else dev_in[i] / (1 - p) as the host
// computes it. dev_in == dev_out is allowed.
void dropout(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* dev_in,
             void* dev_out, cudaStream_t stream = 0, LaunchConfig cfg = {});

// Shard `rank` of `world` of a permutation: element j in [start, start+count)
// is perm((rank + j * world) mod n).
void perm_shard(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world, uint64_t start,
                uint64_t count, void* dev_out, cudaStream_t stream = 0, LaunchConfig cfg = {});

// Inverse permutation: dev_out[i] = position of value start + i.
void perm_inverse(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
                  cudaStream_t stream = 0, LaunchConfig cfg = {});

}  // namespace xrng::cuda
