// xrng CUDA backend, the part a program without CUDA headers can use: the
// CLI (`xrng gen --backend cuda`, `xrng verify`) and the tests compile
// against this header alone. Every function computes on the GPU through the
// kernels of xrng_cuda.h and copies the result back; values equal the CPU
// backends' bit for bit.
//
// The header needs only the portable core (rng/): plans, keys and
// xrng::Error. Requests are validated by the core (make_plan builds the plan,
// check_counters bounds the stream words) before any CUDA call, with the
// messages the host API gives.
#pragma once

#include <cstdint>
#include <string>

#include "../rng/block.h"
#include "../rng/keys.h"
#include "../rng/plan.h"

namespace xrng::cuda {

// Launch configuration of a kernel: 0 = automatic. Values never depend on it
// (the tests vary it to prove so); it exists for tuning and for those tests.
// grid >= 0, 0 <= block <= 1024.
struct LaunchConfig {
  int grid = 0;
  int block = 0;
};

// A usable CUDA device is present (false, not an error, when the driver or
// device is missing).
bool available();
// The current device's name, e.g. "NVIDIA H100 80GB HBM3"; "" if none.
std::string device_name();

// Synchronous helpers: allocate device buffers, compute on the GPU on the
// legacy default stream, copy back. Host buffers hold `count` elements of
// plan.dtype; out[0] receives element `start`. Throw xrng::Error on an invalid
// request (before any CUDA call) or a CUDA failure ("cuda: <call>: <error>").
//
// Element and permutation draws (xrng::cuda::fill).
void fill_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* host_out,
                  LaunchConfig cfg = {});
// Transform draws such as dropout (xrng::cuda::transform): out[i] = f(words of
// element start + i, in[i]).
void transform_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                       const void* host_in, void* host_out, LaunchConfig cfg = {});
// transform_to_host for a plan made with Dist::dropout only.
void dropout_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                     const void* host_in, void* host_out, LaunchConfig cfg = {});
// Elements [start, start + count) of shard `rank` of `world` of a permutation
// (xrng::cuda::perm_shard).
void perm_shard_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world,
                        uint64_t start, uint64_t count, void* host_out, LaunchConfig cfg = {});
// Inverse permutation: out[i] = position of value start + i (xrng::cuda::perm_inverse).
void perm_inverse_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                          void* host_out, LaunchConfig cfg = {});

// Block draws of a global tensor (rng/block.h; host/xrng.h fill_block):
// block elements [start, start + count) (row-major over block.size) of the
// draw over the global tensor block.shape, computed on the GPU
// (xrng::cuda::fill_block) and copied back; equal to the host's fill_block.
void fill_block_to_host(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                        uint64_t count, void* host_out, LaunchConfig cfg = {});
// The whole block.
void fill_block_to_host(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, void* host_out,
                        LaunchConfig cfg = {});
// A transform draw (dropout) of the whole block: out[j] = f(words of the
// block element's global index, in[j]); the global tensor's mask.
void transform_block_to_host(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block,
                             const void* host_in, void* host_out, LaunchConfig cfg = {});

}  // namespace xrng::cuda
